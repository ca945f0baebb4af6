/** The CLI's target resolver: which stack outputs it picks, what it signs, and how AWS refusals become exit codes. */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit-codes';
import { signRequest } from '../../cli/signed-fetch';
import { describeStackOutputs } from '../../cli/stack-outputs';
import { targetFromEndpoint, targetFromLocalEndpoints, targetFromStackOutputs } from '../../cli/target';

const API = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
const SQS = 'https://sqs.eu-west-1.amazonaws.com/111122223333';
const ARN = 'arn:aws:sqs:eu-west-1:111122223333';

/** A DescribeStacks answer as CloudFormation gives it. */
const OUTPUTS: Record<string, string> = {
  ApiUrl: API,
  ReadApiUrl: API,
  ScheduleApiUrl: `${API}/schedules/{id}`,
  EventsQueueUrl: `${SQS}/events`,
  ArchiveQueueUrl: `${SQS}/archive.fifo`,
  PayloadBucketName: 'payload-bucket',
  MeetingsTableName: 'meetings-table',
  EventsDeadLetterQueueUrl: `${SQS}/events-dlq`,
  EventsDeadLetterQueueArn: `${ARN}:events-dlq`,
  ArchiveDeadLetterQueueUrl: `${SQS}/archive-dlq.fifo`,
  ArchiveDeadLetterQueueArn: `${ARN}:archive-dlq.fifo`,
  CalendarEventsDeadLetterQueueUrl: `${SQS}/calendar-dlq`,
  CalendarEventsDeadLetterQueueArn: `${ARN}:calendar-dlq`,
  CalendarEventBusName: 'Prod-calendar-events',
  DashboardName: 'unrelated',
};

/** A CloudFormation client that answers (or fails) as told, and records what it was asked. */
function fakeCloudFormation(answer: () => unknown) {
  const asked: unknown[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      asked.push(command.input);
      return answer();
    },
  } as unknown as Pick<CloudFormationClient, 'send'>;
  return { client, asked };
}

function awsError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

const signing = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } };

