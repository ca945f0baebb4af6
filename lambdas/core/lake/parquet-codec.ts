/**
 * Lake rows to Parquet and back, by the table's columns (lake-tables.ts). hyparquet-writer and
 * hyparquet: pure JavaScript, about 60 KB minified together with what the writer pulls in, no
 * native code (the same bundle runs on Lambda arm64), SNAPPY-compressed pages with statistics, so
 * Athena and DuckDB skip row groups by min/max.
 */
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { type ColumnSource, parquetWriteBuffer } from 'hyparquet-writer';
import { LAKE_COLUMNS, type LakeColumnType, type LakeRow, type LakeTableName } from './lake-tables';

const PARQUET_TYPE: Record<LakeColumnType, 'STRING' | 'INT64' | 'BOOLEAN'> = {
  string: 'STRING',
  bigint: 'INT64',
  boolean: 'BOOLEAN',
};

/** Rows per row group: a day of utterances (about 1.2 M rows) is read in parallel in ~20 groups. */
const ROW_GROUP_ROWS = 65_536;

export class LakeRowError extends Error {
  override name = 'LakeRowError';
}

/**
 * The footer key a recent file carries its write's `lake_version` under. The writer PUTs the
 * meetings file last, so a meeting is committed at a version once its meetings file carries it and
 * no other file of the meeting is newer; a fold takes only committed meetings.
 */
const LAKE_VERSION_KEY = 'lake_version';

/**
 * Encodes rows of `table` (columns in the table's order; a missing nullable value is null);
 * `version`: the write's `lake_version`, kept in the file's footer (lakeFileVersion reads it).
 */
export function encodeLakeRows(table: LakeTableName, rows: readonly LakeRow[], version?: string): Uint8Array {
  const columnData: ColumnSource[] = LAKE_COLUMNS[table].map((column) => {
    const data = rows.map((row) => {
      const value = row[column.name] ?? null;
      if (value === null) {
        if (!column.nullable) throw new LakeRowError(`${table}.${column.name} may not be null`);
        return null;
      }
      if (column.type === 'bigint') {
        if (typeof value !== 'number' || !Number.isSafeInteger(value))
          throw new LakeRowError(`${table}.${column.name} must be an integer, got ${String(value)}`);
        return BigInt(value);
      }
      if (column.type === 'boolean') {
        if (typeof value !== 'boolean') throw new LakeRowError(`${table}.${column.name} must be a boolean`);
        return value;
      }
      if (typeof value !== 'string') throw new LakeRowError(`${table}.${column.name} must be a string`);
      return value;
    });
    return { name: column.name, data, type: PARQUET_TYPE[column.type], nullable: column.nullable };
  });
  const kvMetadata = version === undefined ? undefined : [{ key: LAKE_VERSION_KEY, value: version }];
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize: ROW_GROUP_ROWS, kvMetadata }));
}

/** The `lake_version` a file was written with; '' for a file written without one (older than any). */
export function lakeFileVersion(bytes: Uint8Array): string {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parquetMetadata(file).key_value_metadata?.find(({ key }) => key === LAKE_VERSION_KEY)?.value ?? '';
}

/** Decodes a file `encodeLakeRows` wrote (integers back to numbers). */
export async function decodeLakeRows(table: LakeTableName, bytes: Uint8Array): Promise<LakeRow[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const objects = (await parquetReadObjects({ file })) as Record<string, unknown>[];
  return objects.map((object) => {
    const row: LakeRow = {};
    for (const column of LAKE_COLUMNS[table]) {
      const value = object[column.name];
      if (value === undefined || value === null) row[column.name] = null;
      else if (typeof value === 'bigint') row[column.name] = Number(value);
      else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        row[column.name] = value;
      else throw new LakeRowError(`${table}.${column.name}: unexpected value in the file`);
    }
    return row;
  });
}
