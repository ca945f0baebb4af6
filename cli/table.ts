/**
 * Plain-text tables and key/value blocks for people; scripts use `--json`. Each cell
 * is one line without control characters, so no value can add a row or act on the terminal.
 */
import { withoutControls } from '../lambdas/core/text/control-characters';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | null | undefined;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

const cell = (value: string | number | null | undefined): string => {
  const text = value === null || value === undefined ? '' : withoutControls(String(value), { keepLines: false });
  return text === '' ? '-' : text;
};

export function renderTable<Row>(columns: Column<Row>[], rows: Row[]): string {
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => line[i]?.length ?? 0)),
  );
  const format = (line: string[]) =>
    line
      .map((text, i) => (columns[i]?.align === 'right' ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [format(columns.map((column) => column.header)), ...cells.map(format)].join('\n');
}

/** `key  value` lines, keys aligned. */
export function renderFields(fields: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...fields.map(([key]) => key.length));
  return fields
    .map(
      ([key, value]) => `${key.padEnd(width)}  ${cell(value === undefined || value === null ? null : String(value))}`,
    )
    .join('\n');
}

/** One line of at most `max` characters: for sample message bodies. */
export function oneLine(text: string, max = 100): string {
  const flat = withoutControls(text, { keepLines: false });
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
