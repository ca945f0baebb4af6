/**
 * A calendar source: an ICS feed the pipeline polls, the rules that pick which of
 * its meetings get a bot, and what a caller sends to register one
 * (PUT /calendars/{id}).
 */
import * as z from 'zod/mini';
import type { CompanySourceConfig } from './company/provider-contract';

/** How far ahead a sync schedules bots; a Standard workflow (the launcher) waits at most a year. */
export const LOOKAHEAD_DAYS = { default: 14, max: 180 } as const;

/** A calendar id becomes part of keys and schedule ids: letters, digits, `.`, `_`, `-`. */
export const CALENDAR_ID = /^[A-Za-z0-9._-]{1,100}$/;

const emailList = z.array(z.string().check(z.minLength(1), z.maxLength(320)));
const keywordList = z.array(z.string().check(z.minLength(1), z.maxLength(200)));

/**
 * Which meetings get a bot. Every meeting needs a link the service takes; `join`
 * narrows that down, the rest skip further meetings. Each skip names its rule.
 */
export const calendarRulesSchema = z.object({
  /**
   * `accepted` (the default): meetings the owner organizes or has accepted; `owner`: only those the owner
   * organizes; `external`: those with attendees outside the internal domains; `all`: every meeting with a
   * link. Anyone can put an invite into a calendar, where it waits unanswered: with `all` every such
   * invite gets a billed bot, so the default joins only what the owner made or said yes to.
   */
  join: z._default(z.enum(['accepted', 'all', 'owner', 'external']), 'accepted'),
  /** The calendar owner's addresses: who organizes, who declined. */
  owner_emails: z._default(emailList, []),
  /** Domains that count as internal for `join: external`; by default the owner's domains. */
  internal_domains: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(253))), []),
  /** A title must contain one of these (case-insensitive), when any are given. */
  title_include: z._default(keywordList, []),
  /** A title containing any of these is skipped (case-insensitive). */
  title_exclude: z._default(keywordList, []),
  /** Skip meetings with fewer attendees than this (the organizer counts). */
  min_attendees: z._default(z.int().check(z.nonnegative(), z.lte(10_000)), 0),
  /** Skip meetings the owner declined. */
  skip_declined: z._default(z.boolean(), true),
});
export type CalendarRules = z.infer<typeof calendarRulesSchema>;

export const calendarRequestSchema = z.object({
  ics_url: z.url({ protocol: /^https?$/, error: 'must be the https address of an ICS feed' }),
  rules: z._default(calendarRulesSchema, calendarRulesSchema.parse({})),
  bot_name: z._default(z.string().check(z.minLength(1), z.maxLength(100)), 'Notetaker'),
  lookahead_days: z._default(z.int().check(z.gte(1), z.lte(LOOKAHEAD_DAYS.max)), LOOKAHEAD_DAYS.default),
});
export type CalendarRequest = z.infer<typeof calendarRequestSchema>;

/** A registered calendar as stored: the feed address only sealed (url-sealer.ts). */
export interface CalendarSource {
  calendarId: string;
  /** The feed address, encrypted; never logged or answered. */
  sealedIcsUrl: string;
  /** What a caller may see of the address (maskIcsUrl). */
  maskedIcsUrl: string;
  rules: CalendarRules;
  botName: string;
  lookaheadDays: number;
  createdAt: string;
  updatedAt: string;
  lastSync?: { at: string; outcome: string };
}

/**
 * A company calendar source (Google Workspace, Microsoft 365): one admin grant,
 * many users, each synced on their own (company/company-sync.ts). Stored beside
 * ICS sources under the same key; `kind` tells them apart (ICS items have none).
 */
export interface CompanyCalendarSource extends Omit<CalendarSource, 'sealedIcsUrl' | 'maskedIcsUrl'> {
  kind: 'company';
  company: CompanySourceConfig;
}

/** What the calendars partition holds: an ICS source or a company one. */
export type StoredCalendarSource = CalendarSource | CompanyCalendarSource;

export const isCompanySource = (source: StoredCalendarSource): source is CompanyCalendarSource =>
  'kind' in source && source.kind === 'company';

/**
 * What may be shown of a feed address: its scheme and host. Secret feed addresses
 * carry the credential in the path or query (Google's `private-<token>`, Outlook's
 * published-calendar ids), so nothing after the host is shown.
 */
export function maskIcsUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '…';
  }
}
