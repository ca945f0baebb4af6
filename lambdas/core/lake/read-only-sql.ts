/**
 * The guard in front of every user-written lake query (CLI `query`, the read API's SQL route, MCP):
 * one statement, a query (SELECT, or WITH … SELECT), nothing that writes, exports, loads or
 * changes a setting. It runs before the engine sees the text, in plain TypeScript (no parser
 * dependency in the Lambda or CLI bundle), on tokens, so comments, string literals and quoted
 * identifiers can neither hide a statement nor cause a false refusal.
 *
 * The text must mean the same thing to Athena (Trino) and DuckDB, or the guard could judge one
 * reading while the engine runs the other. Where the two lexers disagree the text is refused:
 * nested block comments (DuckDB nests them, Trino ends at the first `*​/`), DuckDB's escape strings
 * (`E'…\'…'`) and dollar quoting (`$$…$$`), and any other string literal glued to a word.
 */
import { LakeQueryRefusedError } from './lake-engine';

type Token =
  | { kind: 'word'; upper: string; at: number }
  | { kind: 'quoted'; at: number }
  | { kind: 'string'; at: number }
  | { kind: 'number'; at: number }
  | { kind: 'punct'; text: string; at: number };

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

/** Throws LakeQueryRefusedError, with the reason, unless `sql` is one read-only query. */
export function assertReadOnlySql(sql: string): void {
  if (sql.length > MAX_SQL_CHARS) refuse(`the text is ${sql.length} characters, more than ${MAX_SQL_CHARS}`);
  const tokens = tokenize(sql);
  const last = tokens.at(-1);
  // One trailing semicolon ends the statement; any other one starts a second.
  const body = last?.kind === 'punct' && last.text === ';' ? tokens.slice(0, -1) : tokens;
  if (body.length === 0) refuse('the text holds no statement');
  if (body.some((token) => token.kind === 'punct' && token.text === ';'))
    refuse('more than one statement (a semicolon before the end)');
  let depth = 0;
  for (const token of body) {
    if (token.kind === 'punct' && token.text === '(') depth++;
    if (token.kind === 'punct' && token.text === ')' && --depth < 0)
      refuse(`a parenthesis at character ${token.at + 1} closes nothing`);
    if (token.kind === 'word' && FORBIDDEN_WORDS.has(token.upper))
      refuse(`${token.upper} (at character ${token.at + 1}) is not part of a read-only query`);
  }
  if (depth > 0) refuse('a parenthesis is never closed');
  // Athena's pass-through table functions (`TABLE(system.query(query => '…'))`) hand a string to
  // another system as its own statement, out of this guard's sight.
  body.forEach((token, i) => {
    const next = body[i + 1];
    if (token.kind === 'word' && token.upper === 'TABLE' && next?.kind === 'punct' && next.text === '(')
      refuse(`a table function (TABLE( at character ${token.at + 1}) could pass a statement to another system`);
  });
  const start = body.findIndex((token) => !(token.kind === 'punct' && token.text === '('));
  const first = body[start];
  if (first?.kind !== 'word' || (first.upper !== 'SELECT' && first.upper !== 'WITH'))
    refuse(`the statement starts with ${describe(first)}, not SELECT or WITH`);
  if (first?.kind === 'word' && first.upper === 'WITH') {
    const main = body[afterCteList(body, start + 1)];
    const opensQuery = main?.kind === 'punct' && main.text === '(';
    if (!opensQuery && !(main?.kind === 'word' && main.upper === 'SELECT'))
      refuse(`WITH must be followed by a SELECT, found ${describe(main)}`);
  }
}

const describe = (token: Token | undefined): string =>
  token === undefined
    ? 'nothing'
    : token.kind === 'word'
      ? token.upper
      : token.kind === 'punct'
        ? `'${token.text}'`
        : `a ${token.kind === 'quoted' ? 'quoted name' : token.kind}`;

/**
 * The index of the first token after the CTE list `[RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (…)[, …]`,
 * or of the token where that shape breaks (the caller then refuses what it finds there).
 */
function afterCteList(tokens: Token[], from: number): number {
  const isWord = (i: number, ...words: string[]) => {
    const token = tokens[i];
    return token?.kind === 'word' && (words.length === 0 || words.includes(token.upper));
  };
  const isOpen = (i: number) => {
    const token = tokens[i];
    return token?.kind === 'punct' && token.text === '(';
  };
  let i = isWord(from, 'RECURSIVE') ? from + 1 : from;
  for (;;) {
    if (!(isWord(i) || tokens[i]?.kind === 'quoted')) return i;
    i++;
    if (isOpen(i)) i = closingParen(tokens, i) + 1;
    if (!isWord(i, 'AS')) return i;
    i++;
    while (isWord(i, 'NOT', 'MATERIALIZED')) i++;
    if (!isOpen(i)) return i;
    i = closingParen(tokens, i) + 1;
    const next = tokens[i];
    if (!(next?.kind === 'punct' && next.text === ',')) return i;
    i++;
  }
}

function closingParen(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind !== 'punct') continue;
    if (token.text === '(') depth++;
    if (token.text === ')' && --depth === 0) return i;
  }
  return refuse('a parenthesis is never closed');
}

const WORD_START = /[\p{L}_]/u;
const WORD_PART = /[\p{L}\p{N}_]/u;

/** Trino's lexical rules, refusing what DuckDB would read differently (see the header). */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const char = sql[i] as string;
    const at = i;
    if (/\s/u.test(char)) {
      i++;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) refuse(`a comment opened at character ${at + 1} is never closed`);
      if (sql.slice(i + 2, end).includes('/*'))
        refuse(`a comment nested in another (at character ${at + 1}): engines disagree where it ends`);
      i = end + 2;
    } else if (char === "'") {
      const previous = tokens.at(-1);
      if (previous !== undefined && previous.kind === 'word' && at > 0 && WORD_PART.test(sql[at - 1] as string))
        refuse(`a string literal prefixed by ${previous.upper} (at character ${at + 1}) is not accepted`);
      i = closeQuote(sql, i, "'", 'string literal');
      tokens.push({ kind: 'string', at });
    } else if (char === '"' || char === '`') {
      i = closeQuote(sql, i, char, 'quoted name');
      tokens.push({ kind: 'quoted', at });
    } else if (char === '$') {
      refuse(
        `'$' (at character ${at + 1}) is not accepted: dollar quoting and $n parameters are not shared by both engines`,
      );
    } else if (WORD_START.test(char)) {
      while (i < sql.length && WORD_PART.test(sql[i] as string)) i++;
      tokens.push({ kind: 'word', upper: sql.slice(at, i).toUpperCase(), at });
    } else if (/[0-9.]/.test(char) && /[0-9]/.test(sql[i + (char === '.' ? 1 : 0)] ?? '')) {
      while (i < sql.length && /[0-9a-zA-Z_.]/.test(sql[i] as string)) i++;
      tokens.push({ kind: 'number', at });
    } else {
      tokens.push({ kind: 'punct', text: char, at });
      i++;
    }
  }
  return tokens;
}

/** The index after a quoted token that a doubled quote escapes (`'it''s'`, `"a""b"`). */
function closeQuote(sql: string, open: number, quote: string, what: string): number {
  let i = open + 1;
  for (;;) {
    const end = sql.indexOf(quote, i);
    if (end === -1) return refuse(`a ${what} opened at character ${open + 1} is never closed`);
    if (sql[end + 1] === quote) {
      i = end + 2;
      continue;
    }
    return end + 1;
  }
}
