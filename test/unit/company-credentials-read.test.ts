/**
 * A company source whose credentials secret cannot be read: gone for good (missing, not ours,
 * undecryptable) disconnects the source with the secret's name; anything else is an outage, tried
 * again. Powertools wraps the SDK's error, so the cause's name is the one that tells.
 */
import { describe, expect, it } from 'vitest';
import type { CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import { calendarRulesSchema } from '../../lambdas/core/calendar/calendar-source';
import { CredentialsUnavailableError } from '../../lambdas/core/calendar/company/credentials';
import {
  AccessRevokedError,
  DEFAULT_PROVIDER_ENDPOINTS,
  ProviderUnavailableError,
} from '../../lambdas/core/calendar/company/provider-contract';
import { providerSource } from '../../lambdas/core/calendar/company/providers';

const source: CompanyCalendarSource = {
  kind: 'company',
  calendarId: 'acme',
  company: { provider: 'google', credentialsSecret: 'meeting-pipeline/calendars/acme', users: ['ada@acme.example'] },
  rules: calendarRulesSchema.parse({}),
  botName: 'Notetaker',
  lookaheadDays: 14,
  createdAt: '2026-11-24T00:00:00.000Z',
  updatedAt: '2026-11-24T00:00:00.000Z',
};

const named = (name: string) => Object.assign(new Error(`${name} happened`), { name });
const wrapped = (cause: Error) => Object.assign(new Error(cause.message, { cause }), { name: 'GetParameterError' });

function providerFor(failure: unknown) {
  return providerSource({
    credentials: async () => {
      throw failure;
    },
    factories: {
      google: () => {
        throw new Error('never made');
      },
      microsoft: () => {
        throw new Error('never made');
      },
    },
    options: { endpoints: DEFAULT_PROVIDER_ENDPOINTS, now: () => 0 },
  });
}

describe('reading a source credentials secret', () => {
  it.each([
    ['a missing secret (wrapped by Powertools)', wrapped(named('ResourceNotFoundException'))],
    ['a secret the role may not read', wrapped(named('AccessDeniedException'))],
    ['a secret that cannot be decrypted', wrapped(named('DecryptionFailure'))],
    ["local mode's unknown name", new CredentialsUnavailableError('meeting-pipeline/calendars/acme', 'no such secret')],
  ])('%s disconnects the whole source, naming the secret', async (_what, failure) => {
    const refused = await providerFor(failure)(source).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AccessRevokedError);
    expect(refused).toMatchObject({ scope: 'source' });
    expect((refused as Error).message).toContain('meeting-pipeline/calendars/acme');
  });

  it.each([
    ['throttling', wrapped(named('ThrottlingException'))],
    ['a network error', named('TimeoutError')],
  ])('%s is an outage: the users stay connected', async (_what, failure) => {
    await expect(providerFor(failure)(source)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });
});
