/**
 * Local mode's mirrors of the lake (lake-mirror.ts) as the erasure sees them: copies of the bucket's `lake/`
 * that must not keep a meeting the bucket no longer has. After the sweep each mirror is brought back to the
 * bucket (the erased meeting's recent files deleted, the compacted files it rewrote fetched again) rather
 * than edited here: the bucket stays the one truth and a mirror holds nothing else. A folder not made yet
 * (no search ran there) holds nothing and is not made.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { LakeCopies } from '../../lambdas/core/erase/erase-dependencies';
import { LAKE_PREFIX } from '../../lambdas/core/lake/lake-layout';
import { LAKE_TABLE_NAMES, type LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { decodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { mirrorLake } from './lake-mirror';

/** `dirs`: the mirrors' folders now (local mode's search engine starts after the erasure is wired). */
export function mirroredLakeCopies(s3: S3Client, bucket: string, dirs: () => readonly string[]): LakeCopies {
  const existing = () => dirs().filter((dir) => existsSync(dir));
  return {
    async filesHolding(botId) {
      let files = 0;
      for (const dir of existing())
        for (const { path, table } of await tableFiles(dir))
          if ((await decodeLakeRows(table, await readFile(path))).some((row) => row.bot_id === botId)) files++;
      return files;
    },
    async resync() {
      for (const dir of existing()) await mirrorLake(s3, bucket, dir);
    },
  };
}

/** The Parquet files of the lake's tables in a mirror (`lake/<tier>/<table>/…`), hidden temporaries left out. */
async function tableFiles(dir: string): Promise<Array<{ path: string; table: LakeTableName }>> {
  const lakeRoot = join(dir, LAKE_PREFIX);
  if (!existsSync(lakeRoot)) return [];
  const entries = await readdir(lakeRoot, { recursive: true, withFileTypes: true });
  return entries.flatMap((entry) => {
    const path = join(entry.parentPath, entry.name);
    const parts = relative(lakeRoot, path).split(sep);
    const table = LAKE_TABLE_NAMES.find((name) => name === parts[1]);
    return entry.isFile() && entry.name.endsWith('.parquet') && !parts.some((part) => part.startsWith('.')) && table
      ? [{ path, table }]
      : [];
  });
}
