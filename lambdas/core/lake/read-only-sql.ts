/**
 * The guard in front of every user-written lake query (today the CLI's `query`; nothing else takes
 * a user's SQL): one statement, a query (SELECT, or WITH … SELECT), nothing that writes, exports,
 * loads or changes a setting. It reads the text with Trino's own lexer and parser (dt-sql-parser,
 * loaded on first use: it is large, and not for a Lambda bundle), so comments, string literals
 * and quoted identifiers end where Athena ends them, never where a hand-written scanner guessed.
 *
 * The text must mean the same thing to Athena (Trino) and DuckDB, or the guard could judge one
 * reading while the engine runs the other. Where the two lexers disagree the text is refused:
 * nested block comments (DuckDB nests them, Trino ends at the first `*​/`), DuckDB's escape strings
 * (`E'…\'…'`) and any other string literal glued to a word (`U&'…'`, `X'…'`), dollar quoting
 * (`$$…$$`), backquoted names, and characters Trino's lexer does not know (`\f`, `\v`, Unicode spaces).
 */

import type { TrinoSQL } from 'dt-sql-parser';
import { LakeQueryRefusedError } from './lake-engine';
import { type TrinoGrammar, trinoGrammar } from './trino-grammar';

type Token = ReturnType<TrinoGrammar['trino']['getAllTokens']>[number];

/** Statement verbs that never belong inside a query, wherever they appear (a CTE, a subquery). */
const FORBIDDEN_WORDS = new Set([
  'ALTER',
  'ANALYZE',
  'ATTACH',
  'CALL',
  'CHECKPOINT',
  'COMMIT',
  'COPY',
  'CREATE',
  'DEALLOCATE',
  'DELETE',
  'DENY',
  'DESCRIBE',
  'DETACH',
  'DROP',
  'EXECUTE',
  'EXPLAIN',
  'EXPORT',
  'GRANT',
  'IMPORT',
  'INSERT',
  'INSTALL',
  'INTO',
  'LOAD',
  'MERGE',
  'MSCK',
  'PRAGMA',
  'PREPARE',
  'REFRESH',
  'RESET',
  'REVOKE',
  'ROLLBACK',
  'SET',
  'TRUNCATE',
  'UNLOAD',
  'UPDATE',
  'USE',
  'VACUUM',
]);

const refuse = (reason: string): never => {
  throw new LakeQueryRefusedError(`only a read-only query (SELECT or WITH … SELECT) is accepted: ${reason}`);
};

/** Athena's own limit on a query's text (256 KiB); a longer text is refused before it is read. */
export const MAX_SQL_CHARS = 262_144;

/**
 * How deep parentheses, brackets and CASE … END may nest. Trino's generated parser costs more the
 * deeper they go (64 levels about 1.6 s on first use, 1000 about 50 s) and runs out of stack in the
 * low thousands; a hand-written query stays far below this.
 */
export const MAX_SQL_NESTING = 64;
const OPENS = new Set(['(', '[', 'CASE']);
const CLOSES = new Set([')', ']', 'END']);

/** Throws LakeQueryRefusedError, with the reason, unless `sql` is one read-only query. */
export async function assertReadOnlySql(sql: string): Promise<void> {
  if (sql.length > MAX_SQL_CHARS) refuse(`the text is ${sql.length} characters, more than ${MAX_SQL_CHARS}`);
  const grammar = await trinoGrammar();
  const tokens = statementTokens(grammar, sql);
  const last = tokens.at(-1);
  // One trailing semicolon ends the statement; any other one starts a second.
  const body = last?.text === ';' ? tokens.slice(0, -1) : tokens;
  if (body.length === 0) refuse('the text holds no statement');
  if (body.some((token) => token.text === ';')) refuse('more than one statement (a semicolon before the end)');
  let depth = 0;
  let nesting = 0;
  for (const [i, token] of body.entries()) {
    if (token.text === '(') depth++;
    if (token.text === ')' && --depth < 0) refuse(`a parenthesis at character ${token.start + 1} closes nothing`);
    const upper = (token.text ?? '').toUpperCase();
    const isOpen = OPENS.has(upper) && (upper !== 'CASE' || isWord(grammar, token));
    if (isOpen && ++nesting > MAX_SQL_NESTING)
      refuse(
        `parentheses, brackets or CASE nest deeper than ${MAX_SQL_NESTING} levels at character ${token.start + 1}`,
      );
    if (CLOSES.has(upper) && (upper !== 'END' || isWord(grammar, token))) nesting--;
    const word = isWord(grammar, token) ? upper : undefined;
    if (word !== undefined && FORBIDDEN_WORDS.has(word))
      refuse(`${word} (at character ${token.start + 1}) is not part of a read-only query`);
    // Athena's pass-through table functions (`TABLE(system.query(query => '…'))`) hand a string to
    // another system as its own statement, out of this guard's sight.
    if (word === 'TABLE' && body[i + 1]?.text === '(')
      refuse(`a table function (TABLE( at character ${token.start + 1}) could pass a statement to another system`);
  }
  if (depth > 0) refuse('a parenthesis is never closed');
  const first = body.find((token) => token.text !== '(');
  const firstWord = first !== undefined && isWord(grammar, first) ? first.text?.toUpperCase() : undefined;
  if (firstWord !== 'SELECT' && firstWord !== 'WITH')
    refuse(`the statement starts with ${describe(grammar, first)}, not SELECT or WITH`);
  assertOneQuery(grammar, sql);
}

