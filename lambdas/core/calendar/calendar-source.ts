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

/** What every source takes beside where its meetings come from. */
const commonRequestShape = {
  rules: z._default(calendarRulesSchema, calendarRulesSchema.parse({})),
  bot_name: z._default(z.string().check(z.minLength(1), z.maxLength(100)), 'Notetaker'),
  lookahead_days: z._default(z.int().check(z.gte(1), z.lte(LOOKAHEAD_DAYS.max)), LOOKAHEAD_DAYS.default),
};

const icsUrl = z.url({ protocol: /^https?$/, error: 'must be the https address of an ICS feed' });

/** An ICS source's request: the feed address. */
export const calendarRequestSchema = z.object({ ics_url: icsUrl, ...commonRequestShape });
export type CalendarRequest = z.infer<typeof calendarRequestSchema>;

/**
 * Users one company source syncs: `default` unless the operator sets another
 * (calendarMaxUsersPerSource); `max` bounds that setting and what one request may list.
 */
export const COMPANY_USERS = { default: 1_000, max: 10_000 } as const;

/** Where a source's credentials may be: the sync functions may read secrets under this name prefix only. */
export const DEFAULT_CREDENTIALS_SECRET_PREFIX = 'meeting-pipeline/calendars/';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** A DNS name of two labels or more (a verified tenant domain such as `contoso.onmicrosoft.com`). */
const DOMAIN = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
/** An address: one `@`, no spaces (the provider decides whether the mailbox exists). */
const ADDRESS = /^[^@\s]{1,64}@[^@\s]{1,255}$/;
/** A Secrets Manager secret name (its allowed characters) or the secret's ARN. */
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:([A-Za-z0-9/_+=.@-]{1,512})$/;

/** The name a secret reference names: the reference itself, or the name part of an ARN (with its random suffix). */
export function secretNameOf(reference: string): string {
  return SECRET_ARN.exec(reference)?.[1] ?? reference;
}

/** Lower-cased, first spelling kept: providers treat addresses and ids without regard to case. */
const distinctUsers = (users: string[]): string[] => [...new Set(users.map((user) => user.toLowerCase()))];

const userList = (what: string, pattern: RegExp) =>
  z.pipe(
    z
      .array(z.string().check(z.regex(pattern, `each user is ${what}`)), { error: 'must be a list of users' })
      .check(
        z.minLength(1, 'must name at least one user'),
        z.maxLength(COMPANY_USERS.max, `at most ${COMPANY_USERS.max} users`),
      ),
    z.transform(distinctUsers),
  );

const credentialsSecret = z.string({ error: 'is required: the Secrets Manager name or ARN of the credentials' }).check(
  z.refine((value) => SECRET_NAME.test(value) || SECRET_ARN.test(value), {
    message: 'must be a Secrets Manager secret name or ARN (never the credentials themselves)',
  }),
);

/** A misspelled key would silently change whose calendars are read: unknown keys are refused. */
const unknownKeys = (issue: { code?: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' ? `unknown key(s) ${(issue.keys ?? []).join(', ')}` : undefined;

const googleSourceSchema = z
  .strictObject(
    {
      credentials_secret: credentialsSecret,
      users: z.optional(userList('an email address', ADDRESS)),
      group: z.optional(z.string().check(z.regex(ADDRESS, 'must be the email address of a Google group'))),
      admin_email: z.optional(
        z.string().check(z.regex(ADDRESS, 'must be the email address of a Workspace administrator')),
      ),
    },
    { error: unknownKeys },
  )
  .check(
    z.refine((g) => (g.users === undefined) !== (g.group === undefined), {
      message: 'give exactly one of users (a list of addresses) and group (a group address)',
    }),
    z.refine((g) => g.group === undefined || g.admin_email !== undefined, {
      message: 'admin_email is required with group: the Directory API reads group members as an administrator',
      path: ['admin_email'],
    }),
  );

const microsoftSourceSchema = z
  .strictObject(
    {
      tenant_id: z
        .string({ error: 'is required: the directory (tenant) id or a verified domain' })
        .check(
          z.refine(
            (value) => GUID.test(value) || DOMAIN.test(value),
            'must be a GUID or a domain such as contoso.onmicrosoft.com',
          ),
        ),
      client_id: z.string({ error: 'is required: the application (client) id' }).check(z.regex(GUID, 'must be a GUID')),
      credentials_secret: credentialsSecret,
      users: z.optional(
        userList('a user principal name or an object id (GUID)', new RegExp(`${ADDRESS.source}|${GUID.source}`)),
      ),
      group_id: z.optional(z.string().check(z.regex(GUID, 'must be the object id (GUID) of an Entra group'))),
    },
    { error: unknownKeys },
  )
  .check(
    z.refine((m) => (m.users === undefined) !== (m.group_id === undefined), {
      message: 'give exactly one of users (a list of UPNs or ids) and group_id (a group object id)',
    }),
  );

/**
 * What PUT /calendars/{id} takes: exactly one source (an ICS feed, a Google Workspace
 * or a Microsoft 365 tenant) and the rules. Unknown keys at this level are dropped,
 * as they always were; those of a company source are refused.
 */
export const anyCalendarRequestSchema = z
  .object({
    ics_url: z.optional(icsUrl),
    google: z.optional(googleSourceSchema),
    microsoft: z.optional(microsoftSourceSchema),
    ...commonRequestShape,
  })
  .check(
    z.refine(
      (request) =>
        [request.ics_url, request.google, request.microsoft].filter((source) => source !== undefined).length === 1,
      'give exactly one source: ics_url, google or microsoft',
    ),
  );
type AnyCalendarRequest = z.infer<typeof anyCalendarRequestSchema>;

/** A parsed request, its source told apart. */
export type ParsedCalendarRequest =
  | ({ kind: 'ics' } & CalendarRequest)
  | ({ kind: 'company'; company: CompanySourceConfig } & Omit<CalendarRequest, 'ics_url'>);

/** The request with its one source named (anyCalendarRequestSchema has checked there is exactly one). */
export function sourceOfRequest(request: AnyCalendarRequest): ParsedCalendarRequest {
  const { ics_url, google, microsoft, ...common } = request;
  if (google !== undefined)
    return {
      kind: 'company',
      ...common,
      company: {
        provider: 'google',
        credentialsSecret: google.credentials_secret,
        ...(google.users !== undefined && { users: google.users }),
        ...(google.group !== undefined && { group: google.group.toLowerCase() }),
        ...(google.admin_email !== undefined && { adminEmail: google.admin_email }),
      },
    };
  if (microsoft !== undefined)
    return {
      kind: 'company',
      ...common,
      company: {
        provider: 'microsoft',
        tenantId: microsoft.tenant_id,
        clientId: microsoft.client_id,
        credentialsSecret: microsoft.credentials_secret,
        ...(microsoft.users !== undefined && { users: microsoft.users }),
        ...(microsoft.group_id !== undefined && { groupId: microsoft.group_id.toLowerCase() }),
      },
    };
  if (ics_url === undefined) throw new Error('a calendar request without a source');
  return { kind: 'ics', ics_url, ...common };
}

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
  /**
   * Being deleted since then (DELETE /calendars/{id} marks it before cancelling): no user is
   * synced or added any more, so a sync still queued cannot schedule behind the deletion.
   */
  deleting?: string;
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
