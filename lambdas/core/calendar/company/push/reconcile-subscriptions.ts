/**
 * The renewal run (inside every scheduled calendar sync, which alone holds the
 * company credentials): for every user of every company calendar, a live push
 * channel. Missing ones are opened, ones expiring within the margin renewed (Graph)
 * or replaced (Google), ones the provider already let lapse recreated, and those of
 * users no longer in the calendar closed. A Graph lifecycle notification marks its
 * channel's route due (push-store's markDue), read here, so this run is also where it is renewed or recreated. The
 * channels of deleted calendars (retired by DELETE /calendars/{id}, which holds no credentials) are
 * stopped here, each tried again at every run until stopped or expired out of the table. One user's
 * failure (a revoked grant, a provider error) is logged and counted; the others go on, and polling
 * stays the backstop for that user.
 */
import type { Telemetry } from '../../../telemetry';
import type { CompanyCalendarSource } from '../../calendar-source';
import {
  type ChannelLifecycleDependencies,
  closeChannel,
  openChannel,
  recreateChannel,
  renewChannel,
  stopRetiredChannel,
} from './channel-lifecycle';
import type { PushChannelRecord, PushChannelStore } from './push-store';

export interface ReconcileDependencies extends ChannelLifecycleDependencies {
  /** Every company calendar source (calendar-store's listSources filtered by isCompanySource). */
  listCompanySources(): Promise<CompanyCalendarSource[]>;
  /** The source as stored now (calendar-store's getSource): a delete may have begun while the run worked. */
  currentSource(calendarId: string): Promise<CompanyCalendarSource | undefined>;
  /** The due marks of these channels by secret id (push-store's routeDueMarks): when each is to be seen as expiring. */
  dueMarks(records: readonly PushChannelRecord[]): Promise<Map<string, number>>;
  /** The users of a company calendar as last resolved (company-store's listUsers). */
  listUsers(calendarId: string): Promise<string[]>;
  renewMarginMs: number;
  telemetry: Telemetry;
  /** Channel calls in flight at once (default RECONCILE_CONCURRENCY): each is a few provider round trips. */
  concurrency?: number;
}

/**
 * Users worked on at once. Sequentially, 2,000 channels at ~0.3 s of provider round trips
 * each would not fit a 5-minute run; 8 at a time stays far below either provider's quotas.
 */
export const RECONCILE_CONCURRENCY = 8;

/** Runs the steps, `limit` at a time. */
async function runPooled(steps: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < steps.length) {
      const step = steps[next];
      next += 1;
      await step?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, steps.length) }, worker));
}

export interface ReconcileOutcome {
  opened: number;
  renewed: number;
  replaced: number;
  recreated: number;
  closed: number;
  /** Channels of calendars deleted (or being deleted) handed to the retired ones, stopped from this run on. */
  retired: number;
  failed: number;
}

export async function reconcileSubscriptions(deps: ReconcileDependencies): Promise<ReconcileOutcome> {
  const outcome: ReconcileOutcome = {
    opened: 0,
    renewed: 0,
    replaced: 0,
    recreated: 0,
    closed: 0,
    retired: 0,
    failed: 0,
  };
  const attemptOn = (calendarId: string, provider: string, step: () => Promise<void>) => async () => {
    try {
      await step();
    } catch (error) {
      outcome.failed += 1;
      deps.telemetry.log.warn('calendar push channel not reconciled', {
        calendarId,
        provider,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  };
  for (const source of await deps.listCompanySources()) {
    // Being deleted: its channels go to the retired ones (stopped below), none is opened or renewed.
    if (source.deleting !== undefined) {
      outcome.retired += await retireCalendarChannels(source, deps);
      continue;
    }
    const users = new Set(await deps.listUsers(source.calendarId));
    const listed = await deps.channels.listForCalendar(source.calendarId);
    // A lifecycle notification's mark brings the expiry forward: renewed, or recreated when lapsed.
    const due = await deps.dueMarks(listed);
    const records = listed.map((record) => {
      const dueAtMs = due.get(record.secretId);
      return dueAtMs !== undefined && dueAtMs < record.expiresAtMs ? { ...record, expiresAtMs: dueAtMs } : record;
    });
    const covered = new Set<string>();
    const steps: Array<() => Promise<void>> = [];
    const attempt = (step: () => Promise<void>) => attemptOn(source.calendarId, source.company.provider, step);
    for (const record of records) {
      if (record.provider !== source.company.provider) {
        // The calendar moved to the other provider: the old grant is not ours to use any more, so the
        // channel is forgotten (its notifications are refused) and lapses on its own; the user gets a new one.
        steps.push(
          attempt(async () => {
            await deps.channels.remove(record);
            outcome.closed += 1;
          }),
        );
        continue;
      }
      covered.add(record.user);
      steps.push(
        attempt(async () => {
          const now = deps.now();
          if (!users.has(record.user) && record.expiresAtMs <= now) {
            // Lapsed already: nothing to stop at the provider (whose grant may be gone with the user).
            await deps.channels.remove(record);
            outcome.closed += 1;
          } else if (!users.has(record.user)) {
            await closeChannel(source, record, deps);
            outcome.closed += 1;
          } else if (record.expiresAtMs <= now) {
            // Lapsed: the provider delivers nothing more, and a Graph subscription is gone.
            await recreateChannel(source, record, deps);
            outcome.recreated += 1;
          } else if (record.expiresAtMs - now < deps.renewMarginMs) {
            outcome[await renewChannel(source, record, deps)] += 1;
          }
        }),
      );
    }
    for (const user of users) {
      if (covered.has(user)) continue;
      steps.push(
        attempt(async () => {
          await openChannel(source, user, deps);
          outcome.opened += 1;
        }),
      );
    }
    await runPooled(steps, deps.concurrency ?? RECONCILE_CONCURRENCY);
    // Deleted (or being deleted) while the steps ran: what they opened must not outlive it.
    const stored = await deps.currentSource(source.calendarId);
    if (stored === undefined || stored.deleting !== undefined)
      outcome.retired += await retireCalendarChannels(source, deps);
  }
  const retired = await deps.channels.listRetired();
  await runPooled(
    retired.map((channel) =>
      attemptOn(channel.record.calendarId, channel.record.provider, async () => {
        await stopRetiredChannel(channel, deps);
        outcome.closed += 1;
      }),
    ),
    deps.concurrency ?? RECONCILE_CONCURRENCY,
  );
  return outcome;
}

/**
 * Hands every push channel of a deleted calendar to the renewal run (push-store's retire): their routes
 * go at once, so a notification finds no channel and queues nothing; the run stops each at its provider.
 * Needs no credential, so DELETE /calendars/{id} does it. The number retired.
 */
export async function retireCalendarChannels(
  source: CompanyCalendarSource,
  deps: { channels: Pick<PushChannelStore, 'listForCalendar' | 'retire'> },
): Promise<number> {
  const records = await deps.channels.listForCalendar(source.calendarId);
  for (const record of records) await deps.channels.retire(record, source);
  return records.length;
}
