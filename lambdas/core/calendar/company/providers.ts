/**
 * From a company source to the provider that lists its users' calendars: its
 * credentials read from the secret it names, then the Google or Microsoft
 * implementation made with them. A provider caches its tokens, so one is kept per
 * source and credentials value: the users of a source share one Microsoft token,
 * and each Google user's delegated token is minted once an hour, not once a sync.
 */
import { createHash } from 'node:crypto';
import type { CompanyCalendarSource } from '../calendar-source';
import {
  AccessRevokedError,
  type CalendarProvider,
  type CompanySourceConfig,
  type ProviderOptions,
  ProviderUnavailableError,
} from './provider-contract';

type ConfigOf<P extends CompanySourceConfig['provider']> = Extract<CompanySourceConfig, { provider: P }>;

/** How each provider is made (google/ and microsoft/ export these). */
export interface ProviderFactories {
  google(config: ConfigOf<'google'>, credentials: string, options: ProviderOptions): CalendarProvider;
  microsoft(config: ConfigOf<'microsoft'>, credentials: string, options: ProviderOptions): CalendarProvider;
}

/** Reads a credentials secret's value by name (or ARN); cached by the reader itself. */
export type CredentialsReader = (secretName: string) => Promise<string>;

/**
 * Errors of the credentials reader that no retry cures: the secret is missing, ours to read no
 * more, or cannot be decrypted (Secrets Manager's names; local mode's CredentialsUnavailableError).
 */
const CREDENTIALS_GONE = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'DecryptionFailure',
  'InvalidRequestException',
  'CredentialsUnavailableError',
]);

/**
 * The secret's value, or the source disconnected with the secret's name and the error's name (never
 * a value): a missing secret is the operator's to fix, not a failure to retry for every user. Any
 * other failure (throttling, the network) is an outage: the users stay connected and are tried again.
 */
async function readCredentials(read: CredentialsReader, secretName: string): Promise<string> {
  try {
    return await read(secretName);
  } catch (error) {
    // Powertools wraps the SDK's error (GetParameterError); the SDK's name is what tells.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const name = cause instanceof Error ? cause.name : 'Error';
    if (CREDENTIALS_GONE.has(name))
      throw new AccessRevokedError('source', `the credentials secret ${secretName} cannot be read (${name})`);
    throw new ProviderUnavailableError(`the credentials secret ${secretName} could not be read now (${name})`);
  }
}

export function makeProvider(
  config: CompanySourceConfig,
  credentials: string,
  options: ProviderOptions,
  factories: ProviderFactories,
): CalendarProvider {
  switch (config.provider) {
    case 'google':
      return factories.google(config, credentials, options);
    case 'microsoft':
      return factories.microsoft(config, credentials, options);
  }
}

/** Providers kept in one function instance: a source each, far more than one instance meets. */
export const PROVIDER_CACHE_ENTRIES = 64;

export interface ProviderSourceOptions {
  credentials: CredentialsReader;
  factories: ProviderFactories;
  options: ProviderOptions;
}

/**
 * `providerFor(source)` as the per-user sync takes it. A new credentials value (the
 * secret rotated, read again after the reader's cache) or a changed source makes a
 * new provider; the cache key holds a digest, never the credentials.
 */
export function providerSource(
  deps: ProviderSourceOptions,
): (source: CompanyCalendarSource) => Promise<CalendarProvider> {
  const cache = new Map<string, CalendarProvider>();
  return async (source) => {
    const credentials = await readCredentials(deps.credentials, source.company.credentialsSecret);
    const key = createHash('sha256')
      .update(JSON.stringify([source.calendarId, source.company]))
      .update('\0')
      .update(credentials)
      .digest('base64url');
    const cached = cache.get(key);
    if (cached !== undefined) {
      // Most recently used last: the oldest is the one dropped.
      cache.delete(key);
      cache.set(key, cached);
      return cached;
    }
    const provider = makeProvider(source.company, credentials, deps.options, deps.factories);
    cache.set(key, provider);
    if (cache.size > PROVIDER_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    return provider;
  };
}
