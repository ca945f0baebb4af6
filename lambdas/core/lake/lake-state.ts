/**
 * `compacted_through`, the mark the views split the tiers at (lake-layout.ts): a one-row, one-column
 * Parquet file at `lakeKeys.stateFile()`, so Athena and DuckDB read it as the `lake_state` table.
 * Written whole in one PUT: a query reads the old mark or the new one.
 */
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { LakeObjects } from './lake-contract';
import { COMPACTED_THROUGH_COLUMN, lakeKeys, NOTHING_COMPACTED } from './lake-layout';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function encodeCompactedThrough(day: string): Uint8Array {
  if (!DAY.test(day)) throw new Error(`compacted_through must be a yyyy-MM-dd day, got ${day}`);
  return new Uint8Array(
    parquetWriteBuffer({ columnData: [{ name: COMPACTED_THROUGH_COLUMN, data: [day], type: 'STRING' }] }),
  );
}

export async function decodeCompactedThrough(bytes: Uint8Array): Promise<string> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
  const days = rows.map((row) => row[COMPACTED_THROUGH_COLUMN]).filter((v): v is string => typeof v === 'string');
  // The views take max(): so does this.
  return days.sort().at(-1) ?? NOTHING_COMPACTED;
}

/** The last day read from the compacted tier; NOTHING_COMPACTED before the first compaction. */
export async function readCompactedThrough(objects: Pick<LakeObjects, 'get'>): Promise<string> {
  const file = await objects.get(lakeKeys.stateFile());
  return file === null ? NOTHING_COMPACTED : decodeCompactedThrough(file.body);
}

export async function writeCompactedThrough(objects: Pick<LakeObjects, 'put'>, day: string): Promise<void> {
  await objects.put(lakeKeys.stateFile(), encodeCompactedThrough(day));
}

const DAY_MS = 86_400_000;
/** The UTC day after `day` (`yyyy-MM-dd`). */
export const nextLakeDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
