/**
 * `calendars list`, `calendars put|get|sync|delete <id>`: the calendar API (GET /calendars,
 * PUT/GET/DELETE /calendars/{id}, POST …/sync) for ICS feeds and company sources (Google
 * Workspace, Microsoft 365). A company source names its credentials secret; the
 * CLI never reads or sends a credential.
 */
import { z } from 'zod';
import { CALENDAR_API_ROUTES } from '../../lambdas/core/calendar/calendar-api';
import { CALENDAR_ID } from '../../lambdas/core/calendar/calendar-source';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { describeRecentOutcomes, type RecentOutcomesAnswer, recentOutcomesAnswer } from '../recent-outcomes';
import { renderFields, renderTable } from '../table';
import type { Target } from '../target';

/** What the CLI shows of a calendar answer (lambdas/core/calendar/calendar-api.ts); other fields pass through to --json. */
const userRow = z.looseObject({
  user: z.string(),
  state: z.string(),
  reason: z.string().nullish(),
  last_sync: z.string().nullish(),
  events_seen: z.number(),
  backoff_until: z.string().nullish(),
  recent_outcomes: recentOutcomesAnswer.nullish(),
});
const calendarAnswer = z.looseObject({
  calendar_id: z.string(),
  ics_url: z.string().optional(),
  provider: z.enum(['google', 'microsoft']).optional(),
  google: z.looseObject({}).optional(),
  microsoft: z.looseObject({}).optional(),
  bot_name: z.string(),
  lookahead_days: z.number(),
  updated_at: z.string(),
  last_sync: z.looseObject({ at: z.string(), outcome: z.string() }).nullish(),
  users: z.array(userRow).optional(),
  totals: z
    .looseObject({
      users: z.number(),
      pending: z.number(),
      connected: z.number(),
      disconnected: z.number(),
      recent_outcomes: recentOutcomesAnswer.optional(),
    })
    .optional(),
  recent_outcomes: recentOutcomesAnswer.optional(),
});
type CalendarAnswer = z.infer<typeof calendarAnswer>;

