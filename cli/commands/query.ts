/** `query "<SQL>"`: one read-only statement on the meetings lake, as a table or JSON. */
import { LakeQueryRefusedError, type LakeResult, type LakeValue } from '../../lambdas/core/lake/lake-engine';
import { assertReadOnlySql } from '../../lambdas/core/lake/read-only-sql';
import { withoutControls } from '../../lambdas/core/text/control-characters';
import { type Command, defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { type ClosableLakeEngine, costLine, lakeEngineFor, withLakeEngine } from '../lake-engine';
import { type Column, renderTable } from '../table';
import type { Target } from '../target';
import { writeErr } from '../terminal';

/** Rows printed at most (the rest are not read); --max-rows raises it up to MAX_QUERY_ROWS. */
export const DEFAULT_QUERY_ROWS = 1_000;
export const MAX_QUERY_ROWS = 100_000;

/** The command over an engine opener: the CLI's is `lakeEngineFor`; a test passes a spy. */
export function queryCommand(open: (target: Target) => Promise<ClosableLakeEngine> = lakeEngineFor): Command {
  return defineCommand({
    words: ['query'],
    args: ['<SQL>'],
    summary:
      'Runs one read-only SQL statement (SELECT or WITH) on the meetings lake (views meetings, utterances, participants): Athena in AWS, DuckDB in local mode; anything else is refused before it reaches the engine.',
    usage: '[--max-rows N]',
    flags: `  --max-rows N            rows printed at most, 1 to ${MAX_QUERY_ROWS} (default ${DEFAULT_QUERY_ROWS}); the rest are not read`,
    options: { 'max-rows': { type: 'string' } },
    async run({ values, args, target }) {
      const sql = args[0] ?? '';
      const maxRows = wholeNumber('max-rows', values['max-rows'], 1, MAX_QUERY_ROWS) ?? DEFAULT_QUERY_ROWS;
      // Refused here, before any engine is opened: a statement that writes never leaves this machine.
      try {
        await assertReadOnlySql(sql);
      } catch (error) {
        if (error instanceof LakeQueryRefusedError) throw new UsageError(`refused: ${error.message}`);
        throw error;
      }
      const result = await withLakeEngine(
        await target(),
        (engine, options) => engine.run({ sql, params: [] }, { ...options, maxRows }),
        open,
      );
      if (values.json === true) {
        printJson({
          columns: result.columns,
          rows: result.rows,
          truncated: result.truncated,
          engine: result.engine,
          bytes_scanned: result.bytesScanned,
          elapsed_ms: Math.round(result.elapsedMs),
          ...(result.queryId !== undefined && { query_id: result.queryId }),
        });
        return undefined;
      }
      if (result.columns.length > 0) print(resultTable(result));
      writeErr(`${summary(result, maxRows)}\n`);
      return undefined;
    },
  });
}

export const query = queryCommand();

/** The rows under their column names; a column of numbers only is right-aligned. */
export function resultTable(result: LakeResult): string {
  const columns: Column<LakeValue[]>[] = result.columns.map((name, i) => ({
    // A column's name is the query's alias: text too, so one line without controls.
    header: withoutControls(name, { keepLines: false }),
    value: (row) => {
      const value = row[i] ?? null;
      return typeof value === 'boolean' ? String(value) : value;
    },
    ...(result.rows.length > 0 &&
      result.rows.every((row) => typeof row[i] === 'number' || row[i] === null) && { align: 'right' as const }),
  }));
  return renderTable(columns, result.rows);
}

const summary = (result: LakeResult, maxRows: number) => {
  const count = `${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'}`;
  const more = result.truncated ? `, more not read (--max-rows ${maxRows}; add a LIMIT or raise --max-rows)` : '';
  const id = result.queryId === undefined ? '' : `, query ${result.queryId}`;
  return `${count}${more} (${costLine({ engine: result.engine, bytes_scanned: result.bytesScanned, elapsed_ms: result.elapsedMs })}${id})`;
};
