/**
 * Local mode's lake engine: DuckDB over a mirror of the local bucket's `lake/`, brought up to date
 * before every query, not once: the MCP server and the local Athena emulator keep their engine for
 * hours, and a meeting archived (or erased) since must be found (or gone) as it is in the bucket.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { LakeEngine } from '../../lambdas/core/lake/lake-engine';
import { createDuckDbLakeEngine } from './duckdb-lake-engine';
import { mirrorLake } from './lake-mirror';

export async function createMirroredLakeEngine(options: {
  s3: S3Client;
  bucket: string;
  /** The mirror's directory (the engine's root). */
  dir: string;
}): Promise<LakeEngine & { close(): void }> {
  const { s3, bucket, dir } = options;
  const duckdb = await createDuckDbLakeEngine({ root: dir });
  return {
    async run(query, runOptions) {
      await mirrorLake(s3, bucket, dir);
      return duckdb.run(query, runOptions);
    },
    close: () => duckdb.close(),
  };
}
