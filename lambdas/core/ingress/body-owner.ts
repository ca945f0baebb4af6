/**
 * The bot a refused body names (its top-level `bot_id`, as quarantineOwner reads it
 * from the parsed body), found without parsing the body: the top level is walked,
 * nested values are skipped, and only the `bot_id` value is decoded. Anyone can
 * POST a body, so filing one refused for its signature costs a glance at each of
 * its bytes, not a parse of every value it holds.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * `text` must be valid JSON (the ingress's rendering checked it); for anything else the
 * answer is undefined or a throw (a SyntaxError), never a loop. Like JSON.parse, the last
 * of repeated `bot_id` members counts.
 */
export function bodyOwner(text: string): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined; // not an object
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return undefined;
  let owner: string | undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) throw malformed(i);
    const keyStart = i;
    const keyEnd = stringEnd(text, keyStart);
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw malformed(i);
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (spellsOwnerKey(text, keyStart, keyEnd)) {
      owner = text.charCodeAt(valueStart) === QUOTE ? decodeString(text, valueStart, valueEnd) : undefined;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipWhitespace(text, i + 1);
  }
  return owner === '' ? undefined : owner;
}

function malformed(at: number): SyntaxError {
  return new SyntaxError(`not a JSON object member at ${at}`);
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

const OWNER_KEY = 'bot_id';

/**
 * Whether the key literal text[start, end) decodes to OWNER_KEY, compared as it is
 * read: a letter spelled raw or as a `\uXXXX` escape (no short escape stands for
 * one of its letters). Keys are never decoded, so a flood of escaped keys costs a
 * glance at each.
 */
function spellsOwnerKey(text: string, start: number, end: number): boolean {
  let matched = 0;
  for (let at = start + 1; at < end - 1; at++) {
    let code = text.charCodeAt(at);
    if (code === BACKSLASH) {
      if (text.charCodeAt(at + 1) !== 0x75) return false;
      code = Number.parseInt(text.slice(at + 2, at + 6), 16);
      at += 5;
    }
    if (code !== OWNER_KEY.charCodeAt(matched)) return false;
    matched++;
  }
  return matched === OWNER_KEY.length;
}

/** The string literal text[start, end): as it is between its quotes unless it holds an escape. */
function decodeString(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/** Just past the closing quote of the string opening at `start`: the next quote not escaped. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) throw malformed(start);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the value starting at `start`: a string, a whole object or array (nesting counted), or a scalar. */
function valueEndAt(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = stringEnd(text, i) - 1;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
        return i + 1;
      }
    }
    throw malformed(start);
  }
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    if (
      Number.isNaN(c) ||
      c === COMMA ||
      c === 0x7d ||
      c === 0x5d ||
      c === 0x20 ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09
    )
      return i;
    i++;
  }
}
