/**
 * The user-sync consumer's adapter (partial batch responses, one user at a time) and
 * the provider switch with its per-source cache. Core's syncCompanyUser and the Google
 * and Microsoft providers are built beside this and stood in for here by recording fakes.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  createUserSyncHandler,
  MalformedUserSyncRequestError,
  parseUserSyncRequest,
} from '../../lambdas/calendars/user-sync-adapter';
import type { CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import type {
  CalendarProvider,
  CompanySourceConfig,
  ProviderOptions,
  UserSyncRequest,
} from '../../lambdas/core/calendar/company/provider-contract';
import {
  makeProvider,
  PROVIDER_CACHE_ENTRIES,
  type ProviderFactories,
  providerSource,
} from '../../lambdas/core/calendar/company/providers';
import { silentTelemetry } from '../../lambdas/core/telemetry';

const request = (user: string): UserSyncRequest => ({ calendar_id: 'acme', user, reason: 'push' });
const batch = (bodies: string[]): SQSEvent =>
  ({
    Records: bodies.map((body, i) => ({ messageId: `m${i}`, body, attributes: { ApproximateReceiveCount: '1' } })),
  }) as unknown as SQSEvent;

describe('user-sync consumer', () => {
  it('syncs each user one after the other and returns only the failed and malformed records', async () => {
    const started: string[] = [];
    let inFlight = 0;
    let most = 0;
    const handler = createUserSyncHandler(async (r) => {
      inFlight++;
      most = Math.max(most, inFlight);
      started.push(r.user);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      if (r.user === 'boom@acme.example') throw new Error('table unavailable');
      return { state: 'connected' };
    }, silentTelemetry);
    const answer = await handler(
      batch([
        JSON.stringify(request('ada@acme.example')),
        JSON.stringify(request('boom@acme.example')),
        'not json',
        JSON.stringify({ ...request('x@acme.example'), extra: 1 }),
        JSON.stringify(request('grace@acme.example')),
      ]),
    );
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1', 'm2', 'm3']);
    expect(started).toEqual(['ada@acme.example', 'boom@acme.example', 'grace@acme.example']);
    // One user in flight per instance: the event source's maximum concurrency is the bound on the providers.
    expect(most).toBe(1);
  });

  it('refuses a message that is not a user sync request, saying why', () => {
    expect(parseUserSyncRequest(JSON.stringify(request('ada@acme.example')))).toEqual(request('ada@acme.example'));
    for (const [body, reason] of [
      ['[]', /not a user sync request/],
      [JSON.stringify({ ...request('a@b.example'), reason: 'later' }), /reason/],
      [JSON.stringify({ ...request(''), calendar_id: 'acme' }), /user/],
      [JSON.stringify({ calendar_id: 'x'.repeat(257), user: 'a', reason: 'push' }), /calendar_id/],
      ['{', /not JSON/],
    ] as const) {
      expect(() => parseUserSyncRequest(body), body).toThrow(MalformedUserSyncRequestError);
      expect(() => parseUserSyncRequest(body), body).toThrow(reason);
    }
  });
});

type Made = { name: CalendarProvider['name']; config: CompanySourceConfig; credentials: string; id: number };

function recordingFactories(): { factories: ProviderFactories; made: Made[] } {
  const made: Made[] = [];
  const provider = (name: CalendarProvider['name'], config: CompanySourceConfig, credentials: string) => {
    made.push({ name, config, credentials, id: made.length });
    return {
      name,
      listChanges: async () => {
        throw new Error('not listed in this test');
      },
      resolveGroup: async () => [],
      accessToken: async () => `token-${made.length}`,
    } satisfies CalendarProvider;
  };
  return {
    made,
    factories: {
      google: (config, credentials) => provider('google', config, credentials),
      microsoft: (config, credentials) => provider('microsoft', config, credentials),
    },
  };
}

const options: ProviderOptions = {
  endpoints: {
    googleCalendarApi: 'https://g.example/calendar/v3',
    googleDirectoryApi: 'https://g.example/admin/directory/v1',
    googleTokenUrl: 'https://g.example/token',
    microsoftGraph: 'https://m.example/v1.0',
    microsoftLogin: 'https://login.m.example',
  },
  now: () => 0,
};

const google: CompanySourceConfig = {
  provider: 'google',
  credentialsSecret: 'meeting-pipeline/calendars/acme-google',
  users: ['ada@acme.example'],
};
const microsoft: CompanySourceConfig = {
  provider: 'microsoft',
  tenantId: 'tenant',
  clientId: 'client',
  credentialsSecret: 'meeting-pipeline/calendars/acme-entra',
  groupId: 'group',
};
const source = (calendarId: string, company: CompanySourceConfig): CompanyCalendarSource =>
  ({ calendarId, kind: 'company', company }) as unknown as CompanyCalendarSource;

describe('providers', () => {
  it('makes the provider the source names, with its credentials', () => {
    const { factories, made } = recordingFactories();
    expect(makeProvider(google, 'google-key', options, factories).name).toBe('google');
    expect(makeProvider(microsoft, 'entra-secret', options, factories).name).toBe('microsoft');
    expect(made.map((m) => [m.name, m.config, m.credentials])).toEqual([
      ['google', google, 'google-key'],
      ['microsoft', microsoft, 'entra-secret'],
    ]);
  });

  it('reads the secret the source names, and keeps one provider per source and credentials value', async () => {
    const { factories, made } = recordingFactories();
    const values = new Map([
      [google.credentialsSecret, 'key-1'],
      [microsoft.credentialsSecret, 'entra'],
    ]);
    const read: string[] = [];
    const providerFor = providerSource({
      credentials: async (name) => {
        read.push(name);
        return values.get(name) ?? '';
      },
      factories,
      options,
    });
    const first = await providerFor(source('acme', google));
    expect(await providerFor(source('acme', google))).toBe(first);
    expect((await providerFor(source('acme-ms', microsoft))).name).toBe('microsoft');
    expect(read).toEqual([google.credentialsSecret, google.credentialsSecret, microsoft.credentialsSecret]);
    // The secret rotated: a new provider (new tokens) with the new value.
    values.set(google.credentialsSecret, 'key-2');
    const rotated = await providerFor(source('acme', google));
    expect(rotated).not.toBe(first);
    // The source changed (another user list): a new provider too.
    expect(await providerFor(source('acme', { ...google, users: ['grace@acme.example'] }))).not.toBe(rotated);
    expect(made.map((m) => m.credentials)).toEqual(['key-1', 'entra', 'key-2', 'key-2']);
  });

  it(`keeps at most ${PROVIDER_CACHE_ENTRIES} providers, dropping the least recently used`, async () => {
    const { factories, made } = recordingFactories();
    const providerFor = providerSource({ credentials: async () => 'key', factories, options });
    const kept = await providerFor(source('c0', google));
    for (let i = 1; i <= PROVIDER_CACHE_ENTRIES; i++) {
      await providerFor(source(`c${i}`, google));
      // c0 stays in use, so c1 is the one dropped when the cache is full.
      expect(await providerFor(source('c0', google))).toBe(kept);
    }
    expect(made).toHaveLength(PROVIDER_CACHE_ENTRIES + 1);
    await providerFor(source('c1', google));
    expect(made).toHaveLength(PROVIDER_CACHE_ENTRIES + 2);
  });
});
