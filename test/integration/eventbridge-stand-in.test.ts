/**
 * The EventBridge stand-in (local/emulators/eventbridge.ts) with the real SDK client: entries to a
 * known bus (by name or ARN) kept, entries to an unknown bus refused one by one, PutEvents' limits.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventBridgeStandIn, startEventBridgeStandIn } from '../../local/emulators/eventbridge';

let standIn: EventBridgeStandIn;
let client: EventBridgeClient;

beforeAll(async () => {
  standIn = await startEventBridgeStandIn({ region: 'eu-west-1', account: '111111111111', buses: ['meetings'] });
  client = new EventBridgeClient({
    region: 'eu-west-1',
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(() => standIn.close());

const entry = (EventBusName: string, n: number) => ({
  EventBusName,
  Source: 'meeting-pipeline',
  DetailType: 'meeting.ended',
  Detail: JSON.stringify({ n }),
});

describe('the EventBridge stand-in', () => {
  it('keeps entries to a known bus by name or ARN and refuses those to an unknown bus, each on its own', async () => {
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          entry('meetings', 1),
          entry('meeting', 2),
          entry('arn:aws:events:eu-west-1:111111111111:event-bus/meetings', 3),
          entry('arn:aws:events:eu-west-1:222222222222:event-bus/meetings', 4),
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(2);
    expect(answer.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual([
      'ok',
      'ResourceNotFoundException',
      'ok',
      'ResourceNotFoundException',
    ]);
    expect(answer.Entries?.[1]?.ErrorMessage).toBe('Event bus meeting does not exist.');
    expect(standIn.accepted.map((e) => [e.bus, e.detail])).toEqual([
      ['meetings', { n: 1 }],
      ['meetings', { n: 3 }],
    ]);
    expect(standIn.accepted[0]).toMatchObject({ source: 'meeting-pipeline', detailType: 'meeting.ended' });
  });

  it('refuses a call over PutEvents’ limits whole', async () => {
    const before = standIn.accepted.length;
    const tooMany = Array.from({ length: 11 }, (_, n) => entry('meetings', n));
    await expect(client.send(new PutEventsCommand({ Entries: tooMany }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    const tooBig = [{ ...entry('meetings', 0), Detail: JSON.stringify({ text: 'x'.repeat(260 * 1024) }) }];
    await expect(client.send(new PutEventsCommand({ Entries: tooBig }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(standIn.accepted.length).toBe(before);
  });
});
