/**
 * Canonical JSON: the bytes the service signs. Object keys sorted by Unicode code
 * point, no whitespace, non-ASCII as raw UTF-8, the JSON short escapes kept
 * (`\"` `\\` `\b` `\f` `\n` `\r` `\t`, other control characters as `\u00xx`), and
 * every number, `true`, `false` and `null` copied as its original token, so `2.0`
 * stays `2.0` and integers beyond 2^53 stay exact. This is what Python's
 * `json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`
 * writes for the value the body holds.
 *
 * It works on the body's bytes, not on parsed values: parsed values lose number
 * spelling and reorder integer-like keys, and re-encoding strings costs more than
 * the HMAC itself. It is also the ingress's JSON syntax check, so that a body
 * refused for its signature is never parsed: for valid UTF-8 input (the caller's
 * to check) it refuses with a SyntaxError what JSON.parse refuses, misspelled
 * numbers and literals included, but one thing: a raw control character inside a
 * string is copied as it is (finding one would cost a second pass over every
 * plain run). The service escapes them, so such a body never matches a signature;
 * rawControlInString tells it apart where an answer depends on it.
 */

export class DuplicateKeyError extends Error {
  constructor(readonly key: string) {
    super(`duplicate key ${JSON.stringify(key)} in one object`);
    this.name = 'DuplicateKeyError';
  }
}

/** Nesting deeper than the sender's own JSON encoder can produce (Python stops near 1,000). */
export class NestingTooDeepError extends Error {
  constructor(readonly limit: number) {
    super(`nesting deeper than ${limit} levels`);
    this.name = 'NestingTooDeepError';
  }
}

export const MAX_NESTING_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_U = 0x75;

/** Short escapes by the escaped letter: b f n r t and the two that stay escaped (1 = kept as is). */
const SHORT_ESCAPE_LETTERS = new Uint8Array(256);
for (const letter of [0x62, 0x66, 0x6e, 0x72, 0x74, QUOTE, BACKSLASH]) SHORT_ESCAPE_LETTERS[letter] = 1;

/** Plain runs are first scanned this far in JavaScript; beyond it a native search and copy is cheaper. */
const SHORT_RUN = 64;
/** Four copies of a byte, and the masks of the zero-byte test (a byte of x is zero iff (x - LOW) & ~x & HIGH). */
const QUOTE_WORD = 0x22222222;
const BACKSLASH_WORD = 0x5c5c5c5c;
const LOW_BITS = 0x01010101;
const HIGH_BITS = 0x80808080 | 0;
/** Control characters that have a short escape, by code. */
const SHORT_ESCAPE_FOR = new Uint8Array(0x20);
for (const [control, letter] of [
  [0x08, 0x62],
  [0x0c, 0x66],
  [0x0a, 0x6e],
  [0x0d, 0x72],
  [0x09, 0x74],
] as const) {
  SHORT_ESCAPE_FOR[control] = letter;
}
const HEX_DIGITS = '0123456789abcdef';

/** Value of two hex digit bytes (first << 8 | second), -1 for anything else: an escape's four digits are two lookups. */
const HEX_PAIRS = new Int16Array(0x10000).fill(-1);
{
  const digits = [...HEX_DIGITS, ...HEX_DIGITS.slice(10).toUpperCase()];
  for (const first of digits) {
    for (const second of digits) {
      HEX_PAIRS[(first.charCodeAt(0) << 8) | second.charCodeAt(0)] = Number.parseInt(first + second, 16);
    }
  }
}

interface Member {
  /** Where the member (`"key":value`) starts and ends in the output. */
  start: number;
  end: number;
  /** The key's bytes between its quotes, as rendered. */
  keyStart: number;
  keyEnd: number;
  /** The rendered key holds an escape, so its bytes do not sort like its code points. */
  keyEscaped: boolean;
  /**
   * The key's first RANK_BYTES sort bytes as one number, set when a large object
   * is sorted (most comparisons then end on it); 0 until then, which decides nothing.
   */
  rank: number;
  /**
   * The key as bytes that sort like its code points (UTF-8, surrogates encoded
   * alike): the rendered key itself unless it holds an escape, else decoded.
   */
  sortBytes: Buffer;
  sortStart: number;
  sortEnd: number;
  /**
   * The key holds a lone surrogate (only possible escaped), so it is compared as
   * text, as before: such a body cannot have been signed, but its rendering stays
   * what it was.
   */
  loneSurrogate: boolean;
}

