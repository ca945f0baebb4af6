/**
 * Athena refuses a statement its Trino grammar cannot read in the StartQueryExecution call
 * itself (MALFORMED_QUERY), before any query exists. The emulator reads each statement with the
 * Trino grammar of dt-sql-parser, so SQL only DuckDB accepts (a `::` cast, say) is refused
 * locally as Athena would refuse it in AWS. The parser is loaded on the first query (it is large).
 */
import { trinoGrammar } from '../../../lambdas/core/lake/trino-grammar';
import { invalidRequest } from './errors';

/**
 * Verdicts by SQL text (undefined: valid). Parsing takes a few hundred ms here, and the questions
 * send the same few texts with new parameters, so each text is read once.
 */
const verdicts = new Map<string, string | undefined>();
const REMEMBERED = 500;

async function verdict(sql: string): Promise<string | undefined> {
  if (verdicts.has(sql)) return verdicts.get(sql);
  const { trino } = await trinoGrammar();
  const [error] = trino.validate(sql);
  const found =
    error !== undefined
      ? `line ${error.startLine}:${error.startColumn}: ${error.message}`
      : (trino.splitSQLByStatement(sql) ?? []).length > 1
        ? `Only one sql statement is allowed. Got: ${sql}`
        : undefined;
  if (verdicts.size >= REMEMBERED) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(sql, found);
  return found;
}

/** Throws Athena's refusal for a statement that is not one valid Trino statement. */
export async function requireTrinoStatement(sql: string): Promise<void> {
  const refusal = await verdict(sql);
  if (refusal !== undefined) throw invalidRequest(refusal, 'MALFORMED_QUERY');
}
