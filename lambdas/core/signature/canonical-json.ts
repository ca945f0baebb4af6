/**
 * Canonical JSON: the form the service signs. Object keys sorted by Unicode code
 * point, no whitespace, strings escaped as JSON.stringify escapes them (which, for
 * well-formed text, is what Python's `json.dumps(..., ensure_ascii=False)` emits)
 * and every number, `true`, `false` and `null` copied as its original token, so
 * `2.0` stays `2.0` and integers beyond 2^53 stay exact.
 *
 * The input must already be valid JSON (the caller runs JSON.parse first); this
 * pass only re-renders it. It works on the text rather than on parsed values
 * because parsed values lose number spelling and reorder integer-like keys.
 */

export class DuplicateKeyError extends Error {
  constructor(readonly key: string) {
    super(`duplicate key ${JSON.stringify(key)} in one object`);
    this.name = 'DuplicateKeyError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Nesting deeper than the sender's own JSON encoder can produce (Python stops near 1,000). */
export class NestingTooDeepError extends Error {
  constructor(readonly limit: number) {
    super(`nesting deeper than ${limit} levels`);
    this.name = 'NestingTooDeepError';
  }
}

export const MAX_NESTING_DEPTH = 1000;

interface Member {
  key: string;
  rendered: string;
}

/**
 * Renders valid JSON text in canonical form.
 * @throws DuplicateKeyError when an object repeats a key: the sender never does,
 *   and parsers disagree on which copy wins.
 * @throws NestingTooDeepError past MAX_NESTING_DEPTH, before recursion could overflow the stack.
 */
export function canonicalJson(text: string): string {
  let at = 0;
  let depth = 0;

  const skipWhitespace = (): void => {
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at++;
      else return;
    }
  };

  /** Reads the string token at `at` (an opening quote); returns its decoded value. */
  const readString = (): { value: string; rendered: string } => {
    const start = at + 1;
    let end = text.indexOf('"', start);
    const firstEscape = text.indexOf('\\', start);
    if (firstEscape === -1 || firstEscape > end) {
      // No escapes: the raw text is already canonical.
      at = end + 1;
      const value = text.slice(start, end);
      return { value, rendered: text.slice(start - 1, at) };
    }
    // A quote preceded by an odd run of backslashes is escaped; look further.
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    at = end + 1;
    const value = JSON.parse(text.slice(start - 1, at)) as string;
    return { value, rendered: JSON.stringify(value) };
  };

  const readScalar = (): string => {
    const start = at;
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || Number.isNaN(c)) {
        return text.slice(start, at);
      }
      at++;
    }
  };

  const readArray = (): string => {
    at++; // [
    skipWhitespace();
    if (text.charCodeAt(at) === CLOSE_BRACKET) {
      at++;
      return '[]';
    }
    const items: string[] = [];
    for (;;) {
      items.push(readValue());
      skipWhitespace();
      const c = text.charCodeAt(at++);
      if (c === CLOSE_BRACKET) return `[${items.join(',')}]`;
      // c is a comma: the text is valid JSON.
    }
  };

  const readObject = (): string => {
    at++; // {
    skipWhitespace();
    if (text.charCodeAt(at) === CLOSE_BRACE) {
      at++;
      return '{}';
    }
    const members: Member[] = [];
    for (;;) {
      skipWhitespace();
      const key = readString();
      skipWhitespace();
      at++; // :
      const value = readValue();
      members.push({ key: key.value, rendered: `${key.rendered}:${value}` });
      skipWhitespace();
      const c = text.charCodeAt(at++);
      if (c === CLOSE_BRACE) break;
    }
    if (members.length > 1) members.sort(compareMembers);
    let out = '{';
    for (let i = 0; i < members.length; i++) {
      if (i > 0) out += ',';
      out += (members[i] as Member).rendered;
    }
    return `${out}}`;
  };

  const readValue = (): string => {
    skipWhitespace();
    const c = text.charCodeAt(at);
    if (c === QUOTE) return readString().rendered;
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return readScalar();
    if (++depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError(MAX_NESTING_DEPTH);
    const rendered = c === OPEN_BRACE ? readObject() : readArray();
    depth--;
    return rendered;
  };

  return readValue();
}

// A comparison sort compares every pair that ends up adjacent, so equal keys
// always meet here: that is where duplicates are caught.
function compareMembers(a: Member, b: Member): number {
  const order = compareCodePoints(a.key, b.key);
  if (order === 0) throw new DuplicateKeyError(a.key);
  return order;
}

/**
 * Orders strings by Unicode code point (Python's str order). JavaScript's `<`
 * compares UTF-16 code units, which puts U+E000..U+FFFF after astral characters.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) - codePointRank(y);
      return x - y;
    }
  }
  return a.length - b.length;
}

// Surrogates (astral characters) rank above U+E000..U+FFFF.
function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