function malformed(at: number): Error {
  return new SyntaxError(`malformed JSON at byte ${at}`);
}

/** Read/write positions shared with the helpers below, which keep them in locals while they run. */
interface Cursor {
  /** Next byte to read from the input. */
  i: number;
  /** Next byte to write to the output. */
  o: number;
  /**
   * Positions of the next quote and backslash at or after some earlier `i` (input
   * length when none). The first match after p is also the first after any i in
   * (p, match], so each is searched for once and reused until passed.
   */
  quote: number;
  backslash: number;
  /** The input and output as DataViews, for copying plain text four bytes at a time. */
  input: DataView;
  output: DataView;
}

interface Container {
  isObject: boolean;
  /** Output position of the opening brace or bracket. */
  open: number;
  members: Member[];
  /** Output position where the current member began. */
  memberStart: number;
  keyEnd: number;
  keyEscaped: boolean;
}

/**
 * Renders valid UTF-8 JSON in canonical form. The result views `into` when that
 * is large enough (the caller then owns reuse), otherwise a fresh buffer.
 * @throws DuplicateKeyError when an object repeats a key: the sender never does,
 *   and parsers disagree on which copy wins.
 * @throws NestingTooDeepError past MAX_NESTING_DEPTH.
 */
export function canonicalJson(input: Uint8Array, into?: Buffer): Buffer {
  const body = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const n = body.length;
  // The canonical form is never longer than the input: it only drops whitespace and shortens escapes.
  const out = into !== undefined && into.length >= n ? into : Buffer.allocUnsafe(n);
  decodedKeysEnd = 0;
  const cursor: Cursor = {
    i: 0,
    o: 0,
    quote: -1,
    backslash: -1,
    input: new DataView(body.buffer, body.byteOffset, n),
    output: outputView(out),
  };
  // An explicit stack instead of recursion: depth is bounded by a check, not by the call stack.
  const stack: Container[] = [];

  for (;;) {
    // A value starts here.
    cursor.i = skipWhitespace(body, cursor.i);
    const c = body[cursor.i];
    let closed = true;
    if (c === QUOTE) {
      copyString(body, out, cursor);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (stack.length >= MAX_NESTING_DEPTH) throw new NestingTooDeepError(MAX_NESTING_DEPTH);
      const isObject = c === OPEN_BRACE;
      const open = cursor.o;
      out[cursor.o++] = c;
      cursor.i = skipWhitespace(body, cursor.i + 1);
      if (body[cursor.i] === (isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        out[cursor.o++] = isObject ? CLOSE_BRACE : CLOSE_BRACKET;
        cursor.i++;
      } else {
        // Made only for a container with values: a body of empty ones allocates nothing per container.
        const container: Container = {
          isObject,
          open,
          members: isObject ? [] : NO_MEMBERS,
          memberStart: 0,
          keyEnd: 0,
          keyEscaped: false,
        };
        stack.push(container);
        if (isObject) beginMember(body, out, cursor, container);
        closed = false; // its first value comes next
      }
    } else {
      copyScalar(body, out, cursor);
    }
    if (!closed) continue;

    // A value ended: continue its container, closing any that end here.
    let nextValue = false;
    while (stack.length > 0 && !nextValue) {
      const container = stack[stack.length - 1] as Container;
      if (container.isObject) {
        container.members.push(member(out, container, cursor.o));
      }
      cursor.i = skipWhitespace(body, cursor.i);
      const next = body[cursor.i++];
      if (next === COMMA) {
        out[cursor.o++] = COMMA;
        if (container.isObject) beginMember(body, out, cursor, container);
        nextValue = true;
      } else if (next === (container.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        out[cursor.o++] = next;
        if (container.isObject) sortMembers(out, container, cursor.o);
        stack.pop();
        // The closed container was a value of its parent, which the loop continues with.
      } else {
        throw malformed(cursor.i - 1);
      }
    }
    if (!nextValue) break;
  }
  cursor.i = skipWhitespace(body, cursor.i);
  if (cursor.i !== n) throw malformed(cursor.i);
  return out.subarray(0, cursor.o);
}

/** A member that ends at `end`, with its key's sort bytes and rank. */
function member(out: Buffer, container: Container, end: number): Member {
  const keyStart = container.memberStart + 1;
  const keyEnd = container.keyEnd;
  let sortBytes = out;
  let sortStart = keyStart;
  let sortEnd = keyEnd;
  decodedLoneSurrogate = false;
  if (container.keyEscaped) {
    // Decoded at most once per key, where the old renderer decoded it to a string on its first comparison.
    if (decodedKeys.length - decodedKeysEnd < keyEnd - keyStart) {
      decodedKeys = Buffer.allocUnsafeSlow(Math.max(decodedKeys.length * 2, keyEnd - keyStart));
      decodedKeysEnd = 0;
    }
    sortBytes = decodedKeys;
    sortStart = decodedKeysEnd;
    sortEnd = decodeRenderedKey(out, keyStart, keyEnd, decodedKeys, sortStart);
    decodedKeysEnd = sortEnd;
  }
  return {
    start: container.memberStart,
    end,
    keyStart,
    keyEnd,
    keyEscaped: container.keyEscaped,
    rank: 0,
    sortBytes,
    sortStart,
    sortEnd,
    loneSurrogate: decodedLoneSurrogate,
  };
}

/** An array's members: never added to (only objects have members), so all arrays share one. */
const NO_MEMBERS: Member[] = [];

/** The output as a DataView, kept for the reused render buffer rather than made per call. */
let lastOutput: Buffer | undefined;
let lastOutputView: DataView | undefined;
function outputView(out: Buffer): DataView {
  if (out !== lastOutput || lastOutputView === undefined) {
    lastOutputView = new DataView(out.buffer, out.byteOffset, out.length);
    lastOutput = out;
  }
  return lastOutputView;
}

/** Copies `"key":` at the cursor and records where the member starts. */
function beginMember(body: Buffer, out: Buffer, cursor: Cursor, container: Container): void {
  cursor.i = skipWhitespace(body, cursor.i);
  if (body[cursor.i] !== QUOTE) throw malformed(cursor.i);
  container.memberStart = cursor.o;
  container.keyEscaped = copyString(body, out, cursor);
  container.keyEnd = cursor.o - 1;
  cursor.i = skipWhitespace(body, cursor.i);
  if (body[cursor.i] !== COLON) throw malformed(cursor.i);
  out[cursor.o++] = COLON;
  cursor.i++;
}

/** Scratch space for reordering members; reused across calls (all synchronous). */
let scratch = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * Puts a closed object's members (already written to `out`, ending at `end`) in
 * key order. The longest member (a transcript's text) is moved once, within
 * `out`; only the others pass through scratch space, so a large value nested in
 * several unsorted objects is not copied twice per level.
 */
function sortMembers(out: Buffer, container: Container, end: number): void {
  const { members, open } = container;
  if (members.length < 2) return;
  if (!(members.length <= INSERTION_SORT_UP_TO ? insertionSort(out, members) : sortManyMembers(out, members))) return;
  if (scratch.length < end - open) scratch = Buffer.allocUnsafeSlow(end - open);
  if (end - open <= SMALL_OBJECT) {
    reorderSmallObject(out, members, open, end);
    return;
  }
  let longest = members[0] as Member;
  let longestAt = open + 1; // where the longest member starts once sorted
  for (let m = 1, at = open + 1; m < members.length; m++) {
    const previous = members[m - 1] as Member;
    at += previous.end - previous.start + 1;
    const member = members[m] as Member;
    if (member.end - member.start > longest.end - longest.start) {
      longest = member;
      longestAt = at;
    }
  }
  // Scratch holds the bytes before the longest member, then those after it.
  const before = longest.start - open;
  out.copy(scratch, 0, open, longest.start);
  out.copy(scratch, before, longest.end, end);
  out.copyWithin(longestAt, longest.start, longest.end);
  let w = open + 1;
  for (let m = 0; m < members.length; m++) {
    const member = members[m] as Member;
    if (m > 0) out[w++] = COMMA;
    if (member === longest) {
      w += member.end - member.start;
      continue;
    }
    const from = member.start < longest.start ? member.start - open : member.start - longest.end + before;
    w += scratch.copy(out, w, from, from + member.end - member.start);
  }
}

/** Objects up to this many bytes are reordered by JavaScript loops: shorter than the setup of a native copy. */
const SMALL_OBJECT = 96;

function reorderSmallObject(out: Buffer, members: Member[], open: number, end: number): void {
  for (let k = open; k < end; k++) scratch[k - open] = out[k] as number;
  let w = open + 1;
  for (let m = 0; m < members.length; m++) {
    const member = members[m] as Member;
    if (m > 0) out[w++] = COMMA;
    for (let k = member.start - open; k < member.end - open; k++) out[w++] = scratch[k] as number;
  }
}

/** Objects up to this many members are sorted by insertion: no comparator closure or library call for a webhook's few keys. */
const INSERTION_SORT_UP_TO = 16;

/**
 * Sorts in place; false when the members were in order already. Every pair that
 * ends up adjacent is compared on the way, so a duplicate key always throws.
 */
function insertionSort(out: Buffer, members: Member[]): boolean {
  let moved = false;
  for (let m = 1; m < members.length; m++) {
    const member = members[m] as Member;
    let k = m - 1;
    while (k >= 0 && compareKeys(out, members[k] as Member, member) > 0) {
      members[k + 1] = members[k] as Member;
      k--;
    }
    if (k !== m - 1) {
      members[k + 1] = member;
      moved = true;
    }
  }
  return moved;
}

/** Index bits below a member's 32-bit rank in a sort number: 2^21 members need more than a 1 MiB body. */
const INDEX_BITS = 2 ** 21;
const RANK_32 = 2 ** 16; // dividing a 48-bit rank by this leaves its first four bytes

/**
 * Sorts many members in place; false when they were in order already. A typed
 * array of numbers (first four key bytes, then index) is sorted natively, with no
 * comparator calls; only members alike in those bytes are then compared in full,
 * which also compares every pair that could be a duplicate (keys that differ in
 * their first four bytes differ).
 */
function sortManyMembers(out: Buffer, members: Member[]): boolean {
  if (members.length >= INDEX_BITS || members.some((member) => member.loneSurrogate)) {
    return librarySort(out, members); // keys compared as text sort only by comparison
  }
  const order = new Float64Array(members.length);
  for (let m = 0; m < members.length; m++) {
    const member = members[m] as Member;
    member.rank = rankOf(member.sortBytes, member.sortStart, member.sortEnd);
    order[m] = Math.floor(member.rank / RANK_32) * INDEX_BITS + m;
  }
  order.sort();
  const unsorted = members.slice();
  let moved = false;
  for (let m = 0; m < members.length; m++) {
    const from = (order[m] as number) % INDEX_BITS;
    if (from !== m) moved = true;
    members[m] = unsorted[from] as Member;
  }
  // Runs of members alike in their first four bytes, in full order.
  for (let start = 0; start < members.length; ) {
    const rank32 = Math.floor((order[start] as number) / INDEX_BITS);
    let end = start + 1;
    while (end < members.length && Math.floor((order[end] as number) / INDEX_BITS) === rank32) end++;
    if (end - start > 1) {
      const run = members.slice(start, end);
      if (run.length <= INSERTION_SORT_UP_TO ? insertionSort(out, run) : librarySort(out, run)) {
        moved = true;
        for (let m = start; m < end; m++) members[m] = run[m - start] as Member;
      }
    }
    start = end;
  }
  return moved;
}

/** Sorts in place; false when the members were in order already. */
function librarySort(out: Buffer, members: Member[]): boolean {
  const compare = (a: Member, b: Member): number => compareKeys(out, a, b);
  // Every adjacent pair is compared, so a duplicate key is found here or by the sort.
  let sorted = true;
  for (let m = 1; m < members.length; m++) {
    if (compare(members[m - 1] as Member, members[m] as Member) > 0) sorted = false;
  }
  if (sorted) return false;
  members.sort(compare);
  return true;
}

function skipWhitespace(body: Buffer, from: number): number {
  let i = from;
  for (;;) {
    const c = body[i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** Copies a number, `true`, `false` or `null` token as it is spelled, refusing any other spelling. */
function copyScalar(body: Buffer, out: Buffer, cursor: Cursor): void {
  const end = scalarEnd(body, cursor.i);
  let o = cursor.o;
  for (let i = cursor.i; i < end; i++) out[o++] = body[i] as number;
  cursor.i = end;
  cursor.o = o;
}

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const LOWER_E = 0x65;
/** 1 for the bytes of the digits 0-9 (an index past the input reads undefined, no digit). */
const DIGIT = new Uint8Array(256);
for (let digit = ZERO; digit <= 0x39; digit++) DIGIT[digit] = 1;
const LITERALS = new Map(['true', 'false', 'null'].map((word) => [word.charCodeAt(0), Buffer.from(word)]));

/** Where the scalar token starting at `start` ends: JSON's number grammar, or one of the three literals. */
function scalarEnd(body: Buffer, start: number): number {
  const literal = LITERALS.get(body[start] as number);
  if (literal !== undefined) {
    for (let k = 1; k < literal.length; k++) if (body[start + k] !== literal[k]) throw malformed(start + k);
    return start + literal.length;
  }
  let i = start;
  if (body[i] === MINUS) i++;
  // The integer part: 0 alone, or digits not starting with 0.
  i = body[i] === ZERO ? i + 1 : digitsEnd(body, i);
  if (body[i] === DOT) i = digitsEnd(body, i + 1);
  if (((body[i] as number) | 0x20) === LOWER_E) {
    i++;
    if (body[i] === PLUS || body[i] === MINUS) i++;
    i = digitsEnd(body, i);
  }
  return i;
}

/** The end of the one or more digits at `from`. */
function digitsEnd(body: Buffer, from: number): number {
  if (DIGIT[body[from] as number] !== 1) throw malformed(from);
  let i = from + 1;
  while (DIGIT[body[i] as number] === 1) i++;
  return i;
}

/**
 * Whether a string in the body holds a raw control character (below U+0020),
 * which JSON refuses and canonicalJson copies. One pass over the bytes, for the
 * ingress's rare answers that depend on it (a body refused for its signature).
 */
export function rawControlInString(body: Uint8Array): boolean {
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as number;
    if (!inString) {
      if (c === QUOTE) inString = true;
    } else if (c === QUOTE) {
      inString = false;
    } else if (c === BACKSLASH) {
      i++; // the escaped byte, whatever it is, does not end the string
    } else if (c < 0x20) {
      return true;
    }
  }
  return false;
}

/**
 * Copies the string at the cursor (an opening quote) in canonical form; true if
 * the output holds an escape. Runs between escapes are found with indexOf and
 * copied natively: byte-at-a-time copying in JavaScript costs as much as the HMAC.
 */
function copyString(body: Buffer, out: Buffer, cursor: Cursor): boolean {
  let i = cursor.i + 1;
  let o = cursor.o;
  let escaped = false;
  out[o++] = QUOTE;
  const { input, output } = cursor;
  const wordLimit = body.length - 4;
  for (;;) {
    // Copy plain bytes (ASCII or raw UTF-8, kept as is) up to the next quote or
    // backslash: four at a time while no byte of the word is either, then byte by
    // byte; a run longer than SHORT_RUN is finished by native search and copy.
    const limit = Math.min(i + SHORT_RUN, wordLimit);
    let stops = 0;
    while (i <= limit) {
      const word = input.getInt32(i, true);
      stops = stopBytes(word);
      // The word is written whole; bytes past a stop are overwritten by what follows it.
      output.setInt32(o, word, true);
      if (stops !== 0) break;
      i += 4;
      o += 4;
    }
    if (stops !== 0) {
      // The lowest flagged byte is the first stop (flags above a real one may be false).
      const before = (31 - Math.clz32(stops & -stops)) >> 3;
      i += before;
      o += before;
    } else if (i < wordLimit) {
      if (cursor.quote < i) cursor.quote = nextIndex(body, QUOTE, i);
      if (cursor.backslash < i) cursor.backslash = nextIndex(body, BACKSLASH, i);
      if (cursor.quote === body.length) throw malformed(i);
      const runEnd = Math.min(cursor.quote, cursor.backslash);
      o += body.copy(out, o, i, runEnd);
      i = runEnd;
    } else {
      // Fewer than four bytes before the end of the input.
      for (;;) {
        const c = body[i];
        if (c === QUOTE || c === BACKSLASH) break;
        if (c === undefined) throw malformed(i);
        out[o++] = c;
        i++;
      }
    }
    if (body[i] === QUOTE) break;

    const letter = body[i + 1] as number;
    if (letter !== LOWER_U) {
      if (SHORT_ESCAPE_LETTERS[letter] === 1) {
        out[o++] = BACKSLASH;
        out[o++] = letter;
        escaped = true;
      } else if (letter === 0x2f) {
        out[o++] = 0x2f; // `\/` is just `/`
      } else {
        throw malformed(i);
      }
      i += 2;
      continue;
    }
    const unit = readHex4(body, i + 2);
    i += 6;
    if (unit >= 0xd800 && unit <= 0xdbff && body[i] === BACKSLASH && body[i + 1] === LOWER_U) {
      const low = readHex4(body, i + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        o = writeUtf8(out, o, 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00));
        i += 6;
        continue;
      }
    }
    if (unit < 0x20 || unit === QUOTE || unit === BACKSLASH) {
      const short = unit === QUOTE || unit === BACKSLASH ? unit : (SHORT_ESCAPE_FOR[unit] as number);
      if (short === 0) {
        o = writeUnicodeEscape(out, o, unit);
      } else {
        out[o++] = BACKSLASH;
        out[o++] = short;
      }
      escaped = true;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      // A lone surrogate has no UTF-8 form; the sender cannot have signed it, so any rendering fails to verify.
      o = writeUnicodeEscape(out, o, unit);
      escaped = true;
    } else {
      o = writeUtf8(out, o, unit);
    }
  }
  out[o++] = QUOTE;
  cursor.i = i + 1;
  cursor.o = o;
  return escaped;
}

/**
 * The high bit of each byte of the word (little-endian) that may be a quote or a
 * backslash, zero when none is: a byte of `word ^ byte×4` is zero exactly there.
 */
function stopBytes(word: number): number {
  const quotes = word ^ QUOTE_WORD;
  const backslashes = word ^ BACKSLASH_WORD;
  return (((quotes - LOW_BITS) & ~quotes) | ((backslashes - LOW_BITS) & ~backslashes)) & HIGH_BITS;
}

function nextIndex(body: Buffer, byte: number, from: number): number {
  const at = body.indexOf(byte, from);
  return at === -1 ? body.length : at;
}

function readHex4(body: Buffer, at: number): number {
  if (at + 4 > body.length) throw malformed(at);
  const high = HEX_PAIRS[((body[at] as number) << 8) | (body[at + 1] as number)] as number;
  const low = HEX_PAIRS[((body[at + 2] as number) << 8) | (body[at + 3] as number)] as number;
  const unit = (high << 8) | low;
  if (high < 0 || low < 0) throw malformed(at);
  return unit;
}

function writeUtf8(out: Buffer, at: number, codePoint: number): number {
  let o = at;
  if (codePoint < 0x80) {
    out[o++] = codePoint;
  } else if (codePoint < 0x800) {
    out[o++] = 0xc0 | (codePoint >> 6);
    out[o++] = 0x80 | (codePoint & 0x3f);
  } else if (codePoint < 0x10000) {
    out[o++] = 0xe0 | (codePoint >> 12);
    out[o++] = 0x80 | ((codePoint >> 6) & 0x3f);
    out[o++] = 0x80 | (codePoint & 0x3f);
  } else {
    out[o++] = 0xf0 | (codePoint >> 18);
    out[o++] = 0x80 | ((codePoint >> 12) & 0x3f);
    out[o++] = 0x80 | ((codePoint >> 6) & 0x3f);
    out[o++] = 0x80 | (codePoint & 0x3f);
  }
  return o;
}

function writeUnicodeEscape(out: Buffer, at: number, unit: number): number {
  let o = at;
  out[o++] = BACKSLASH;
  out[o++] = LOWER_U;
  for (let shift = 12; shift >= 0; shift -= 4) out[o++] = HEX_DIGITS.charCodeAt((unit >> shift) & 0xf);
  return o;
}

/** A key as text, for the duplicate key's error and keys compared as text. */
function keyText(out: Buffer, member: Member): string {
  return member.keyEscaped
    ? (JSON.parse(out.toString('utf8', member.keyStart - 1, member.keyEnd + 1)) as string)
    : out.toString('utf8', member.keyStart, member.keyEnd);
}

/** Orders keys by code point: by rank when set, then by their sort bytes (UTF-8 byte order is code point order). */
function compareKeys(out: Buffer, a: Member, b: Member): number {
  let order: number;
  if (a.loneSurrogate || b.loneSurrogate) {
    order = compareCodePoints(keyText(out, a), keyText(out, b));
  } else {
    order = a.rank - b.rank;
    if (order === 0) order = compareSortBytes(a, b);
  }
  if (order === 0) throw new DuplicateKeyError(keyText(out, a));
  return order;
}

/** Past this many bytes a native comparison is cheaper than a JavaScript loop. */
const NATIVE_COMPARE_FROM = 16;

function compareSortBytes(a: Member, b: Member): number {
  const aLength = a.sortEnd - a.sortStart;
  const bLength = b.sortEnd - b.sortStart;
  const length = Math.min(aLength, bLength);
  if (length > NATIVE_COMPARE_FROM) {
    return a.sortBytes.compare(b.sortBytes, b.sortStart, b.sortEnd, a.sortStart, a.sortEnd);
  }
  const aStart = a.sortStart;
  const bStart = b.sortStart;
  for (let k = 0; k < length; k++) {
    const order = (a.sortBytes[aStart + k] as number) - (b.sortBytes[bStart + k] as number);
    if (order !== 0) return order;
  }
  return aLength - bLength;
}

/**
 * The first RANK_BYTES bytes as a number, zero-padded: a smaller rank is a
 * smaller key (a shorter key that is a prefix pads with zeros, the smallest byte);
 * equal ranks say nothing, and the bytes decide.
 */
function rankOf(bytes: Buffer, start: number, end: number): number {
  let rank = 0;
  for (let k = start; k < start + RANK_BYTES; k++) rank = rank * 256 + (k < end ? (bytes[k] as number) : 0);
  return rank;
}

/** Six bytes: 48 bits, exact in a double. */
const RANK_BYTES = 6;

/** Where escaped keys are decoded for sorting; reused across calls (all synchronous), written from decodedKeysEnd. */
let decodedKeys = Buffer.allocUnsafeSlow(16 * 1024);
let decodedKeysEnd = 0;
/** Set by decodeRenderedKey when the key it decoded holds a lone surrogate. */
let decodedLoneSurrogate = false;

/** The control character each short escape letter stands for (the quote and backslash stand for themselves). */
const CONTROL_FOR_LETTER = new Uint8Array(128);
for (let control = 0; control < SHORT_ESCAPE_FOR.length; control++) {
  const letter = SHORT_ESCAPE_FOR[control] as number;
  if (letter !== 0) CONTROL_FOR_LETTER[letter] = control;
}
CONTROL_FOR_LETTER[QUOTE] = QUOTE;
CONTROL_FOR_LETTER[BACKSLASH] = BACKSLASH;

/**
 * Decodes a rendered key (`out[start..end)`, between its quotes) into `into` at
 * `at`; returns where it ends. A rendered key holds only the escapes copyString
 * writes: the short ones and lowercase `\u` for controls and lone surrogates.
 */
function decodeRenderedKey(out: Buffer, start: number, end: number, into: Buffer, at: number): number {
  let w = at;
  for (let k = start; k < end; ) {
    const c = out[k] as number;
    if (c !== BACKSLASH) {
      into[w++] = c;
      k++;
    } else if (out[k + 1] === LOWER_U) {
      const unit = readHex4(out, k + 2);
      if (unit >= 0xd800 && unit <= 0xdfff) decodedLoneSurrogate = true;
      w = writeUtf8(into, w, unit);
      k += 6;
    } else {
      into[w++] = CONTROL_FOR_LETTER[out[k + 1] as number] as number;
      k += 2;
    }
  }
  return w;
}

/**
 * Orders strings by Unicode code point (Python's str order). JavaScript's `<`
 * compares UTF-16 code units, which puts U+E000..U+FFFF after astral characters.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let k = 0; k < length; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
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
