/**
 * What every route answers, in one place, after a local pipeline run: a meeting scheduled and
 * played by the simulated service (which spells times as the service does: `…123456+00:00` in
 * webhooks, `…123456Z` in REST answers, epoch milliseconds for participant events) and a
 * calendar synced from a feed on 127.0.0.1.
 *
 * - Every time in the read, schedule and calendar answers and in the domain events is written
 *   `YYYY-MM-DDTHH:mm:ss.sssZ`, and participants joined during the run (not in 1970).
 * - Every error of every route, the local server's own included, has the one error shape
 *   (schemas/api/error.json, checked by Ajv, a validator of its own).
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarsHandler } from '../../lambdas/calendars/adapter';
import type { EraseDependencies } from '../../lambdas/core/erase/erase-dependencies';
import { SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { UTC_TIMESTAMP_PATTERN } from '../../lambdas/core/text/utc-timestamp';
import { createEraseApiHandler } from '../../lambdas/erase/adapter';
import { createReadApiHandler, readApiDependencies } from '../../lambdas/read-api/adapter';
import { createSchedulesHandler } from '../../lambdas/schedules/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { PROJECT_ROOT } from '../../lib/function';
import { readEventLog, scratchEventsFile } from '../../local/event-log-publisher';
import { MAX_REQUEST_BODY_BYTES } from '../../local/http-api-server';
import { type LocalStack, newSigningSecret, startLocalStack } from '../../local/local-stack';
import { type FeedServer, startFeedServer, testEvent, testFeed } from '../fixtures/calendar-harness';
import { httpApiEvent } from '../fixtures/webhooks';
import { functionEnvironment } from '../fixtures/world';

const errorSchema = JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', 'api', 'error.json'), 'utf8')) as object;
const validateError = new Ajv2020({ allErrors: true, strict: true }).compile(errorSchema);

let stack: LocalStack;
let feeds: FeedServer;
let botId: string;
let runStartedMs: number;
/** This run's domain events only (local mode's default file may hold other runs'). */
const eventsFile = scratchEventsFile();
const CALENDAR = 'shapes-cal';

