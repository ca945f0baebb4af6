/** The EventBridge adapter through the real SDK client: batches within the limits, refused entries sent again. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DomainEvent, domainEvents } from '../../lambdas/core/domain-events/catalogue';
import { DomainEventsNotPublishedError, toPutEventsEntry } from '../../lambdas/core/domain-events/publisher';
import { eventBridgePublisher } from '../../lambdas/shared/eventbridge-publisher';
import { type PutEventsEndpoint, startPutEventsEndpoint } from '../fixtures/put-events-endpoint';

let endpoint: PutEventsEndpoint;
beforeAll(async () => {
  endpoint = await startPutEventsEndpoint();
});
afterAll(async () => endpoint?.stop());
beforeEach(() => {
  endpoint.accepted.length = 0;
  endpoint.calls.length = 0;
});

// The reason is free text: the field that makes an entry large.
const failed = (i: number, reasonBytes = 20): DomainEvent =>
  domainEvents.scheduleFailed({
    schedule_id: `s${i}`,
    schedule_version: 1,
    reason: `BadRequestError: ${'x'.repeat(reasonBytes)}`,
  });

describe('EventBridge publisher', () => {
  it('sends every entry exactly as built, at most 10 and 256 KB a call', async () => {
    const publisher = eventBridgePublisher(endpoint.client, 'pipeline-bus', { attempts: 3, backoffMs: 1 });
    const small = Array.from({ length: 12 }, (_, i) => failed(i));
    const large = Array.from({ length: 3 }, (_, i) => failed(100 + i, 120 * 1024));
    await publisher.publish([...small, ...large]);
    // Ten small; two small and two large (240 KB); the third large alone.
    expect(endpoint.calls).toEqual([10, 4, 1]);
    expect(endpoint.accepted).toEqual([...small, ...large].map((e) => toPutEventsEntry(e, 'pipeline-bus')));
  });

  it('sends refused entries again (FailedEntryCount), and only those', async () => {
    const publisher = eventBridgePublisher(endpoint.client, 'pipeline-bus', { attempts: 3, backoffMs: 1 });
    endpoint.refuseNext(2, 'ThrottlingException');
    const events = Array.from({ length: 4 }, (_, i) => failed(i));
    await publisher.publish(events);
    expect(endpoint.calls).toEqual([4, 2]);
    expect(endpoint.accepted.map((e) => e.Detail).sort()).toEqual(events.map((e) => JSON.stringify(e.detail)).sort());
  });

  it('throws when entries are still refused after its attempts, so the work is retried', async () => {
    const publisher = eventBridgePublisher(endpoint.client, 'pipeline-bus', { attempts: 2, backoffMs: 1 });
    endpoint.refuseNext(3, 'InternalFailure');
    const failure = await publisher.publish([failed(1), failed(2)]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainEventsNotPublishedError);
    expect(String(failure)).toMatch(/1 of 2 events refused by PutEvents after 2 attempts \(InternalFailure\)/);
    expect(endpoint.calls).toEqual([2, 2]);
    endpoint.refuseNext(0);
  });

  it('throws the same error when the call itself fails', async () => {
    const unreachable = await startPutEventsEndpoint();
    await unreachable.stop();
    const publisher = eventBridgePublisher(unreachable.client, 'pipeline-bus', { attempts: 1, backoffMs: 1 });
    await expect(publisher.publish([failed(1)])).rejects.toBeInstanceOf(DomainEventsNotPublishedError);
  });
});
