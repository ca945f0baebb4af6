import { headerSecret } from '../core/secrets';
import type { Telemetry } from '../core/telemetry';
import { UpstreamClient } from '../core/upstream/client';
import { secretsManagerSource } from './secrets-manager';
import type { UpstreamEnvironment } from './upstream-environment';

/** The service's REST client with the API key from Secrets Manager (cached for `secretCacheSeconds`). */
export function upstreamClient(env: UpstreamEnvironment, telemetry: Telemetry): UpstreamClient {
  const apiKey = headerSecret(
    secretsManagerSource(env.API_KEY_SECRET_ID, env.SECRET_CACHE_SECONDS),
    env.API_KEY_SECRET_ID,
  );
  return new UpstreamClient({ baseUrl: env.UPSTREAM_BASE_URL, apiKey: () => apiKey.read(), telemetry });
}
