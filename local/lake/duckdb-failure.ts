/**
 * DuckDB's failure text, as a person reads it: one line. DuckDB answers an unknown table with its catalog's
 * guess (often one of its own system views) and the statement under a caret, four lines in all; the lake's
 * users know three views, so a wrong name is answered with the names that exist.
 */
import { LakeQueryFailedError, LakeUnknownNameError } from '../../lambdas/core/lake/lake-engine';
import { LAKE_TABLE_NAMES } from '../../lambdas/core/lake/lake-tables';

const UNKNOWN_TABLE = /^Catalog Error: Table with name (\S+) does not exist!/;
const UNKNOWN_COLUMN = /^Binder Error: Referenced column "([^"]+)" not found in FROM clause!/;
const CANDIDATES = /^Candidate bindings: (.+)$/m;
const UNKNOWN_QUALIFIED_COLUMN = /^Binder Error: \w[\w ]* "([^"]+)" does not have a column named "([^"]+)"/;

/**
 * The error a failed DuckDB query is reported with: a wrong name is the SQL's fault, anything else the
 * engine's. DuckDB's own text stays as its `cause`: the local Athena names its failures from it, as Athena would.
 */
export function duckDbFailure(message: string): LakeQueryFailedError {
  return Object.assign(failureFor(message), { cause: message });
}

/** DuckDB's own text of a failure duckDbFailure reported, else the error's message. */
export function duckDbText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return typeof error.cause === 'string' ? error.cause : error.message;
}

function failureFor(message: string): LakeQueryFailedError {
  const table = UNKNOWN_TABLE.exec(message);
  if (table !== null) return new LakeUnknownNameError(`no table ${table[1]}; tables: ${LAKE_TABLE_NAMES.join(', ')}`);
  const column = UNKNOWN_COLUMN.exec(message);
  if (column !== null) {
    const candidates = CANDIDATES.exec(message)?.[1]?.replaceAll('"', '');
    return new LakeUnknownNameError(
      `no column ${column[1]}${candidates === undefined ? '' : `; candidates: ${candidates}`}`,
    );
  }
  const qualified = UNKNOWN_QUALIFIED_COLUMN.exec(message);
  if (qualified !== null) return new LakeUnknownNameError(`no column ${qualified[2]} in ${qualified[1]}`);
  // Anything else: DuckDB's first line; the statement under a caret repeats what the user typed.
  return new LakeQueryFailedError(message.split('\n')[0] ?? message);
}
