/**
 * What the emulator reads in a query's text before handing it to the engine, the way Athena's
 * analyzer sees it: `?` placeholders outside literals and comments, the tables a query names (and
 * where, for Trino's `line:column`), and ExecutionParameters read as SQL literals.
 */
import type { LakeParam } from '../../../lambdas/core/lake/lake-engine';

/**
 * The text with string literals' contents and comments blanked to spaces (same length, same
 * line breaks), so patterns over it never match inside them. Quoted identifiers stay: they are names.
 */
export function codeOnly(sql: string): string {
  let out = '';
  let i = 0;
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  while (i < sql.length) {
    const rest = sql.slice(i);
    if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += blank(sql.slice(i, stop));
      i = stop;
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += blank(sql.slice(i, stop));
      i = stop;
    } else if (sql[i] === "'" || sql[i] === '"') {
      const quote = sql[i] as string;
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === quote && sql[j + 1] === quote) j += 2;
        else if (sql[j] === quote) break;
        else j++;
      }
      const stop = Math.min(j + 1, sql.length);
      const text = sql.slice(i, stop);
      // A string keeps its quotes (so the text still reads as a value) and loses its contents.
      out +=
        quote === '"' ? text : `'${blank(text.slice(1, j < sql.length ? -1 : undefined))}${j < sql.length ? "'" : ''}`;
      i = stop;
    } else {
      out += sql[i];
      i++;
    }
  }
  return out;
}

/** The `?` placeholders of the statement (not those inside literals, quoted names or comments). */
export function placeholderCount(sql: string): number {
  return (
    codeOnly(sql)
      .replace(/"(?:[^"]|"")*"/g, '')
      .match(/\?/g) ?? []
  ).length;
}

/** One table a FROM or JOIN names: its parts (unquoted ones lower-cased, as Trino folds them). */
export interface TableReference {
  parts: string[];
  /** Offset of the name in the text, and its length. */
  at: number;
  length: number;
}

const NAME = `(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const REFERENCE = new RegExp(String.raw`\b(?:from|join)\s+(${NAME}(?:\s*\.\s*${NAME}){0,2})(?!\s*\()`, 'gi');
const CTE = new RegExp(String.raw`(?:\bwith\s+(?:recursive\s+)?|,)\s*(${NAME})\s*(?:\([^)]*\)\s*)?as\s*\(`, 'gi');

const unquote = (name: string) => (name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name.toLowerCase());

/** The tables the statement reads (names a WITH clause defines are not tables). */
export function tableReferences(sql: string): TableReference[] {
  const code = codeOnly(sql);
  const defined = new Set([...code.matchAll(CTE)].map((match) => unquote(match[1] as string)));
  const references: TableReference[] = [];
  for (const match of code.matchAll(REFERENCE)) {
    const text = match[1] as string;
    const parts = [...text.matchAll(new RegExp(NAME, 'g'))].map((part) => unquote(part[0]));
    if (parts.length === 1 && defined.has(parts[0] as string)) continue;
    references.push({ parts, at: (match.index ?? 0) + match[0].length - text.length, length: text.length });
  }
  return references;
}

/** Trino's `line L:C` of an offset (both from 1). */
export function lineAndColumn(sql: string, offset: number): string {
  const before = sql.slice(0, offset).split('\n');
  return `line ${before.length}:${(before.at(-1) ?? '').length + 1}`;
}

/**
 * An ExecutionParameters value as Athena reads it: a quoted string literal (`''` for a quote)
 * or a number is that value; anything that is not a literal (a bare word, unbalanced quotes)
 * Athena takes as the text of a string literal, and so does this.
 */
export function parameterValue(text: string): LakeParam {
  const quoted = /^'((?:[^']|'')*)'$/s.exec(text.trim());
  if (quoted !== null) return (quoted[1] as string).replaceAll("''", "'");
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text.trim())) return Number(text.trim());
  return text;
}
