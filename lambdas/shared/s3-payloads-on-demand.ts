import type { PayloadStore } from '../core/queue/payload-store';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS } from './aws-clients';
import { onDemandModuleUrl } from './on-demand';

/** Bundled as its own file (onDemandModules in lib/webhook-ingress.ts). */
export const S3_PAYLOAD_PUT_MODULE = 'lambdas/shared/s3-payload-put.ts';

type PutObject = typeof import('./s3-payload-put')['putObject'];

/**
 * A payload store in S3. The ingress needs S3 only for rare oversized bodies, so
 * the S3 client lives in a module loaded on first use: cold starts neither parse
 * nor initialise it.
 */
export function s3PayloadStore(bucket: string, timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS): PayloadStore {
  let putObject: Promise<PutObject> | undefined;
  return {
    bucket,
    async put(key, bytes, sha256) {
      putObject ??= import(onDemandModuleUrl('s3-payload-put', import.meta.url)).then(
        (module: { putObject: PutObject }) => module.putObject,
      );
      await (await putObject)({ bucket, key, bytes, sha256, contentType: 'application/json', timeouts });
    },
  };
}
