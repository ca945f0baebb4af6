/**
 * The read API's lake routes in local mode, on the production path: the route core calls the
 * Athena engine, which talks to the local Athena emulator (the stack's workgroup settings:
 * results enforced under `lake-results/` of the stack's bucket, the bytes-scanned cutoff), which
 * runs the same SQL on DuckDB over a mirror of the local bucket's `lake/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AthenaClient, type WorkGroupConfiguration } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Telemetry } from '../../lambdas/core/telemetry';
import { createLakeSearchHandler, lakeSearchDependencies } from '../../lambdas/lake-search/adapter';
import type { LakeSearchEnvironment } from '../../lambdas/lake-search/environment';
import { startAthenaEmulator } from '../emulators/athena/index';
import type { HttpRouteHandler } from '../http-api-server';
import { createMirroredLakeEngine } from './mirrored-lake-engine';

export interface LocalLakeSearch {
  handler: HttpRouteHandler;
  /** The emulator's endpoint (for an AthenaClient of the CLI or a test). */
  athenaEndpoint: string;
  /** The folder the engine mirrors the bucket's `lake/` into (an erasure brings it back to the bucket). */
  mirrorDir: string;
  stop(): Promise<void>;
}

export async function startLocalLakeSearch(options: {
  s3: S3Client;
  /** The bucket whose `lake/` the engine reads. */
  bucket: string;
  region: string;
  telemetry: Telemetry;
  /** The search function's environment as the template gives it (its workgroup and database). */
  environment: LakeSearchEnvironment;
  /** The workgroup's configuration as the template creates it (results location, cutoff). */
  workGroup: WorkGroupConfiguration;
}): Promise<LocalLakeSearch> {
  const dir = mkdtempSync(join(tmpdir(), 'meeting-pipeline-lake-'));
  const engine = await createMirroredLakeEngine({ s3: options.s3, bucket: options.bucket, dir });
  const emulator = await startAthenaEmulator({
    engine,
    s3: options.s3,
    database: options.environment.LAKE_DATABASE,
    workGroups: { [options.environment.LAKE_WORKGROUP]: options.workGroup },
  });
  const athena = new AthenaClient({
    endpoint: emulator.endpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const handler = createLakeSearchHandler(lakeSearchDependencies(options.environment, { athena }, options.telemetry));
  return {
    handler,
    athenaEndpoint: emulator.endpoint,
    mirrorDir: dir,
    async stop() {
      athena.destroy();
      await emulator.close();
      engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
