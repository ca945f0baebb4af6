/**
 * What every function that calls the service's REST API needs: its address, the
 * API key secret (read access granted here too) and how long the key is cached.
 */
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { UpstreamEnvironment } from '../lambdas/shared/upstream-environment';

export interface UpstreamSettings {
  upstreamBaseUrl: string;
  apiKeySecret: ISecret;
  secretCacheSeconds: number;
}

/** The environment values lambdas/shared/upstream-environment.ts checks. */
export function upstreamEnvironment(settings: UpstreamSettings): { [K in keyof UpstreamEnvironment]: string } {
  return {
    UPSTREAM_BASE_URL: settings.upstreamBaseUrl,
    API_KEY_SECRET_ID: settings.apiKeySecret.secretName,
    SECRET_CACHE_SECONDS: String(settings.secretCacheSeconds),
  };
}

/** Lets a function read the API key. */
export function grantApiKey(fn: IFunction, settings: UpstreamSettings): void {
  settings.apiKeySecret.grantRead(fn);
}
