/**
 * Access tokens from Google's OAuth 2.0 token endpoint by the JWT bearer grant of
 * a service account with domain-wide delegation: an RS256 JWT signed with the
 * account's key (jose), `sub` the Workspace user acted for, posted form-encoded.
 * Tokens are cached per user and scope until a few minutes before they expire, and
 * concurrent asks for the same one share one request.
 *
 * What Google's refusals mean here (the reference's list of token errors for
 * service accounts, https://developers.google.com/identity/protocols/oauth2/service-account):
 * - `unauthorized_client` (401): the administrator has not granted this client
 *   domain-wide delegation, or not for this scope; true of every user → 'source'.
 * - `access_denied`: the grant was refused for the account → 'source'.
 * - `invalid_grant` is two things. With "Invalid email or User ID" (or another
 *   description about the user) Google has no such active user to delegate to:
 *   an address outside the tenant, deleted or suspended; the other users sync on
 *   → 'user'. Every other `invalid_grant` (bad signature, a deleted key, a
 *   disabled account, the JWT's times) is about the account and its key → 'source'.
 * - any other 4xx is a grant Google will not honour as sent → 'source';
 *   429 → throttled; 5xx or no answer → unavailable, tried again next sync.
 */
import { importPKCS8, SignJWT } from 'jose';
import { AccessRevokedError, ProviderUnavailableError } from '../provider-contract';
import { exchange, quoted, record } from './google-http';
import type { ThrottleLog } from './google-throttle';
import type { ServiceAccountKey } from './service-account-key';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const CALENDAR_READONLY_SCOPE = 'https://www.googleapis.com/auth/calendar.readonly';
export const DIRECTORY_MEMBERS_SCOPE = 'https://www.googleapis.com/auth/admin.directory.group.member.readonly';
/** Google accepts assertions living up to an hour; a short one is enough for one exchange. */
const ASSERTION_SECONDS = 600;
type SigningKey = Awaited<ReturnType<typeof importPKCS8>>;
/** A cached token is renewed this long before its end, so no request carries one about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** Tokens kept at most (one per user of the largest source, times two scopes): old ones go first. */
const MAX_CACHED_TOKENS = 10_000;
/** A token answer is a few hundred bytes. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/** An invalid_grant about the user rather than the account ("Invalid email or User ID" and kin). */
const ABOUT_THE_USER =
  /\b(email|user\s*id|user)\b.*\b(invalid|not found|suspended|deleted|disabled)\b|\b(invalid|not a valid) (email|user)/i;

interface CachedToken {
  token: string;
  renewAtMs: number;
}

export interface TokenRequestOptions {
  tokenUrl: string;
  now(): number;
  fetch: typeof fetch;
  throttle: ThrottleLog;
}

export class GoogleTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<string>>();
  private signingKey: Promise<SigningKey> | undefined;

  constructor(
    private readonly key: ServiceAccountKey,
    private readonly options: TokenRequestOptions,
  ) {}

  /** A token for `user` with `scope`, from the cache while it lasts. */
  async token(user: string, scope: string, onRequest: () => void): Promise<string> {
    const name = `${scope} ${user}`;
    const cached = this.cache.get(name);
    if (cached !== undefined && cached.renewAtMs > this.options.now()) return cached.token;
    let asked = this.pending.get(name);
    if (asked === undefined) {
      onRequest();
      asked = this.request(user, scope).finally(() => this.pending.delete(name));
      this.pending.set(name, asked);
    }
    return asked;
  }

  /** Forgets `user`'s token for `scope`: Google refused it before its time. */
  forget(user: string, scope: string): void {
    this.cache.delete(`${scope} ${user}`);
  }

  private async request(user: string, scope: string): Promise<string> {
    const assertion = await this.assertion(user, scope);
    const sentAt = this.options.now();
    const answer = await exchange(
      this.options.fetch,
      this.options.tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
      },
      MAX_TOKEN_ANSWER_BYTES,
    );
    const body = record(answer.body);
    if (answer.status === 200 && typeof body?.access_token === 'string' && body.access_token.length > 0) {
      const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : 3599) * 1000;
      this.remember(`${scope} ${user}`, { token: body.access_token, renewAtMs: sentAt + lifetimeMs - RENEW_BEFORE_MS });
      return body.access_token;
    }
    const error = typeof body?.error === 'string' ? body.error : undefined;
    const description = typeof body?.error_description === 'string' ? body.error_description : '';
    const words = `${error ?? answer.status}${description === '' ? '' : ` (${quoted(description)})`}`;
    if (answer.status === 429) throw this.options.throttle.throttled(user, answer.headers, this.options.now(), words);
    if (answer.status >= 500 || answer.status < 400 || error === undefined) {
      throw new ProviderUnavailableError(`Google's token endpoint answered ${answer.status} for ${user}`);
    }
    if (error === 'invalid_grant' && ABOUT_THE_USER.test(quoted(description))) {
      throw new AccessRevokedError('user', `Google will not delegate to ${user}: ${words}`);
    }
    throw new AccessRevokedError('source', `Google refused the service account's grant: ${words}`);
  }

  private async assertion(user: string, scope: string): Promise<string> {
    let key: SigningKey;
    try {
      this.signingKey ??= importPKCS8(this.key.privateKey, 'RS256');
      key = await this.signingKey;
    } catch {
      throw new AccessRevokedError(
        'source',
        'the credentials secret is not a Google service-account key JSON: private_key is not a PKCS#8 RSA key',
      );
    }
    const nowSeconds = Math.floor(this.options.now() / 1000);
    return new SignJWT({ scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(this.key.keyId !== undefined && { kid: this.key.keyId }) })
      .setIssuer(this.key.clientEmail)
      .setSubject(user)
      .setAudience(this.options.tokenUrl)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + ASSERTION_SECONDS)
      .sign(key);
  }

  private remember(name: string, token: CachedToken): void {
    this.cache.delete(name);
    if (this.cache.size >= MAX_CACHED_TOKENS) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(name, token);
  }
}