beforeAll(async () => {
  runStartedMs = Date.now();
  feeds = await startFeedServer();
  stack = await startLocalStack({
    signingSecret: newSigningSecret(),
    eventsFile,
    chaos: { duplicate: 0.3, maxDelayMs: 0, drop: 0, droppable: new Set() },
    stepMs: 100,
    recordingBytes: 64 * 1024,
    reconcileEveryMs: 60_000,
    staleAfterMs: 600_000,
    seed: 24,
    print: () => undefined,
  });
  expect(await stack.scheduleMeeting('shapes', new Date(Date.now() + 1_500))).toMatchObject({ status: 201 });
  expect(await stack.waitUntilArchived(['shapes'], 60_000)).toBe(true);
  await stack.sender.drain();
  botId = [...stack.played.keys()][0] ?? '';

  // A meeting two days ahead, in a feed whose DTSTART is the ICS basic form.
  const start = new Date(Date.now() + 2 * 86_400_000).toISOString().replace(/[-:]|\.\d{3}/g, '');
  feeds.set('/team.ics', testFeed([testEvent('standup-1', start)]));
  const put = await call(
    'PUT',
    `/calendars/${CALENDAR}`,
    JSON.stringify({ ics_url: feeds.url('/team.ics'), rules: { join: 'all' } }),
  );
  expect(put.status, put.text).toBe(201);
  const sync = await call('POST', `/calendars/${CALENDAR}/sync`);
  expect(sync.status, sync.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await feeds?.stop();
  rmSync(dirname(eventsFile), { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  body?: string | Buffer,
): Promise<{ status: number; type: string; text: string; json: () => unknown }> {
  const response = await fetch(`${stack.readApiUrl}${path}`, {
    method,
    ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text,
    json: () => JSON.parse(text),
  };
}

/** Every `path: value` under a JSON value whose key names a time, and every string that is a whole ISO time. */
function timesIn(value: unknown, path = '$'): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((item, i) => timesIn(item, `${path}[${i}]`));
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(value) ? [[path, value]] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]): Array<[string, unknown]> => {
    const named = /(_at|At|time|^start|_start)$/.test(key) && typeof item !== 'object';
    const inner = timesIn(item, `${path}.${key}`);
    return named && typeof item !== 'string' ? [[`${path}.${key}`, item], ...inner] : inner;
  });
}

function expectOneTimeForm(what: string, body: unknown): number {
  const times = timesIn(body);
  for (const [path, value] of times) {
    if (value === null) continue;
    expect(value, `${what} ${path}`).toEqual(expect.stringMatching(UTC_TIMESTAMP_PATTERN));
  }
  return times.filter(([, value]) => value !== null).length;
}

describe('times: one form in every answer', () => {
  it('the read API: meetings list and show, participants, transcript, delivery log, recording link', async () => {
    let checked = 0;
    for (const path of [
      '/meetings',
      `/meetings?day=${new Date().toISOString().slice(0, 10)}`,
      `/meetings/${botId}`,
      `/meetings/${botId}/participants`,
      `/meetings/${botId}/transcript`,
      `/meetings/${botId}/events`,
      `/meetings/${botId}/recording`,
    ]) {
      const answer = await call('GET', path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      checked += expectOneTimeForm(path, answer.json());
    }
    // state_at, scheduled_join_at, archived_at (twice each), joined_at/left_at per person, received_at per delivery…
    expect(checked).toBeGreaterThan(20);
  });

  it('participants joined and left during the run: the service stamps them in epoch milliseconds', async () => {
    const answer = (await call('GET', `/meetings/${botId}/participants`)).json() as {
      participants: Array<{ joined_at: string; left_at: string }>;
    };
    expect(answer.participants.length).toBeGreaterThanOrEqual(2);
    for (const person of answer.participants) {
      for (const at of [person.joined_at, person.left_at]) {
        expect(Date.parse(at)).toBeGreaterThanOrEqual(runStartedMs);
        expect(Date.parse(at)).toBeLessThanOrEqual(Date.now());
      }
      expect(Date.parse(person.left_at)).toBeGreaterThan(Date.parse(person.joined_at));
    }
  });

  it('the schedule and calendar APIs: schedule, calendar, preview, the calendar schedules', async () => {
    let checked = 0;
    const listed = (await call('GET', `/schedules?calendar_id=${CALENDAR}`)).json() as {
      schedules: Array<{ id: string }>;
    };
    expect(listed.schedules).toHaveLength(1);
    for (const path of [
      '/schedules/shapes',
      `/schedules/${encodeURIComponent(listed.schedules[0]?.id ?? '')}`,
      `/calendars/${CALENDAR}`,
      `/calendars/${CALENDAR}/preview`,
      `/schedules?calendar_id=${CALENDAR}`,
    ]) {
      const answer = await call('GET', path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      checked += expectOneTimeForm(path, answer.json());
    }
    expect(checked).toBeGreaterThan(8);
  });

  it('the domain events of the run', () => {
    const entries = readEventLog(eventsFile);
    const types = new Set(entries.map((entry) => entry.DetailType));
    expect([...types]).toEqual(
      expect.arrayContaining(['meeting.state_changed', 'meeting.ended', 'summary.ready', 'meeting.archived']),
    );
    let checked = 0;
    for (const entry of entries) checked += expectOneTimeForm(entry.DetailType, JSON.parse(entry.Detail));
    // Every event but meeting.outcome carries a time of its own (that one has only its entry's Time, when it was put).
    const timed = entries.filter((entry) => entry.DetailType !== 'meeting.outcome');
    expect(checked).toBeGreaterThanOrEqual(timed.length);
  });
});

describe('errors: one shape on every route', () => {
  const big = Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 0x20);
  const requests: Array<[string, string, string | Buffer | undefined, number, string]> = [
    // The read API
    ['GET', '/meetings?limit=0', undefined, 400, 'invalid-limit'],
    ['GET', '/meetings?day=yesterday', undefined, 400, 'invalid-day'],
    ['GET', '/meetings?cursor=nonsense', undefined, 400, 'invalid-cursor'],
    ['GET', '/meetings/bot_never_seen', undefined, 404, 'not-found'],
    ['GET', '/meetings/bot_never_seen/participants', undefined, 404, 'not-found'],
    ['GET', '/meetings/bot_never_seen/transcript?format=pdf', undefined, 400, 'invalid-format'],
    ['GET', '/meetings/bot_never_seen/recording', undefined, 404, 'not-found'],
    ['GET', '/meetings/bot_never_seen/events', undefined, 404, 'not-found'],
    ['GET', '/events', undefined, 400, 'invalid-filter'],
    // The schedule API
    ['PUT', '/schedules/s1', '{not json', 400, 'invalid-json'],
    ['PUT', '/schedules/s1', '{}', 400, 'invalid-schedule'],
    ['PUT', '/schedules/has%20space', '{}', 400, 'invalid-schedule-id'],
    ['GET', '/schedules/never', undefined, 404, 'not-found'],
    ['DELETE', '/schedules/never', undefined, 404, 'not-found'],
    // The calendar API
    ['PUT', '/calendars/has%20space', '{}', 400, 'invalid-calendar-id'],
    ['PUT', '/calendars/c1', '{not json', 400, 'invalid-json'],
    ['PUT', '/calendars/c1', '{"ics_url":"ftp://x"}', 400, 'invalid-calendar'],
    ['GET', '/calendars/never', undefined, 404, 'not-found'],
    ['DELETE', '/calendars/never', undefined, 404, 'not-found'],
    ['POST', '/calendars/never/sync', undefined, 404, 'not-found'],
    ['GET', `/calendars/${CALENDAR}/preview?days=0`, undefined, 400, 'invalid-days'],
    ['GET', '/schedules', undefined, 400, 'missing-calendar-id'],
    // The webhook ingress
    ['POST', '/webhooks', '', 400, 'empty-body'],
    ['POST', '/webhooks', '{}', 401, 'missing-signature'],
    // The local server itself
    ['GET', '/nowhere', undefined, 404, 'no-route'],
    ['POST', '/meetings', '{}', 405, 'method-not-allowed'],
    ['PATCH', '/schedules/s1', '{}', 405, 'method-not-allowed'],
    ['GET', '/meetings/%E0%A4%A', undefined, 400, 'bad-path'],
    ['PUT', '/calendars/c1', big, 413, 'body-too-large'],
  ];

  it.each(requests)('%s %s', async (method, path, body, status, code) => {
    const answer = await call(method, path, body);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    const parsed = answer.json();
    expect(validateError(parsed), JSON.stringify(validateError.errors)).toBe(true);
    expect(parsed).toMatchObject({ error: { code } });
  });

  it('a validation error lists its issues', async () => {
    const answer = (await call('PUT', '/schedules/s1', '{}')).json() as { error: { issues?: string[] } };
    expect(answer.error.issues?.length).toBeGreaterThanOrEqual(2);
  });

  it('405 names the methods the path takes', async () => {
    const response = await fetch(`${stack.readApiUrl}/webhooks`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('a foreign Host (421) too', async () => {
    const { request } = await import('node:http');
    const url = new URL(stack.readApiUrl);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const sent = request({
        host: url.hostname,
        port: url.port,
        path: '/meetings',
        headers: { host: 'evil.example' },
      });
      sent.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      sent.on('error', reject).end();
    });
    expect(answer.status).toBe(421);
    expect(validateError(JSON.parse(answer.text))).toBe(true);
  });

  it('the handlers answer their own faults in the shape, so none reaches API Gateway as its bare 500', async () => {
    const read = createReadApiHandler(
      readApiDependencies(functionEnvironment(stack.resources, SERVICES.readApi, { TABLE_NAME: 'no-such-table' }), {
        db: documentClient(),
        s3: s3Client(),
      }),
      silentTelemetry,
    );
    const event = (routeKey: string, pathParameters?: Record<string, string>) => ({
      ...httpApiEvent(Buffer.alloc(0), {}),
      routeKey,
      ...(pathParameters && { pathParameters }),
    });
    // Nothing of its dependencies is reached before the path is checked.
    const erase = createEraseApiHandler({} as EraseDependencies);
    // The stores fail: a table that is not there, a calendar store that throws.
    const schedules = createSchedulesHandler({
      ...stack.calendars.schedules,
      table: { ...stack.calendars.schedules.table, tableName: 'no-such-table' },
      telemetry: silentTelemetry,
    });
    const calendars = createCalendarsHandler({
      ...stack.calendars,
      telemetry: silentTelemetry,
      store: {
        ...stack.calendars.store,
        getSource: () => Promise.reject(new Error('the store is down')),
      },
    });
    const scheduleEvent = (method: string) => {
      const base = event(`${method} /schedules/{id}`, { id: 's1' });
      return { ...base, requestContext: { ...base.requestContext, http: { ...base.requestContext.http, method } } };
    };
    const answers = [
      [await read(event('GET /meetings/{bot_id}', { bot_id: 'x' })), 500, 'internal-error'],
      [await read(event('GET /nowhere')), 404, 'no-route'],
      [await erase(event('DELETE /meetings/{bot_id}')), 400, 'missing-bot-id'],
      [await schedules(scheduleEvent('GET')), 500, 'internal-error'],
      [await calendars(event('GET /calendars/{id}', { id: 'c1' })), 500, 'internal-error'],
      [await calendars(event('PATCH /calendars/{id}', { id: 'c1' })), 404, 'no-route'],
    ] as const;
    for (const [answer, status, code] of answers) {
      expect(answer?.statusCode).toBe(status);
      const body = JSON.parse(String(answer?.body));
      expect(validateError(body), JSON.stringify(body)).toBe(true);
      expect(body).toMatchObject({ error: { code } });
    }
  });
});
