/**
 * Re-drives quarantined webhooks: each goes through the ingress decision again,
 * with the signing secrets as they are now. One that verifies is queued (event
 * processing drops it if it was applied already) and leaves the quarantine; one
 * that still does not verify stays until it expires.
 */
import { acceptWebhook, type IngressDependencies } from './accept-webhook';
import type { QuarantineStore } from './quarantine';

export interface RedriveReport {
  /** Entries looked at. */
  checked: number;
  /** Verified now and queued, by key. */
  redriven: string[];
  /** Still refused for their signature: left in quarantine. */
  stillRefused: string[];
  /** Verified but refused for another reason (say why), or unreadable: left in quarantine. */
  failed: Array<{ key: string; reason: string }>;
}

export interface RedriveOptions {
  /** Check only: report what would be queued, change nothing. */
  dryRun?: boolean;
}

export async function redriveQuarantine(
  store: QuarantineStore,
  ingress: Omit<IngressDependencies, 'quarantine'>,
  options: RedriveOptions = {},
): Promise<RedriveReport> {
  const report: RedriveReport = { checked: 0, redriven: [], stillRefused: [], failed: [] };
  const verifyOnly: Omit<IngressDependencies, 'quarantine'> = {
    ...ingress,
    queue: {
      enqueue: async () => ({ messageId: 'dry-run', bodyLocation: 'inline' }),
    },
  };
  for (const key of await store.list()) {
    report.checked++;
    let entry: Awaited<ReturnType<QuarantineStore['read']>>;
    try {
      entry = await store.read(key);
    } catch (error) {
      report.failed.push({ key, reason: `unreadable: ${(error as Error).message}` });
      continue;
    }
    const delivery = { body: Buffer.from(entry.body, 'utf8'), signature: entry.signature };
    // The original arrival time, so the event keeps its place among its meeting's events.
    const deps = {
      ...(options.dryRun === true ? verifyOnly : ingress),
      now: () => new Date(entry.received_at),
      acceptedAt: undefined,
    };
    const outcome = await acceptWebhook(delivery, deps);
    if (outcome.kind === 'accepted') {
      if (options.dryRun !== true) await store.remove(key);
      report.redriven.push(key);
    } else if (outcome.reason === 'signature-mismatch') {
      report.stillRefused.push(key);
    } else {
      report.failed.push({ key, reason: `${outcome.status} ${outcome.reason}: ${outcome.message}` });
    }
  }
  return report;
}
