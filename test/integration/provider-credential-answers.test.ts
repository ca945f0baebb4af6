/**
 * Every provider call that carries a credential, against local servers that answer badly:
 * - a 307/308 to another local origin (which records what reaches it): the signed assertion, the
 *   bearer token and the channel secret must never arrive there, and the call fails naming the redirect;
 * - an endless body: the push-channel calls read up to PROVIDER_LIMITS.responseBytes and stop.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleProvider } from '../../lambdas/core/calendar/company/google/google-provider';
import {
  DEFAULT_PROVIDER_ENDPOINTS,
  PROVIDER_LIMITS,
  type ProviderEndpoints,
  ProviderUnavailableError,
} from '../../lambdas/core/calendar/company/provider-contract';
import {
  type ChannelApi,
  googleChannelApi,
  graphSubscriptionApi,
} from '../../lambdas/core/calendar/company/push/channel-api';
import { DEFAULT_PUSH_TIMING } from '../../lambdas/core/calendar/company/push/push-settings';
import type { PushChannelRecord } from '../../lambdas/core/calendar/company/push/push-store';

const USER = 'ada@acme.example';
const SECRET = 'channel-secret-that-must-stay-home';
const BEARER = 'bearer-token-that-must-stay-home';
const RECORD: PushChannelRecord = {
  calendarId: 'cal-1',
  user: USER,
  provider: 'google',
  secretId: 's-1',
  channelId: 'c-1',
  resourceId: 'r-1',
  expiresAtMs: Date.parse('2026-03-11T00:00:00Z'),
  createdAt: Date.parse('2026-03-10T00:00:00Z'),
};

/** What reached the origin the redirects point at. */
const arrived: Array<{ method: string; url: string; bytes: number }> = [];
let redirectStatus = 307;
let servers: Server[] = [];
let elsewhere = '';
let redirecting = '';
let tokens = '';
let endless = '';

async function listen(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (response: ServerResponse, body: unknown) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  elsewhere = await listen((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
    });
    request.on('end', () => {
      arrived.push({ method: request.method ?? '', url: request.url ?? '', bytes });
      // An answer the caller would take as success, had it followed.
      json(response, { access_token: 'x', expires_in: 3600, items: [], members: [], id: 'sub-1' });
    });
  });
  redirecting = await listen((request, response) => {
    request.resume();
    response.writeHead(redirectStatus, { location: `${elsewhere}${request.url}` }).end();
  });
  tokens = await listen((request, response) => {
    request.resume();
    json(response, { access_token: BEARER, expires_in: 3600, token_type: 'Bearer' });
  });
  endless = await listen((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    // Three times the limit, unless the caller hangs up first.
    let left = (3 * PROVIDER_LIMITS.responseBytes) / chunk.byteLength;
    const write = () => {
      while (left > 0) {
        left -= 1;
        if (!response.write(chunk)) return void response.once('drain', write);
      }
      response.end();
    };
    response.on('close', () => {
      left = 0;
    });
    write();
  });
});

afterAll(async () => {
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections())),
  );
  servers = [];
});

const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
const keyJson = JSON.stringify({
  type: 'service_account',
  private_key: key.toString(),
  client_email: 'pipeline@acme-project.iam.gserviceaccount.com',
  client_id: '104200000000000000001',
});

function google(endpoints: Partial<ProviderEndpoints>) {
  return createGoogleProvider(
    { provider: 'google', credentialsSecret: 'google/acme', group: 'eng@acme.example', adminEmail: USER },
    keyJson,
    { endpoints: { ...DEFAULT_PROVIDER_ENDPOINTS, ...endpoints }, now: () => Date.now() },
  );
}

const channelOptions = (base: string, fetchImpl?: typeof fetch) => ({
  endpoints: { ...DEFAULT_PROVIDER_ENDPOINTS, googleCalendarApi: base, microsoftGraph: base },
  settings: { ...DEFAULT_PUSH_TIMING, publicBaseUrl: 'https://push.example' },
  now: () => Date.now(),
  ...(fetchImpl !== undefined && { fetch: fetchImpl }),
});

/** Every call carrying a credential, made against `base` (the token endpoint working where it must). */
const calls = (base: string, fetchImpl?: typeof fetch): Record<string, () => Promise<unknown>> => {
  const watch: ChannelApi = googleChannelApi(channelOptions(base, fetchImpl));
  const subscriptions: ChannelApi = graphSubscriptionApi(channelOptions(base, fetchImpl));
  const graphRecord = { ...RECORD, provider: 'microsoft' as const };
  return {
    'Google token POST (the signed assertion)': () => google({ googleTokenUrl: `${base}/token` }).accessToken(USER),
    'Google events list (the bearer token)': () =>
      google({ googleTokenUrl: `${tokens}/token`, googleCalendarApi: `${base}/calendar/v3` }).listChanges(
        USER,
        undefined,
        { from: '2026-03-10T00:00:00Z', to: '2026-04-10T00:00:00Z' },
      ),
    'Google directory (the bearer token)': () =>
      google({
        googleTokenUrl: `${tokens}/token`,
        googleDirectoryApi: `${base}/admin/directory/v1`,
      }).resolveGroup('eng@acme.example'),
    'Google events.watch (the channel secret)': () => watch.open(USER, SECRET, BEARER),
    'Google channels.stop': () => watch.close(RECORD, BEARER),
    'Graph subscription create (the clientState)': () => subscriptions.open(USER, SECRET, BEARER),
    'Graph subscription renew': () => subscriptions.renew(graphRecord, BEARER),
    'Graph subscription delete': () => subscriptions.close(graphRecord, BEARER),
  };
};

/** What the call threw (undefined: it did not). */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

const CALL_NAMES = Object.keys(calls('http://127.0.0.1:9'));
const CHANNEL_CALL_NAMES = CALL_NAMES.filter((name) => /watch|stop|Graph/.test(name));

describe('a provider answering with a redirect to another origin', () => {
  for (const status of [307, 308])
    for (const name of CALL_NAMES)
      it(`${status}, ${name}: nothing is sent on; the call fails naming the redirect`, async () => {
        redirectStatus = status;
        arrived.length = 0;
        const error = await failure(calls(redirecting)[name] as () => Promise<unknown>);
        expect(arrived).toEqual([]);
        expect(error).toEqual(expect.any(ProviderUnavailableError));
        expect((error as Error).message).toContain(`HTTP ${status} (a redirect)`);
      });
});

describe('a push-channel call answered with an endless body', () => {
  let bytesRead = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytesRead += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, headers: response.headers });
  };

  it('covers the five channel calls', () => expect(CHANNEL_CALL_NAMES).toHaveLength(5));
  for (const name of CHANNEL_CALL_NAMES)
    it(`${name}: reads up to the response limit, then stops with a clear error`, async () => {
      bytesRead = 0;
      const error = await failure(calls(endless, counting)[name] as () => Promise<unknown>);
      // The limit and at most one chunk in flight past it; never the three times the limit sent.
      expect(bytesRead).toBeGreaterThan(PROVIDER_LIMITS.responseBytes);
      expect(bytesRead).toBeLessThanOrEqual(PROVIDER_LIMITS.responseBytes + 1024 * 1024);
      expect(error).toEqual(expect.any(ProviderUnavailableError));
      expect((error as Error).message).toContain(`more than the ${PROVIDER_LIMITS.responseBytes}-byte limit`);
    });
});
