/**
 * A small, strict, in-memory S3 with versioning, on 127.0.0.1: what the erasure tests need to show
 * that every version and delete marker of every object is gone, which fauxqs (one version per key)
 * cannot, and without moto (Python), which CI machines do not have. It speaks the S3 REST API
 * path-style, so the AWS SDK's S3Client (forcePathStyle, an endpoint) works against it unchanged.
 *
 * Implemented: buckets (create, head, delete, list, versioning), PutObject, GetObject, HeadObject,
 * DeleteObject, DeleteObjects, CopyObject, ListObjectsV2, ListObjectVersions and multipart uploads.
 * Anything else is 501 NotImplemented. See versioned-s3/ for each part.
 */
import { listenOnLoopback } from '../loopback-host';
import { handler } from './versioned-s3/server';
import { Store } from './versioned-s3/store';

export interface VersionedS3Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startVersionedS3Emulator(options: { port?: number } = {}): Promise<VersionedS3Emulator> {
  const listener = handler(new Store());
  const { server, port } = await listenOnLoopback((request, response) => {
    // The listener answers every S3 failure itself; what reaches here is a broken connection.
    listener(request, response).catch(() => response.destroy());
  }, options.port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        // Idle keep-alive connections would hold close() open until they time out.
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
