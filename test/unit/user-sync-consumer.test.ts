/**
 * The user-sync consumer's adapter (partial batch responses, one user at a time), its
 * core (a request finding the user's sync running sent back, delayed) and the provider
 * switch with its per-source cache. Core's syncCompanyUser and the Google
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
import {
  consumeUserSyncRequest,
  IN_PROGRESS_REQUEUE_DELAY_SECONDS,
  type UserSyncConsumerDependencies,
} from '../../lambdas/core/calendar/company/user-sync-consumer';
import type { LeaseToken } from '../../lambdas/core/store/item-lease';
import { METRICS, silentTelemetry } from '../../lambdas/core/telemetry';

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

describe('consumeUserSyncRequest', () => {
  const source = {
    kind: 'company',
    calendarId: 'acme',
    company: { provider: 'google', credentialsSecret: 'calendars/acme', users: ['ada@acme.example'] },
  };
  /** A company user whose lease is `leaseFree`, or backing off; every send and metric recorded. */
  function consumer(user: { leaseFree: boolean; backoffUntil?: string }) {
    const sent: Array<{ requests: readonly UserSyncRequest[]; delaySeconds: number | undefined }> = [];
    const metrics: string[] = [];
    const deps = {
      store: { getSource: async () => source },
      company: {
        getUser: async () => ({
          user: 'ada@acme.example',
          state: 'connected',
          eventsSeen: 0,
          fromGroup: false,
          ...(user.backoffUntil !== undefined && { backoffUntil: user.backoffUntil }),
        }),
        takeUserLease: async () => (user.leaseFree ? ('lease' as LeaseToken) : undefined),
      },
      queue: {
        send: async (requests: readonly UserSyncRequest[], options?: { delaySeconds?: number }) =>
          void sent.push({ requests, delaySeconds: options?.delaySeconds }),
      },
      telemetry: {
        ...silentTelemetry,
        metrics: { emit: (metric: { name: string }) => void metrics.push(metric.name) },
      },
      now: () => Date.parse('2026-03-10T08:00:00Z'),
    } as unknown as UserSyncConsumerDependencies;
    return { deps, sent, metrics };
  }

  it("sends a request that finds the user's sync running back to the queue, delayed, and counts it", async () => {
    const { deps, sent, metrics } = consumer({ leaseFree: false });
    const outcome = await consumeUserSyncRequest(request('ada@acme.example'), deps);
    expect(outcome).toMatchObject({ outcome: 'skipped', reason: 'in-progress' });
    expect(sent).toEqual([
      { requests: [request('ada@acme.example')], delaySeconds: IN_PROGRESS_REQUEUE_DELAY_SECONDS },
    ]);
    expect(metrics).toEqual([METRICS.calendarUserSyncRequeued.name]);
    await consumeUserSyncRequest(request('ada@acme.example'), deps, { requeueDelaySeconds: 1 });
    expect(sent[1]?.delaySeconds).toBe(1);
  });

  it('sends nothing back for a user backing off: the back-off, not a running sync, holds it', async () => {
    const { deps, sent, metrics } = consumer({ leaseFree: true, backoffUntil: '2026-03-10T09:00:00Z' });
    expect(await consumeUserSyncRequest(request('ada@acme.example'), deps)).toMatchObject({
      outcome: 'skipped',
      reason: 'backing-off',
    });
    expect(sent).toEqual([]);
    expect(metrics).toEqual([]);
  });
});
