/**
 * What became of each delivery, told at read time from what the store holds: the hot path marks
 * no transcript event applied (a write per webhook), but every apply leaves its key behind —
 * utterances keep `appliedKeys`, the summary `summaryKeys`, state changes and kept unknown triggers
 * their `idempotencyKey`, participant events an item by the service's event id, a webhook without
 * a bot its item under the object; state changes also complete their ledger record. Anything else
 * is failed (the consumer marked its last failure) or pending (queued, not yet applied).
 */
import { decompressBody } from '../events/ledger-record';
import { EVENT_SK_PREFIX, SK_PREFIX } from '../store/table-layout';
import type { Item } from './table-reads';

/** The keys and event ids a bot's items (or an object's kept events) show as applied. */
export interface AppliedEvidence {
  keys: ReadonlySet<string>;
  participantEventIds: ReadonlySet<string>;
  /** The archive took the service's final transcript: a transcript line held back since then is in it. */
  transcriptFinal: boolean;
}

const stringsOf = (value: unknown): string[] =>
  value instanceof Set ? [...value].map(String) : Array.isArray(value) ? value.map(String) : [];

export function botEvidence(items: readonly Item[], transcriptFinal: boolean): AppliedEvidence {
  const keys = new Set<string>();
  const participantEventIds = new Set<string>();
  for (const item of items) {
    for (const key of [...stringsOf(item.appliedKeys), ...stringsOf(item.summaryKeys)]) keys.add(key);
    if (typeof item.idempotencyKey === 'string') keys.add(item.idempotencyKey);
    const sk = String(item.sk);
    if (sk.startsWith(SK_PREFIX.participantEvent)) participantEventIds.add(sk.slice(SK_PREFIX.participantEvent.length));
  }
  return { keys, participantEventIds, transcriptFinal };
}

export function objectEvidence(items: readonly Item[]): AppliedEvidence {
  const keys = new Set(items.map((item) => String(item.sk).slice(EVENT_SK_PREFIX.length)));
  return { keys, participantEventIds: new Set(), transcriptFinal: false };
}

/** Whether the store shows the ledger record's event applied. */
export function showsApplied(record: Item, evidence: AppliedEvidence): boolean {
  const key = String(record.sk).slice(EVENT_SK_PREFIX.length);
  if (record.status === 'completed' || evidence.keys.has(key)) return true;
  // Inferred, not seen: a transcript line is in the final transcript, unless its delivery failed.
  if (record.trigger === 'transcript.update') return evidence.transcriptFinal && record.failedAt === undefined;
  if (record.trigger === 'participant_events.join_leave') {
    const id = participantEventId(record.bodyBr);
    return id !== undefined && evidence.participantEventIds.has(id);
  }
  return false;
}

/** The service's id of a participant event, from the body the ledger keeps. */
function participantEventId(body: unknown): string | undefined {
  if (!(body instanceof Uint8Array)) return undefined; // claim-checked: too large to be a participant event
  try {
    const id = (JSON.parse(decompressBody(body)) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
