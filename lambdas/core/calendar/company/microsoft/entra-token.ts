/**
 * The app's Graph token from Entra's client-credentials grant, with plain fetch
 * (MSAL for Node weighs 235 KiB and refuses an http authority, which local mode
 * needs): `POST {login}/{tenant}/oauth2/v2.0/token` asking for `<graph
 * resource>/.default`, proven by the client secret or a certificate assertion.
 * One token serves every user of the source, so it is cached until shortly before
 * it expires, and callers arriving together share one request.
 *
 * Entra's refusals (a wrong or expired secret, an unknown app or tenant, a
 * certificate it does not know, consent never granted) cut off the whole source:
 * AccessRevokedError('source') with the AADSTS code and Entra's own words.
 */
import * as z from 'zod/mini';
import { AccessRevokedError, ProviderUnavailableError, ThrottledError } from '../provider-contract';
import { CLIENT_ASSERTION_TYPE, clientAssertion } from './client-assertion';
import type { GraphClientCredential } from './graph-credentials';
import { type CallCount, exchange, retryAfterMs, shownReason } from './graph-http';

/** Renew this long before the token expires: a listing that starts with it must not outlive it. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** When Entra throttles without saying how long, ask again after this. */
const DEFAULT_THROTTLE_MS = 60_000;

const TokenAnswer = z.object({
  access_token: z.string().check(z.minLength(1), z.maxLength(64 * 1024)),
  token_type: z.string().check(z.regex(/^bearer$/i)),
  // Entra writes a number; a string of digits is read too.
  expires_in: z.coerce.number().check(z.int(), z.positive()),
});

const EntraError = z.object({
  error: z.optional(z.string().check(z.maxLength(200))),
  error_description: z.optional(z.string().check(z.maxLength(4_000))),
  error_codes: z.optional(z.array(z.number())),
});

export interface EntraTokenSettings {
  tenantId: string;
  clientId: string;
  credential: GraphClientCredential;
  /** The authority host, e.g. `https://login.microsoftonline.com`. */
  login: string;
  /** The Graph resource the token is for: the origin of the Graph endpoint. */
  resource: string;
  fetch: typeof fetch;
  now(): number;
}

/** Entra's description up to its trace and correlation ids: `AADSTS7000215: Invalid client secret provided…`. */
function entraWords(json: unknown, status: number, secret: string | undefined): string {
  const parsed = EntraError.safeParse(json);
  if (!parsed.success) return `HTTP ${status} without an OAuth error`;
  const description = parsed.data.error_description?.split(/\r?\n| Trace ID:/)[0];
  const code = parsed.data.error_codes?.[0];
  let words = description ?? `${code === undefined ? '' : `AADSTS${code}: `}${parsed.data.error ?? `HTTP ${status}`}`;
  // Entra never echoes a secret; this holds even if some answer did.
  if (secret !== undefined && secret.length >= 8) words = words.split(secret).join('[secret]');
  return shownReason(`${parsed.data.error ?? 'error'}: ${words}`);
}

export class EntraTokenSource {
  private cached: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;
  readonly tokenUrl: string;

  constructor(private readonly settings: EntraTokenSettings) {
    this.tokenUrl = `${settings.login.replace(/\/+$/, '')}/${encodeURIComponent(settings.tenantId)}/oauth2/v2.0/token`;
  }

  /** The cached token, or a new one (counted in `count`). */
  async token(count: CallCount): Promise<string> {
    if (this.cached !== undefined && this.settings.now() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.request(count).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Graph refused the token (401): the next call asks Entra again. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async form(): Promise<URLSearchParams> {
    const { clientId, credential, resource } = this.settings;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      scope: `${resource}/.default`,
    });
    if (credential.kind === 'secret') form.set('client_secret', credential.clientSecret);
    else {
      form.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
      form.set('client_assertion', await clientAssertion(credential, clientId, this.tokenUrl, this.settings.now()));
    }
    return form;
  }

  private async request(count: CallCount): Promise<string> {
    const answer = await exchange(
      this.settings.fetch,
      this.tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: (await this.form()).toString(),
      },
      count,
      "Entra's token endpoint",
    );
    if (answer.status === 200) {
      const parsed = TokenAnswer.safeParse(answer.json);
      if (!parsed.success)
        throw new ProviderUnavailableError("Entra's token endpoint answered 200 without a bearer token");
      const lifetimeMs = parsed.data.expires_in * 1000;
      const renewAt = this.settings.now() + Math.max(lifetimeMs - RENEW_BEFORE_MS, lifetimeMs / 2);
      this.cached = { token: parsed.data.access_token, renewAt };
      return parsed.data.access_token;
    }
    if (answer.status === 429)
      throw new ThrottledError(
        retryAfterMs(answer.headers) ?? DEFAULT_THROTTLE_MS,
        "Entra's token endpoint is throttling the app",
      );
    if (answer.status >= 500 || answer.status < 400)
      throw new ProviderUnavailableError(`Entra's token endpoint answered HTTP ${answer.status}`);
    const secret = this.settings.credential.kind === 'secret' ? this.settings.credential.clientSecret : undefined;
    throw new AccessRevokedError(
      'source',
      `Entra refused the app's token request: ${entraWords(answer.json, answer.status, secret)}`,
    );
  }
}