function calendarId(id: string | undefined): string {
  if (id === undefined || !CALENDAR_ID.test(id))
    throw new UsageError(`A calendar id is 1 to 100 letters, digits, ".", "_" or "-": ${JSON.stringify(id)}`);
  return id;
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export interface CalendarFlags {
  'ics-url'?: string;
  'google-secret'?: string;
  'microsoft-tenant'?: string;
  'microsoft-client'?: string;
  'microsoft-secret'?: string;
  users?: string;
  group?: string;
  admin?: string;
  'group-id'?: string;
  'bot-name'?: string;
  'lookahead-days'?: string;
  join?: string;
  owner?: string;
}

/**
 * The PUT body the flags describe. The CLI checks only which flags go together (one
 * line each); the API checks every value and says what is wrong.
 */
export function calendarBody(flags: CalendarFlags): Record<string, unknown> {
  const sources = [
    flags['ics-url'] !== undefined && '--ics-url',
    flags['google-secret'] !== undefined && '--google-secret',
    flags['microsoft-tenant'] !== undefined && '--microsoft-tenant',
  ].filter((flag) => flag !== false);
  if (sources.length !== 1)
    throw new UsageError(
      sources.length === 0
        ? 'calendars put needs one source: --ics-url URL, --google-secret NAME or --microsoft-tenant ID'
        : `calendars put takes one source, not ${sources.join(' and ')}`,
    );
  const users = flags.users === undefined ? undefined : list(flags.users);
  const who = (group: 'group' | 'group_id', value: string | undefined, groupFlag: string) => {
    if ((users === undefined) === (value === undefined))
      throw new UsageError(`calendars put needs one of --users A,B,… and ${groupFlag}`);
    return users !== undefined ? { users } : { [group]: value };
  };
  let source: Record<string, unknown>;
  if (flags['ics-url'] !== undefined) {
    const stray = (['users', 'group', 'admin', 'group-id'] as const).find((flag) => flags[flag] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} is for a company source, not --ics-url`);
    source = { ics_url: flags['ics-url'] };
  } else if (flags['google-secret'] !== undefined) {
    if (flags['group-id'] !== undefined) throw new UsageError('--group-id is for Microsoft; a Google group is --group');
    if (flags.group !== undefined && flags.admin === undefined)
      throw new UsageError('--group needs --admin ADDRESS: Google lists group members as an administrator');
    source = {
      google: {
        credentials_secret: flags['google-secret'],
        ...who('group', flags.group, '--group ADDRESS'),
        ...(flags.admin !== undefined && { admin_email: flags.admin }),
      },
    };
  } else {
    if (flags.group !== undefined) throw new UsageError('--group is for Google; a Microsoft group is --group-id');
    const client = flags['microsoft-client'];
    const secret = flags['microsoft-secret'];
    if (client === undefined || secret === undefined)
      throw new UsageError('--microsoft-tenant needs --microsoft-client ID and --microsoft-secret NAME');
    source = {
      microsoft: {
        tenant_id: flags['microsoft-tenant'],
        client_id: client,
        credentials_secret: secret,
        ...who('group_id', flags['group-id'], '--group-id ID'),
      },
    };
  }
  const lookahead = wholeNumber('lookahead-days', flags['lookahead-days'], 1, 180);
  const rules = {
    ...(flags.join !== undefined && { join: flags.join }),
    ...(flags.owner !== undefined && { owner_emails: list(flags.owner) }),
  };
  return {
    ...source,
    ...(Object.keys(rules).length > 0 && { rules }),
    ...(flags['bot-name'] !== undefined && { bot_name: flags['bot-name'] }),
    ...(lookahead !== undefined && { lookahead_days: lookahead }),
  };
}

const recentLabel = (r: RecentOutcomesAnswer | null | undefined) =>
  r === undefined || r === null ? undefined : `last ${r.days} days`;

/**
 * A calendar for people: its fields, then one line per user for a company source, then each user's
 * recent outcomes (an admin reads who loses meetings, and why).
 */
export function describeCalendar(c: CalendarAnswer): string {
  const config = (c.provider === undefined ? undefined : c[c.provider]) as Record<string, unknown> | undefined;
  const fields: Array<[string, string | number | null | undefined]> = [
    ['calendar', c.calendar_id],
    ['source', c.provider ?? 'ics'],
    ...(c.ics_url !== undefined ? ([['feed', c.ics_url]] as Array<[string, string]>) : []),
    ...Object.entries(config ?? {}).map(([key, value]): [string, string] => [
      key.replaceAll('_', ' '),
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
    ['bot name', c.bot_name],
    ['lookahead days', c.lookahead_days],
    ['updated at', c.updated_at],
  ];
  if (c.users === undefined)
    return renderFields([
      ...fields,
      ['last sync', c.last_sync ? `${c.last_sync.at} ${c.last_sync.outcome}` : null],
      ...(c.recent_outcomes === undefined
        ? []
        : ([[recentLabel(c.recent_outcomes), describeRecentOutcomes(c.recent_outcomes)]] as Array<[string, string]>)),
    ]);
  const t = c.totals;
  const summary =
    t === undefined
      ? ''
      : `${t.users} (${t.connected} connected, ${t.pending} pending, ${t.disconnected} disconnected)`;
  const table =
    c.users.length === 0
      ? '(no user synced yet: a group is read at the first sync)'
      : renderTable(
          [
            { header: 'USER', value: (u) => u.user },
            { header: 'STATE', value: (u) => u.state },
            { header: 'LAST SYNC', value: (u) => u.last_sync },
            { header: 'EVENTS', value: (u) => u.events_seen, align: 'right' },
            { header: 'BACKOFF UNTIL', value: (u) => u.backoff_until },
            { header: 'REASON', value: (u) => u.reason },
          ],
          c.users,
        );
  const recent = t?.recent_outcomes;
  const perUser = c.users.flatMap((u) =>
    u.recent_outcomes === undefined || u.recent_outcomes === null
      ? []
      : [[u.user, describeRecentOutcomes(u.recent_outcomes)] as [string, string]],
  );
  const notRead = c.users.length - perUser.length;
  const outcomes =
    recent === undefined
      ? ''
      : `\n\nMeetings of the ${recentLabel(recent)}: ${describeRecentOutcomes(recent)}${
          perUser.length === 0 ? '' : `\n${renderFields(perUser)}`
        }${notRead > 0 ? `\n(${notRead} more user(s) not read in one answer)` : ''}`;
  return `${renderFields([...fields, ['users', summary]])}\n\n${table}${outcomes}`;
}

const urlOf = (api: Target, route: string, id: string) => routeUrl(api, route, { id });

async function show(target: () => Promise<Target>, id: string, method: 'GET' | 'PUT', json: boolean, body?: unknown) {
  const api = await target();
  const route = method === 'PUT' ? CALENDAR_API_ROUTES.put : CALENDAR_API_ROUTES.get;
  const { raw, value } = await requestJson(api, urlOf(api, route, id), calendarAnswer, {
    method,
    ...(body !== undefined && { body }),
  });
  if (json) printJson(raw);
  else print(describeCalendar(value));
  return undefined;
}

export const calendarsPut = defineCommand({
  words: ['calendars', 'put'],
  args: ['<id>'],
  summary: 'Register or change the calendar <id>: an ICS feed, or a Google Workspace or Microsoft 365 tenant.',
  usage: '<source flags> [other flags]',
  flags: `  one source:             --ics-url URL
                          or --google-secret NAME with --users A,B or --group G --admin A
                          or --microsoft-tenant T --microsoft-client C --microsoft-secret NAME
                             with --users A,B or --group-id G
  --ics-url URL           an ICS feed's https address
  --google-secret NAME    Google: the Secrets Manager name or ARN of the service-account key
  --microsoft-tenant T    Microsoft: the tenant id (GUID) or a verified domain
  --microsoft-client C    Microsoft: the application (client) id
  --microsoft-secret NAME Microsoft: the Secrets Manager name or ARN of the client secret
  --users A,B             the users whose calendars are read (emails; Microsoft also UPNs or ids)
  --group G               Google: a group's address, its members read at each sync (needs --admin)
  --admin A               Google: the administrator the group is read as
  --group-id G            Microsoft: a group's object id, its members read at each sync
  --join RULE             accepted (default), all, owner or external
  --owner A,B             the owner's addresses (an ICS feed; a company user is its own owner)
  --bot-name NAME         the bot's name in meetings
  --lookahead-days N      how far ahead bots are scheduled, 1 to 180 (default 14)`,
  options: {
    'ics-url': { type: 'string' },
    'google-secret': { type: 'string' },
    'microsoft-tenant': { type: 'string' },
    'microsoft-client': { type: 'string' },
    'microsoft-secret': { type: 'string' },
    users: { type: 'string' },
    group: { type: 'string' },
    admin: { type: 'string' },
    'group-id': { type: 'string' },
    join: { type: 'string' },
    owner: { type: 'string' },
    'bot-name': { type: 'string' },
    'lookahead-days': { type: 'string' },
  },
  run: async ({ values, args, target }) =>
    show(target, calendarId(args[0]), 'PUT', values.json === true, calendarBody(values)),
});

/** What the CLI shows of GET /calendars; other fields pass through to --json. */
const calendarList = z.looseObject({
  calendars: z.array(
    z.looseObject({
      calendar_id: z.string(),
      source: z.string(),
      bot_name: z.string(),
      lookahead_days: z.number(),
      updated_at: z.string(),
      last_sync: z.looseObject({ at: z.string(), outcome: z.string() }).nullish(),
    }),
  ),
});

export const calendarsList = defineCommand({
  words: ['calendars', 'list'],
  summary: 'Every registered calendar, one row each: its source (ics, google, microsoft), bot name and last sync.',
  options: {},
  async run({ values, target }) {
    const api = await target();
    const { raw, value } = await requestJson(api, routeUrl(api, CALENDAR_API_ROUTES.list), calendarList);
    if (values.json === true) printJson(raw);
    else if (value.calendars.length === 0) print('0 calendars (calendars put <id> registers one)');
    else
      print(
        renderTable(
          [
            { header: 'CALENDAR', value: (c) => c.calendar_id },
            { header: 'SOURCE', value: (c) => c.source },
            { header: 'BOT NAME', value: (c) => c.bot_name },
            { header: 'LOOKAHEAD', value: (c) => c.lookahead_days, align: 'right' },
            { header: 'LAST SYNC', value: (c) => (c.last_sync ? `${c.last_sync.at} ${c.last_sync.outcome}` : null) },
          ],
          value.calendars,
        ),
      );
    return undefined;
  },
});

export const calendarsGet = defineCommand({
  words: ['calendars', 'get'],
  args: ['<id>'],
  summary:
    "The calendar <id>: its source and rules, its meetings of the last 7 days by outcome (missed and failed by reason); for a company source each user's state, last sync, events and meetings.",
  options: {},
  run: async ({ values, args, target }) => show(target, calendarId(args[0]), 'GET', values.json === true),
});

export const calendarsSync = defineCommand({
  words: ['calendars', 'sync'],
  args: ['<id>'],
  summary: "Sync the calendar <id> now (a company source: every user's sync is queued).",
  options: {},
  async run({ values, args, target }) {
    const api = await target();
    const answer = z.looseObject({ calendar_id: z.string(), enqueued: z.number().optional() });
    const { raw, value } = await requestJson(api, urlOf(api, CALENDAR_API_ROUTES.sync, calendarId(args[0])), answer, {
      method: 'POST',
    });
    if (values.json === true) printJson(raw);
    else if (value.enqueued !== undefined) print(`${value.calendar_id}: ${value.enqueued} user sync(s) queued`);
    else print(`${value.calendar_id}: ${String((raw as { explain?: unknown }).explain ?? 'synced')}`);
    return undefined;
  },
});

export const calendarsDelete = defineCommand({
  words: ['calendars', 'delete'],
  args: ['<id>'],
  summary: "Delete the calendar <id>, cancelling its schedules (every user's, for a company source).",
  options: {},
  async run({ values, args, target }) {
    const api = await target();
    const answer = z.looseObject({ calendar_id: z.string(), cancelled: z.number() });
    const { raw, value } = await requestJson(api, urlOf(api, CALENDAR_API_ROUTES.delete, calendarId(args[0])), answer, {
      method: 'DELETE',
    });
    if (values.json === true) printJson(raw);
    else print(`${value.calendar_id}: deleted, ${value.cancelled} schedule(s) cancelled`);
    return undefined;
  },
});
