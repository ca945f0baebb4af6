/**
 * A finished query's result as Athena hands it out: every value as text (`VarCharValue`, absent
 * for NULL), the column types in `ResultSetMetadata.ColumnInfo`, the CSV file it writes to the
 * output location (every value and the header quoted, `"` doubled, NULL an empty field, `\n` after
 * each line) and GetQueryResults pages whose first row, on the first page only, is the header.
 */
import type { LakeResult, LakeValue } from '../../../lambdas/core/lake/lake-engine';

/** The Trino types a lake result can have (the engine answers numbers, booleans and text). */
export type ResultType = 'bigint' | 'double' | 'boolean' | 'varchar';

/** What a result's metadata says: its columns and their types. */
export interface ResultShape {
  columns: string[];
  types: ResultType[];
}

export interface StoredResult extends ResultShape {
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

/** The CSV back into rows (header first): a quoted field is text, an empty unquoted one NULL. */
export function parseResultCsv(csv: string): Array<Array<string | null>> {
  const rows: Array<Array<string | null>> = [];
  let row: Array<string | null> = [];
  let i = 0;
  while (i < csv.length) {
    if (csv[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const quote = csv.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field in a result file');
        value += csv.slice(i, quote);
        if (csv[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      row.push(value);
    } else {
      row.push(null);
    }
    // After a field: a comma (another field follows) or the end of the line.
    if (csv[i] === ',') i++;
    else {
      rows.push(row);
      row = [];
      i++;
    }
  }
  return rows;
}

export function resultCsv(result: StoredResult): string {
  const lines = [
    result.columns.map(quoted),
    ...result.rows.map((row) => row.map((v) => (v === null ? '' : quoted(v)))),
  ];
  return lines.map((cells) => `${cells.join(',')}\n`).join('');
}

const PRECISION: Record<ResultType, number> = { bigint: 19, double: 17, boolean: 0, varchar: 2147483647 };

export function columnInfo(result: ResultShape) {
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
 * One page from row `offset` of the header-and-rows sequence (as the result file holds it). A full
 * page always names the next one, even when nothing is left (the next call then answers no rows
 * and no token), as Athena does.
 */
export function resultPage(all: Array<Array<string | null>>, offset: number, size: number) {
  const rows = all.slice(offset, offset + size).map((row) => ({ Data: row.map(datum) }));
  const next = rows.length === size ? offset + size : undefined;
  return { rows, next };
}