describe('the deployed stack as a target', () => {
  it('reads the outputs of the named stack and picks the API, the schedule route and every DLQ', async () => {
    const { client, asked } = fakeCloudFormation(() => ({
      Stacks: [
        {
          StackName: 'Prod',
          Outputs: Object.entries(OUTPUTS).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    }));
    const outputs = await describeStackOutputs(client, 'Prod');
    expect(asked).toEqual([{ StackName: 'Prod' }]);
    const target = targetFromStackOutputs('Prod', outputs, signing);

    expect(target.apiBaseUrl).toBe(API);
    expect(target.scheduleUrl('team standup/1')).toBe(`${API}/schedules/team%20standup%2F1`);
    expect(target.label).toBe('stack Prod (eu-west-1)');
    expect(target.resources).toEqual({
      local: false,
      eventsQueueUrl: `${SQS}/events`,
      archiveQueueUrl: `${SQS}/archive.fifo`,
      payloadBucket: 'payload-bucket',
      tableName: 'meetings-table',
      deadLetterQueues: [
        { name: 'events', url: `${SQS}/events-dlq`, arn: `${ARN}:events-dlq`, sourceQueueUrl: `${SQS}/events` },
        {
          name: 'archive',
          url: `${SQS}/archive-dlq.fifo`,
          arn: `${ARN}:archive-dlq.fifo`,
          sourceQueueUrl: `${SQS}/archive.fifo`,
        },
        // Fed by EventBridge and Lambda, not by a queue: re-driven with PutEvents onto the calendar bus.
        {
          name: 'calendar',
          url: `${SQS}/calendar-dlq`,
          arn: `${ARN}:calendar-dlq`,
          eventBusName: 'Prod-calendar-events',
        },
      ],
    });
  });

  it('falls back to the schedule route for the base when a stack predates ApiUrl, and strips a trailing slash', () => {
    const older = targetFromStackOutputs('Old', { ScheduleApiUrl: `${API}/schedules/{id}` }, signing);
    expect(older.apiBaseUrl).toBe(API);
    expect(older.resources?.deadLetterQueues).toEqual([]);
    expect(targetFromStackOutputs('S', { ApiUrl: `${API}/` }, signing).scheduleUrl('a')).toBe(`${API}/schedules/a`);
    expect(() => targetFromStackOutputs('Bare', {}, signing)).toThrow(/no ApiUrl output/);
  });

  it('turns a missing stack into exit 3 and refused credentials into exit 4', async () => {
    const missing = fakeCloudFormation(() => {
      throw awsError('ValidationError', 'Stack with id Nope does not exist');
    });
    await expect(describeStackOutputs(missing.client, 'Nope')).rejects.toMatchObject({
      exitCode: EXIT.notFound,
      message: expect.stringContaining('No stack Nope'),
    });
    const denied = fakeCloudFormation(() => {
      throw awsError('AccessDenied', 'User is not authorized to perform: cloudformation:DescribeStacks');
    });
    await expect(describeStackOutputs(denied.client, 'Prod')).rejects.toMatchObject({ exitCode: EXIT.denied });
    const expired = fakeCloudFormation(() => {
      throw awsError('ExpiredToken', 'The security token included in the request is expired');
    });
    await expect(describeStackOutputs(expired.client, 'Prod')).rejects.toMatchObject({ exitCode: EXIT.denied });
  });
});

describe('SigV4 signing for execute-api', () => {
  it('signs with the execute-api scope, the region and the host, and carries the session token', async () => {
    const headers = await signRequest(
      { url: `${API}/meetings?limit=5&state=ended`, method: 'GET', headers: {} },
      {
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' },
        now: () => new Date('2026-11-23T15:00:00Z'),
      },
    );
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261123\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-date']).toBe('20261123T150000Z');
    expect(headers['x-amz-security-token']).toBe('session');
    expect(headers.host).toBe('abc123.execute-api.eu-west-1.amazonaws.com');
  });

  it('signs a body with its content type, and a different query differently', async () => {
    const sign = (url: string) =>
      signRequest(
        { url, method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
        { ...signing, now: () => new Date('2026-11-23T15:00:00Z') },
      );
    const one = await sign(`${API}/schedules/x?a=1`);
    expect(one.authorization).toContain('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,');
    expect((await sign(`${API}/schedules/x?a=2`)).authorization).not.toBe(one.authorization);
  });
});

describe('local targets', () => {
  it('sends to a loopback endpoint unsigned, without asking for credentials', async () => {
    const target = targetFromEndpoint('http://127.0.0.1:4718/', async () => {
      throw new Error('no credentials should be needed on loopback');
    });
    expect(target.apiBaseUrl).toBe('http://127.0.0.1:4718');
    expect(target.scheduleUrl('s1')).toBe('http://127.0.0.1:4718/schedules/s1');
    expect(target.resources).toBeUndefined();
    await expect(target.fetch('http://127.0.0.1:1/')).rejects.toThrow(/fetch failed/);
  });

  it('takes the API, queues and buckets from the endpoints file npm run dev writes', () => {
    const target = targetFromLocalEndpoints('.local/endpoints.json', {
      scheduleApiUrl: 'http://127.0.0.1:5000/schedules',
      dynamodb: { endpoint: 'http://127.0.0.1:5001', tableName: 'dev-meetings' },
      s3: { endpoint: 'http://127.0.0.1:5002', payloadBucket: 'dev-payloads' },
      sqs: {
        endpoint: 'http://127.0.0.1:5002',
        eventsQueueUrl: 'http://127.0.0.1:5002/000000000000/dev-events',
        eventsDeadLetterQueueUrl: 'http://127.0.0.1:5002/000000000000/dev-events-dlq',
        archiveQueueUrl: 'http://127.0.0.1:5002/000000000000/dev-archive.fifo',
      },
    });
    expect(target.apiBaseUrl).toBe('http://127.0.0.1:5000');
    expect(target.scheduleUrl('s 1')).toBe('http://127.0.0.1:5000/schedules/s%201');
    expect(target.resources?.deadLetterQueues.map((q) => [q.name, q.sourceQueueUrl])).toEqual([
      ['events', 'http://127.0.0.1:5002/000000000000/dev-events'],
    ]);
  });
});

describe('an answer in a shape the CLI does not know', () => {
  it('is one line naming the fields, not a zod dump', async () => {
    const { requestJson } = await import('../../cli/api');
    const { z } = await import('zod');
    const target = targetFromEndpoint('http://127.0.0.1:9', async () =>
      Promise.reject(new Error('loopback: unsigned')),
    );
    const olderStack = { ...target, fetch: async () => new Response(JSON.stringify({ state_at: 1, bot_id: 2 })) };
    const failure = await requestJson(
      olderStack,
      `${target.apiBaseUrl}/meetings/bot_1`,
      z.object({ bot_id: z.string(), state_at: z.string() }),
    ).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const { message } = failure as Error;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/bot_id: .*; state_at: /);
  });
});
