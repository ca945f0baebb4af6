/** Domain events to the stack's EventBridge bus, within PutEvents' limits. */
import { EventBridgeClient, PutEventsCommand, type PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import type { DomainEvent } from '../core/domain-events/catalogue';
import {
  type DomainEventPublisher,
  DomainEventsNotPublishedError,
  type PutEventsEntry,
  putEventsBatches,
  toPutEventsEntry,
} from '../core/domain-events/publisher';
import { DEFAULT_CLIENT_TIMEOUTS } from './aws-clients';

export interface PublishRetry {
  /** PutEvents calls per batch, the first included, while some of its entries are refused. */
  attempts: number;
  /** Wait before the second call; doubles after each. */
  backoffMs: number;
}

const DEFAULT_RETRY: PublishRetry = { attempts: 3, backoffMs: 100 };

export function eventBridgePublisher(
  client: EventBridgeClient,
  eventBusName: string,
  retry: PublishRetry = DEFAULT_RETRY,
): DomainEventPublisher {
  return {
    async publish(events: readonly DomainEvent[]) {
      const entries = events.map((event) => toPutEventsEntry(event, eventBusName));
      for (const batch of putEventsBatches(entries)) await putBatch(client, batch, retry);
    },
  };
}

/**
 * PutEvents answers 200 even when it refuses some entries (FailedEntryCount, an
 * ErrorCode per refused entry, in request order): only those are sent again.
 */
async function putBatch(client: EventBridgeClient, batch: PutEventsEntry[], retry: PublishRetry): Promise<void> {
  let pending = batch;
  let codes: string[] = [];
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, retry.backoffMs * 2 ** (attempt - 2)));
    let answer: PutEventsCommandOutput;
    try {
      answer = await client.send(new PutEventsCommand({ Entries: pending }));
    } catch (error) {
      // One name for every way publishing fails, which the launcher's state machine retries.
      throw new DomainEventsNotPublishedError(`PutEvents failed: ${(error as Error).message}`, { cause: error });
    }
    if ((answer.FailedEntryCount ?? 0) === 0) return;
    const results = answer.Entries ?? [];
    const refused = pending.flatMap((entry, i) => {
      const result = results[i];
      return result?.EventId !== undefined && result.ErrorCode === undefined
        ? []
        : [{ entry, code: result?.ErrorCode ?? 'no answer' }];
    });
    codes = refused.map(({ code }) => code);
    pending = refused.map(({ entry }) => entry);
  }
  throw new DomainEventsNotPublishedError(
    `${pending.length} of ${batch.length} events refused by PutEvents after ${retry.attempts} attempts (${[...new Set(codes)].join(', ')})`,
  );
}

export const eventBridgeClient = (): EventBridgeClient =>
  new EventBridgeClient({
    maxAttempts: DEFAULT_CLIENT_TIMEOUTS.maxAttempts,
    requestHandler: {
      connectionTimeout: DEFAULT_CLIENT_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: DEFAULT_CLIENT_TIMEOUTS.requestTimeoutMs,
    },
  });