/** What Trino's parser makes of the text: one statement, a query, its WITH (if any) followed by a SELECT. */
function assertOneQuery({ trino, parser }: TrinoGrammar, sql: string): void {
  const errors: string[] = [];
  let program: ReturnType<TrinoSQL['parse']>;
  try {
    program = trino.parse(sql, (error) =>
      errors.push(`line ${error.startLine}:${error.startColumn}: ${error.message}`),
    );
  } catch (error) {
    // The generated parser recurses per nesting level: a shape the nesting limit does not count could exhaust the stack.
    if (error instanceof RangeError) refuse(`Trino's grammar cannot read it to the end (${error.message})`);
    throw error;
  }
  if (errors.length > 0) refuse(`Trino's grammar does not read it (${errors[0]})`);
  const statements = program.statements();
  if (statements.length !== 1) refuse(`Trino's grammar reads ${statements.length} statements`);
  const statement = statements[0]?.singleStatement().statement();
  if (!(statement instanceof parser.StatementDefaultContext))
    refuse(`Trino's grammar reads a ${statement?.constructor.name.replace(/Context$/, '')} statement, not a query`);
  const root = (statement as InstanceType<typeof parser.StatementDefaultContext>).rootQuery();
  if (root.withFunction() !== null) refuse('WITH FUNCTION defines a function: not part of a read-only query');
  const query = root.query();
  if (query instanceof parser.QueryStatementContext && query.with() !== null) {
    const main = query.queryNoWith().start;
    if (main?.text?.toUpperCase() !== 'SELECT' && main?.text !== '(')
      refuse(`WITH must be followed by a SELECT, found ${main?.text?.toUpperCase() ?? 'nothing'}`);
  }
}

/**
 * The text's tokens on the parser's channel (no comments, no white space), by Trino's lexer;
 * refuses what the lexer could not read to the end, or what DuckDB's lexer reads otherwise.
 */
function statementTokens(grammar: TrinoGrammar, sql: string): Token[] {
  const { parser } = grammar;
  // The lexer alone: dt-sql-parser's own getAllTokens parses the text first.
  const all = grammar.trino.createLexer(sql).getAllTokens();
  const kept: Token[] = [];
  for (const [i, token] of all.entries()) {
    const at = `at character ${token.start + 1}`;
    const text = token.text ?? '';
    const previous = all[i - 1];
    const glued = previous !== undefined && previous.stop + 1 === token.start;
    switch (token.type) {
      case parser.TrinoSqlParser.BRACKETED_COMMENT:
        if (text.slice(2, -2).includes('/*'))
          refuse(`a comment nested in another (${at}): engines disagree where it ends`);
        break;
      case parser.TrinoSqlParser.UNRECOGNIZED:
        if (text === "'") refuse(`a string literal opened ${at} is never closed`);
        if (text === '"') refuse(`a quoted name opened ${at} is never closed`);
        refuse(`${codePoints(text)} (${at}) is not a character Trino reads`);
        break;
      case parser.TrinoSqlParser.STRING:
        if (glued && isWord(grammar, previous))
          refuse(`a string literal prefixed by ${previous.text?.toUpperCase()} (${at}) is not accepted`);
        break;
      case parser.TrinoSqlParser.UNICODE_STRING:
      case parser.TrinoSqlParser.BINARY_LITERAL:
        refuse(
          `a string literal prefixed by ${text.slice(0, text.indexOf("'")).toUpperCase()} (${at}) is not accepted`,
        );
        break;
      case parser.TrinoSqlParser.BACKQUOTED_IDENTIFIER:
        refuse(`a name in backquotes (${at}) is not accepted: Athena reads only double-quoted names`);
        break;
      case parser.TrinoSqlParser.ASTERISK:
        // `/*` read as two tokens: a comment Trino's lexer found no end for.
        if (glued && previous.type === parser.TrinoSqlParser.SLASH)
          refuse(`a comment opened at character ${previous.start + 1} is never closed`);
        break;
    }
    if (text === '$')
      refuse(`'$' (${at}) is not accepted: dollar quoting and $n parameters are not shared by both engines`);
    if (token.channel === 0) kept.push(token);
  }
  return kept;
}

/** A keyword or a plain (unquoted) identifier. */
const isWord = ({ parser, tokenName }: TrinoGrammar, token: Token): boolean =>
  token.type === parser.TrinoSqlParser.IDENTIFIER || (tokenName(token.type)?.startsWith('KW_') ?? false);

const codePoints = (text: string) =>
  [...text].map((char) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

function describe(grammar: TrinoGrammar, token: Token | undefined): string {
  if (token === undefined) return 'nothing';
  if (isWord(grammar, token)) return (token.text ?? '').toUpperCase();
  switch (token.type) {
    case grammar.parser.TrinoSqlParser.STRING:
      return 'a string';
    case grammar.parser.TrinoSqlParser.QUOTED_IDENTIFIER:
      return 'a quoted name';
    case grammar.parser.TrinoSqlParser.INTEGER_VALUE:
    case grammar.parser.TrinoSqlParser.DECIMAL_VALUE:
    case grammar.parser.TrinoSqlParser.DOUBLE_VALUE:
      return 'a number';
    default:
      return `'${token.text}'`;
  }
}
