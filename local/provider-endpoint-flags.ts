/**
 * `npm run dev` flags that point the company calendar providers elsewhere (a proxy,
 * a national cloud, the simulators): `--google-api URL`, the one root under which
 * both `calendar/v3` and `admin/directory/v1` live (left out, each keeps Google's own
 * host), `--google-token-url URL`, `--microsoft-graph URL` (Graph with its version,
 * e.g. a national cloud's `https://graph.microsoft.us/v1.0`) and `--microsoft-login URL`
 * (the Entra authority host). Each is checked here, so a mistake is one line at start,
 * not a failed sync later.
 */
import { isLoopbackHost } from '../lambdas/core/archive/address-policy';
import { DEFAULT_PROVIDER_ENDPOINTS, type ProviderEndpoints } from '../lambdas/core/calendar/company/provider-contract';

export interface ProviderEndpointFlags {
  'google-api'?: string | undefined;
  'google-token-url'?: string | undefined;
  'microsoft-graph'?: string | undefined;
  'microsoft-login'?: string | undefined;
}

/** What each flag names, for its error line. */
const WHAT: Record<keyof ProviderEndpointFlags, string> = {
  'google-api': "the Google APIs' root (calendar/v3 and admin/directory/v1 below it)",
  'google-token-url': "Google's OAuth 2.0 token endpoint",
  'microsoft-graph': 'the Microsoft Graph base with its version (…/v1.0)',
  'microsoft-login': 'the Microsoft Entra login host',
};

/** A provider URL: http(s), https unless on this machine, no credentials, query or fragment. */
export function endpointUrlProblem(flag: keyof ProviderEndpointFlags, text: string): string | undefined {
  const takes = `--${flag} takes ${WHAT[flag]}`;
  if (!URL.canParse(text)) return `${takes} as a URL, not ${JSON.stringify(text)}`;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${takes} as an http(s) URL, not ${text}`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `--${flag} must be https (plain http only for a server on this machine): ${text}`;
  if (url.username !== '' || url.password !== '') return `--${flag} must not carry a user name or password`;
  if (url.search !== '' || url.hash !== '') return `--${flag} takes a base URL without ?query or #fragment: ${text}`;
  return undefined;
}

/** `base` with `path` below it, whatever trailing slash `base` has. */
const below = (base: string, path: string) => `${base.replace(/\/+$/, '')}/${path}`;
const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** The endpoints the flags name (defaults for the rest), or the first flag's problem. */
export function providerEndpointsFromFlags(
  flags: ProviderEndpointFlags,
): { endpoints: ProviderEndpoints } | { problem: string } {
  for (const flag of Object.keys(WHAT) as Array<keyof ProviderEndpointFlags>) {
    const text = flags[flag];
    if (text === undefined) continue;
    const problem = endpointUrlProblem(flag, text);
    if (problem !== undefined) return { problem };
  }
  const googleApi = flags['google-api'];
  return {
    endpoints: {
      googleCalendarApi:
        googleApi === undefined ? DEFAULT_PROVIDER_ENDPOINTS.googleCalendarApi : below(googleApi, 'calendar/v3'),
      googleDirectoryApi:
        googleApi === undefined
          ? DEFAULT_PROVIDER_ENDPOINTS.googleDirectoryApi
          : below(googleApi, 'admin/directory/v1'),
      googleTokenUrl: flags['google-token-url'] ?? DEFAULT_PROVIDER_ENDPOINTS.googleTokenUrl,
      microsoftGraph: withoutTrailingSlash(flags['microsoft-graph'] ?? DEFAULT_PROVIDER_ENDPOINTS.microsoftGraph),
      microsoftLogin: withoutTrailingSlash(flags['microsoft-login'] ?? DEFAULT_PROVIDER_ENDPOINTS.microsoftLogin),
    },
  };
}

/** Whether any of the flags was given. */
export const anyEndpointFlag = (flags: ProviderEndpointFlags): boolean =>
  Object.keys(WHAT).some((flag) => flags[flag as keyof ProviderEndpointFlags] !== undefined);
