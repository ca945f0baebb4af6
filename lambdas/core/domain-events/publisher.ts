/**
 * Where domain events go: EventBridge in AWS (lambdas/shared/eventbridge-publisher.ts),
 * a JSON Lines file in local mode (local/event-log-publisher.ts). Both send the
 * same PutEvents entries in the same batches, cut by EventBridge's limits.
 */
import { DOMAIN_EVENT_SOURCE, type DomainEvent } from './catalogue';

export interface DomainEventPublisher {
  /**
   * Resolves once every event is accepted; throws otherwise, so the caller's
   * work (a queue message, a launcher task) is retried and publishes again.
   */
  publish(events: readonly DomainEvent[]): Promise<void>;
}

/** One PutEvents entry, as the API takes it. */
export interface PutEventsEntry {
  Source: string;
  DetailType: string;
  /** The detail as JSON text. */
  Detail: string;
  EventBusName: string;
}

/** PutEvents takes at most 10 entries and 256 KB (entries measured as below) per call. */
export const PUT_EVENTS_LIMITS = { entries: 10, requestBytes: 256 * 1024 } as const;

/** The error's name, which the launcher's state machine retries (lib/bot-scheduler.ts). */
export const DOMAIN_EVENTS_NOT_PUBLISHED = 'DomainEventsNotPublishedError';

/** Thrown when events are still refused after the publisher's attempts; the work is retried. */
export class DomainEventsNotPublishedError extends Error {
  override name = DOMAIN_EVENTS_NOT_PUBLISHED;
}

export function toPutEventsEntry(event: DomainEvent, eventBusName: string): PutEventsEntry {
  return {
    Source: DOMAIN_EVENT_SOURCE,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    EventBusName: eventBusName,
  };
}

/** An entry's size as EventBridge counts it: UTF-8 bytes of source, detail-type and detail (no time, no resources). */
export function putEventsEntryBytes(entry: PutEventsEntry): number {
  return (
    Buffer.byteLength(entry.Source, 'utf8') +
    Buffer.byteLength(entry.DetailType, 'utf8') +
    Buffer.byteLength(entry.Detail, 'utf8')
  );
}

/** Entries in order, cut into calls within both limits; an entry over the request size alone can never be sent. */
export function putEventsBatches(entries: readonly PutEventsEntry[]): PutEventsEntry[][] {
  const batches: PutEventsEntry[][] = [];
  let current: PutEventsEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = putEventsEntryBytes(entry);
    if (size > PUT_EVENTS_LIMITS.requestBytes)
      throw new DomainEventsNotPublishedError(
        `a ${entry.DetailType} entry is ${size} bytes, over PutEvents' ${PUT_EVENTS_LIMITS.requestBytes}-byte limit`,
      );
    if (current.length === PUT_EVENTS_LIMITS.entries || bytes + size > PUT_EVENTS_LIMITS.requestBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
