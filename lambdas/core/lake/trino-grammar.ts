/**
 * Athena's SQL grammar (Trino's, from dt-sql-parser), for code that must read a text as Athena
 * would: the read-only guard (read-only-sql.ts) and the local Athena emulator. It is loaded on
 * first use: it is large, and the CLI's other commands never need it. Not for a Lambda bundle.
 */
import type { TrinoSQL } from 'dt-sql-parser';
import type * as TrinoParserModule from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser.js';

export interface TrinoGrammar {
  trino: TrinoSQL;
  /** The generated parser's module: its token types and parse-tree context classes. */
  parser: typeof TrinoParserModule;
  /** A token type's name in the grammar (`KW_SELECT`, `STRING`, …); undefined for literal tokens such as `(`. */
  tokenName(type: number): string | undefined;
}

let loading: Promise<TrinoGrammar> | undefined;

export function trinoGrammar(): Promise<TrinoGrammar> {
  loading ??= Promise.all([import('dt-sql-parser'), import('dt-sql-parser/dist/lib/trino/TrinoSqlParser.js')]).then(
    ([{ TrinoSQL }, parser]) => {
      const trino = new TrinoSQL();
      const vocabulary = trino.createLexer('').vocabulary;
      return { trino, parser, tokenName: (type) => vocabulary.getSymbolicName(type) ?? undefined };
    },
  );
  return loading;
}
