import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, launchJitterMs } from '../../lambdas/core/schedule/schedule-request';
import { getSchedule } from '../../lambdas/core/schedule/schedules';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { CalendarEventConflictError, createSchedulesHandler } from '../../lambdas/schedules/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { LocalExecutions, launcherDefinition } from '../../local/step-functions';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { sharedTemplate } from '../infra/synth';

let pipeline: LocalPipeline;
let resources: LocalResources;
let handler: ReturnType<typeof createSchedulesHandler>;
let executions: LocalExecutions;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  executions = new LocalExecutions(launcherDefinition(sharedTemplate().toJSON()), {
    task: async () => ({ status: 'skipped' }),
    waitMs: () => 60_000,
  });
  handler = createSchedulesHandler({
    table: { db: documentClient(), tableName: resources.tableName },
    executions,
    // Never called here: these schedules are not launched.
    upstream: new UpstreamClient({ baseUrl: 'http://127.0.0.1:9/api/v1/', apiKey: async () => 'unused' }),
    timing: DEFAULT_TIMING,
    telemetry: silentTelemetry,
    now: () => Date.parse('2026-11-22T09:00:00Z'),
  });
});
afterAll(async () => pipeline?.stop());

function request(method: string, id: string, body?: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} /schedules/{id}`,
    rawPath: `/schedules/${id}`,
    rawQueryString: '',
    headers: {},
    pathParameters: { id },
    requestContext: {
      accountId: '1',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: `/schedules/${id}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: randomUUID(),
      routeKey: `${method} /schedules/{id}`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    isBase64Encoded: false,
  };
}

function calendarEvent(detailType: string, detail: unknown): EventBridgeEvent<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': detailType,
    source: 'meeting-pipeline.calendar',
    account: '1',
    time: '',
    region: 'eu-west-1',
    resources: [],
    detail,
  };
}

const body = { meeting_url: 'https://meet.google.com/abc-defg-hij', join_at: '2026-11-22T10:00:00Z' };

describe('schedules handler', () => {
  it('serves PUT, GET and DELETE /schedules/{id} with JSON answers', async () => {
    const put = await handler(request('PUT', 'cal-api', body));
    expect(put).toMatchObject({ statusCode: 201 });
    expect(JSON.parse(String(put?.body))).toMatchObject({
      schedule_id: 'cal-api',
      version: 1,
      status: 'scheduled',
      // 15 minutes ahead, and this schedule's own jitter of up to 5 more.
      launch_at: new Date(
        Date.parse('2026-11-22T09:45:00Z') - launchJitterMs('cal-api', DEFAULT_TIMING.jitterMs),
      ).toISOString(),
      bot_id: null,
    });
    expect(JSON.parse(String((await handler(request('GET', 'cal-api')))?.body))).toMatchObject({ status: 'scheduled' });
    expect(JSON.parse(String((await handler(request('DELETE', 'cal-api')))?.body))).toMatchObject({
      status: 'cancelled',
    });
    expect(await handler(request('GET', 'cal-none'))).toMatchObject({ statusCode: 404 });
    expect(JSON.parse(String((await handler(request('PUT', 'cal-api', '{not json')))?.body))).toEqual({
      error: { code: 'invalid-json', message: 'The body is not JSON.' },
    });
  });

  it('takes calendar events: upsert, then cancel', async () => {
    await handler(calendarEvent('Calendar Event Upserted', { schedule_id: 'cal-eb', ...body, bot_name: 'Scribe' }));
    expect(
      await getSchedule('cal-eb', { table: { db: documentClient(), tableName: resources.tableName } }),
    ).toMatchObject({ status: 'scheduled', botName: 'Scribe' });
    await handler(calendarEvent('Calendar Event Cancelled', { schedule_id: 'cal-eb' }));
    expect(
      await getSchedule('cal-eb', { table: { db: documentClient(), tableName: resources.tableName } }),
    ).toMatchObject({ status: 'cancelled' });
  });

  it('logs and drops a calendar event it can never apply, without throwing (no retry loop)', async () => {
    await expect(
      handler(calendarEvent('Calendar Event Upserted', { schedule_id: 'cal-eb-bad', meeting_url: 'ftp://x' })),
    ).resolves.toBeUndefined();
    await expect(
      handler(calendarEvent('Calendar Event Upserted', { meeting_url: 'https://x' })),
    ).resolves.toBeUndefined();
    expect(
      await getSchedule('cal-eb-bad', { table: { db: documentClient(), tableName: resources.tableName } }),
    ).toBeUndefined();
  });

  it('fails a calendar event that lost to other writers on every attempt, so Lambda retries it and then dead-letters it', async () => {
    const db = documentClient();
    const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
    const contested = Object.create(db) as typeof db;
    // Every write of this schedule loses its condition, as when other writers keep changing it.
    (contested as { send: unknown }).send = async (command: {
      constructor: { name: string };
      input: { Item?: Record<string, unknown> };
    }) => {
      if (command.constructor.name === 'PutCommand' && command.input.Item?.sk === keys.schedule('cal-contested').sk)
        throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
      return send(command);
    };
    const contestedHandler = createSchedulesHandler({
      table: { db: contested, tableName: resources.tableName },
      executions,
      upstream: new UpstreamClient({ baseUrl: 'http://127.0.0.1:9/api/v1/', apiKey: async () => 'unused' }),
      timing: DEFAULT_TIMING,
      telemetry: silentTelemetry,
      now: () => Date.parse('2026-11-22T09:00:00Z'),
    });
    const event = calendarEvent('Calendar Event Upserted', { schedule_id: 'cal-contested', ...body });
    await expect(contestedHandler(event)).rejects.toBeInstanceOf(CalendarEventConflictError);
    // Lambda's retry of the same event, the writers gone, applies it at once: the failed delivery let it go.
    await handler(event);
    expect(
      await getSchedule('cal-contested', { table: { db: documentClient(), tableName: resources.tableName } }),
    ).toMatchObject({ status: 'scheduled' });
  });
});
