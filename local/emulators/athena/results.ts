/**
 * A finished query's result as Athena hands it out: every value as text (`VarCharValue`, absent
 * for NULL), the column types in `ResultSetMetadata.ColumnInfo`, the CSV file it writes to the
 * output location (every value and the header quoted, `"` doubled, NULL an empty field, `\n` after
 * each line) and GetQueryResults pages whose first row, on the first page only, is the header.
 */
import type { LakeResult, LakeValue } from '../../../lambdas/core/lake/lake-engine';

/** The Trino types a lake result can have (the engine answers numbers, booleans and text). */
export type ResultType = 'bigint' | 'double' | 'boolean' | 'varchar';

export interface StoredResult {
  columns: string[];
  types: ResultType[];
  /** Values as Athena renders them; null for NULL. */
  rows: Array<Array<string | null>>;
}

/** A column's type from its values: the engine gives no types, so the values decide (all NULL reads as varchar). */
function columnType(values: LakeValue[]): ResultType {
  const present = values.filter((value) => value !== null);
  if (present.length === 0) return 'varchar';
  if (present.every((value) => typeof value === 'boolean')) return 'boolean';
  if (present.every((value) => typeof value === 'number')) {
    return present.every((value) => Number.isInteger(value)) ? 'bigint' : 'double';
  }
  return 'varchar';
}

const render = (value: LakeValue): string | null => (value === null ? null : String(value));

export function storedResult(result: LakeResult): StoredResult {
  const types = result.columns.map((_, i) => columnType(result.rows.map((row) => row[i] ?? null)));
  return { columns: result.columns, types, rows: result.rows.map((row) => row.map(render)) };
}

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

export function resultCsv(result: StoredResult): string {
  const lines = [
    result.columns.map(quoted),
    ...result.rows.map((row) => row.map((v) => (v === null ? '' : quoted(v)))),
  ];
  return lines.map((cells) => `${cells.join(',')}\n`).join('');
}

const PRECISION: Record<ResultType, number> = { bigint: 19, double: 17, boolean: 0, varchar: 2147483647 };

export function columnInfo(result: StoredResult) {
  return result.columns.map((name, i) => {
    const type = result.types[i] ?? 'varchar';
    return {
      CatalogName: 'hive',
      SchemaName: '',
      TableName: '',
      Name: name,
      Label: name,
      Type: type,
      Precision: PRECISION[type],
      Scale: 0,
      Nullable: 'UNKNOWN',
      CaseSensitive: type === 'varchar',
    };
  });
}

/** Athena's largest and default page: 1000 rows, the header row included. */
export const MAX_PAGE_ROWS = 1000;

const datum = (value: string | null) => (value === null ? {} : { VarCharValue: value });

/**
 * One page from row `offset` of the header-and-rows sequence. A full page always names the next
 * one, even when nothing is left (the next call then answers no rows and no token), as Athena does.
 */
export function resultPage(result: StoredResult, offset: number, size: number) {
  const all = [result.columns, ...result.rows];
  const rows = all.slice(offset, offset + size).map((row) => ({ Data: row.map(datum) }));
  const next = rows.length === size ? offset + size : undefined;
  return { rows, next };
}
