/**
 * `npm run dev -- --google-api … --google-token-url … --microsoft-graph … --microsoft-login …`:
 * each URL is checked (one line naming the flag), and the endpoints the company sync is
 * given follow them: `--google-api` is the root of both Google APIs, the rest stay Google's
 * and Microsoft's own.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDER_ENDPOINTS } from '../../lambdas/core/calendar/company/provider-contract';
import { providerEndpointsFromFlags } from '../../local/provider-endpoint-flags';

describe('provider endpoint flags', () => {
  it('keep the providers own endpoints when none is given', () => {
    expect(providerEndpointsFromFlags({})).toEqual({ endpoints: DEFAULT_PROVIDER_ENDPOINTS });
  });

  it('put calendar/v3 and admin/directory/v1 under --google-api, and take the others as given', () => {
    expect(
      providerEndpointsFromFlags({
        'google-api': 'http://127.0.0.1:8123/',
        'google-token-url': 'http://127.0.0.1:8123/token',
        'microsoft-graph': 'https://graph.microsoft.us/v1.0/',
        'microsoft-login': 'https://login.microsoftonline.us',
      }),
    ).toEqual({
      endpoints: {
        googleCalendarApi: 'http://127.0.0.1:8123/calendar/v3',
        googleDirectoryApi: 'http://127.0.0.1:8123/admin/directory/v1',
        googleTokenUrl: 'http://127.0.0.1:8123/token',
        microsoftGraph: 'https://graph.microsoft.us/v1.0',
        microsoftLogin: 'https://login.microsoftonline.us',
      },
    });
  });

  it('changes only the endpoint a flag names', () => {
    const result = providerEndpointsFromFlags({ 'microsoft-login': 'https://login.chinacloudapi.cn' });
    expect(result).toEqual({
      endpoints: { ...DEFAULT_PROVIDER_ENDPOINTS, microsoftLogin: 'https://login.chinacloudapi.cn' },
    });
  });

  it.each([
    [{ 'google-api': 'googleapis' }, /^--google-api takes the Google APIs' root .* as a URL, not "googleapis"$/],
    [{ 'google-token-url': 'ftp://oauth2.example/token' }, /^--google-token-url takes .* as an http\(s\) URL/],
    [
      { 'microsoft-graph': 'http://graph.microsoft.com/v1.0' },
      /^--microsoft-graph must be https \(plain http only for a server on this machine\)/,
    ],
    [
      { 'microsoft-login': 'https://admin:pw@login.example' },
      /^--microsoft-login must not carry a user name or password$/,
    ],
    [{ 'google-api': 'https://proxy.example/?key=1' }, /^--google-api takes a base URL without \?query or #fragment/],
  ])('refuses %j in one line', (flags, message) => {
    const result = providerEndpointsFromFlags(flags);
    expect(result).toHaveProperty('problem');
    const { problem } = result as { problem: string };
    expect(problem).toMatch(message);
    expect(problem).not.toContain('\n');
  });

  it('takes plain http for a server on this machine only', () => {
    expect(providerEndpointsFromFlags({ 'microsoft-login': 'http://localhost:9000' })).toHaveProperty('endpoints');
    expect(providerEndpointsFromFlags({ 'microsoft-login': 'http://[::1]:9000' })).toHaveProperty('endpoints');
    expect(providerEndpointsFromFlags({ 'microsoft-login': 'http://10.0.0.5:9000' })).toHaveProperty('problem');
  });
});
