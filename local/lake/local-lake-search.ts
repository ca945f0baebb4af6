/**
 * The read API's lake routes in local mode, on the production path: the route core calls the
 * Athena engine, which talks to the local Athena emulator (the stack's workgroup settings:
 * results enforced under `lake-results/` of the stack's bucket, the bytes-scanned cutoff), which
 * runs the same SQL on DuckDB over a mirror of the local bucket's `lake/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AthenaClient } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_LAKE_SETTINGS } from '../../lambdas/core/lake/lake-contract';
import { LAKE_RESULTS_PREFIX } from '../../lambdas/core/lake/lake-layout';
import { DEFAULT_LAKE_ROUTE_WAIT_MS } from '../../lambdas/core/lake/lake-search-routes';
import type { Telemetry } from '../../lambdas/core/telemetry';
import { createLakeSearchHandler, lakeSearchDependencies } from '../../lambdas/lake-search/adapter';
import { startAthenaEmulator } from '../emulators/athena/index';
import type { HttpRouteHandler } from '../http-api-server';
import { createMirroredLakeEngine } from './mirrored-lake-engine';

/** The names local mode gives the workgroup and database the stack creates. */
export const LOCAL_LAKE_WORKGROUP = 'meeting-pipeline-lake';
export const LOCAL_LAKE_DATABASE = 'meetings_lake';

export interface LocalLakeSearch {
  handler: HttpRouteHandler;
  /** The emulator's endpoint (for an AthenaClient of the CLI or a test). */
  athenaEndpoint: string;
  stop(): Promise<void>;
}

export async function startLocalLakeSearch(options: {
  s3: S3Client;
  bucket: string;
  region: string;
  telemetry: Telemetry;
}): Promise<LocalLakeSearch> {
  const dir = mkdtempSync(join(tmpdir(), 'meeting-pipeline-lake-'));
  const engine = await createMirroredLakeEngine({ s3: options.s3, bucket: options.bucket, dir });
  const emulator = await startAthenaEmulator({
    engine,
    s3: options.s3,
    database: LOCAL_LAKE_DATABASE,
    workGroups: {
      [LOCAL_LAKE_WORKGROUP]: {
        ResultConfiguration: { OutputLocation: `s3://${options.bucket}/${LAKE_RESULTS_PREFIX}` },
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: DEFAULT_LAKE_SETTINGS.bytesScannedCutoffBytes,
      },
    },
  });
  const athena = new AthenaClient({
    endpoint: emulator.endpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const handler = createLakeSearchHandler(
    lakeSearchDependencies(
      {
        LAKE_WORKGROUP: LOCAL_LAKE_WORKGROUP,
        LAKE_DATABASE: LOCAL_LAKE_DATABASE,
        QUERY_WAIT_MS: DEFAULT_LAKE_ROUTE_WAIT_MS,
      },
      { athena },
      options.telemetry,
    ),
  );
  return {
    handler,
    athenaEndpoint: emulator.endpoint,
    async stop() {
      athena.destroy();
      await emulator.close();
      engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
