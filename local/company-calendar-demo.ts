/**
 * `npm run dev -- --calendar-simulators`, once the stack is up: prints the sample
 * tenant (company-tenant/), registers one Google and one Microsoft calendar for its
 * users through the stack's own calendar routes, previews their decisions and syncs
 * them, each line in the timeline. A route that does not take company sources yet
 * says so in one line; the simulators stay up either way.
 */
import { call } from './calendar-feed-demo';
import type { CompanyTenant } from './company-tenant/company-tenant';

export interface CompanyCalendarDemoOptions {
  tenant: CompanyTenant;
  /** The scheduled run of company calendars (push channels opened, users queued); run once after registering. */
  runOnce?: () => Promise<void>;
  /** The local HTTP API base (calendar routes). */
  apiUrl: string;
  print(line: string): void;
  stamp(): string;
}

/** The sample tenant's calendars as the calendar API registers them (PUT /calendars/{id}). */
export function sampleCalendarRequests(
  tenant: CompanyTenant,
): Array<{ id: string; provider: string; users: string[]; body: Record<string, unknown> }> {
  const common = { lookahead_days: tenant.plan.lookaheadDays, rules: { join: 'accepted' } };
  const { google, microsoft } = tenant;
  return [
    {
      id: 'google-sample',
      provider: 'Google Workspace',
      users: google.users,
      body: { google: { credentials_secret: google.source.credentialsSecret, users: google.users }, ...common },
    },
    {
      id: 'microsoft-sample',
      provider: 'Microsoft 365',
      users: microsoft.users,
      body: {
        microsoft: {
          tenant_id: microsoft.tenantId,
          client_id: microsoft.clientId,
          credentials_secret: microsoft.source.credentialsSecret,
          users: microsoft.users,
        },
        ...common,
      },
    },
  ];
}

/** What the sample tenant holds, for a person reading the timeline. */
export function describeTenant(tenant: CompanyTenant): string[] {
  const { plan, endpoints } = tenant;
  const series = plan.meetings.find((m) => m.weekly !== undefined);
  return [
    `  Google simulator    ${endpoints.googleCalendarApi}  (token ${endpoints.googleTokenUrl})`,
    `  Graph simulator     ${endpoints.microsoftGraph}  (login ${endpoints.microsoftLogin})`,
    `  Google users        ${tenant.google.users.join(', ')}  (secret ${tenant.google.source.credentialsSecret})`,
    `  Microsoft users     ${tenant.microsoft.users.join(', ')}  (secret ${tenant.microsoft.source.credentialsSecret})`,
    `  meetings            ${plan.meetings.map((m) => m.title).join(', ')}; in ${plan.zone.iana}, the series crosses the DST change of ${new Date(plan.dstChangeMs).toISOString()}${series?.weekly === undefined ? '' : ` (${series.weekly.count} weeks, one moved, one cancelled)`}`,
  ];
}

/** "3 join, 2 skip: 1 declined by dee@acme.example, 1 covered by another calendar's bot". */
function decisionSummary(rows: Array<Record<string, unknown>>): string {
  const joins = rows.filter((row) => row.decision === 'join').length;
  const reasons = new Map<string, number>();
  for (const row of rows)
    if (row.decision !== 'join') reasons.set(String(row.reason), (reasons.get(String(row.reason)) ?? 0) + 1);
  const skips = [...reasons].map(([reason, count]) => `${count} ${reason}`).join(', ');
  return `${joins} join, ${rows.length - joins} skip${skips === '' ? '' : `: ${skips}`}`;
}

/** How long the demo waits for the queued user syncs before it shows the decisions. */
const SETTLE_MS = 60_000;

/** Waits until no user of the calendar is `pending` (each synced once), or SETTLE_MS passed. */
async function settled(base: string): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline) {
    const view = await call('GET', base);
    const users = (view.users ?? []) as Array<{ state: string }>;
    if (users.length > 0 && users.every((user) => user.state !== 'pending')) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runCompanyCalendarDemo(options: CompanyCalendarDemoOptions): Promise<void> {
  const { tenant, apiUrl, print, stamp } = options;
  print(`${stamp()}  calendar simulators: a sample tenant on each provider`);
  for (const line of describeTenant(tenant)) print(line);
  const registered: string[] = [];
  for (const { id, provider, users, body } of sampleCalendarRequests(tenant)) {
    const base = `${apiUrl}/calendars/${id}`;
    try {
      await call('PUT', base, body);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // An API that knows only ICS feeds asks for ics_url.
      const hint = /ics_url/.test(message) ? ' (the calendar routes of this build take ICS feeds only)' : '';
      print(`${stamp()}  calendar ${id}: not registered: ${message}${hint}`);
      continue;
    }
    print(`${stamp()}  calendar ${id}: registered ${provider} for ${users.length} users`);
    registered.push(id);
    try {
      const sync = await call('POST', `${base}/sync`);
      print(`${stamp()}  calendar ${id}: ${sync.enqueued} user syncs queued`);
      await settled(base);
      const preview = await call('GET', `${base}/preview?days=${tenant.plan.lookaheadDays}`);
      for (const user of (preview.users ?? []) as Array<{ user: string; occurrences: Array<Record<string, unknown>> }>)
        print(`${stamp()}  calendar ${id} ${user.user}: ${decisionSummary(user.occurrences)}`);
      const { schedules } = await call('GET', `${apiUrl}/schedules?calendar_id=${id}`);
      const booked = ((schedules ?? []) as Array<Record<string, unknown>>).filter(
        (row) => row.status !== 'cancelled' && row.covered_by_another_calendar !== true,
      );
      print(`${stamp()}  calendar ${id}: ${booked.length} bots scheduled; the first ones:`);
      for (const row of booked.slice(0, 3)) print(`${stamp()}    ${row.join_at}  ${row.title}  ${row.meeting_url}`);
    } catch (error) {
      print(`${stamp()}  calendar ${id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // The scheduled run opens each user's push channel: a change in the simulators is synced within seconds.
  if (registered.length > 0) await options.runOnce?.();
  for (const id of registered) print(`  sync again: curl -X POST ${apiUrl}/calendars/${id}/sync`);
}
