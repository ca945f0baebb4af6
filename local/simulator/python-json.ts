/**
 * The simulated service's JSON writer. The real service is a Python program that
 * writes webhooks with `json.dumps`; this reproduces that for JavaScript values,
 * written independently of the pipeline's own canonicalizer so that tests which
 * sign with it do not merely check the pipeline against itself.
 */

/** A number Python holds as a float: written `2.0`, `1e-07`, `1.5e+300`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** An integer beyond JavaScript's exact range, written digit for digit. */
export class PyInt {
  constructor(readonly value: bigint) {}
}

export type PyValue = null | boolean | number | string | PyFloat | PyInt | PyValue[] | { [key: string]: PyValue };

export interface DumpOptions {
  sortKeys: boolean;
  ensureAscii: boolean;
  itemSeparator: string;
  keySeparator: string;
}

/** `json.dumps(value)`: what the service puts on the wire. */
export const WIRE: DumpOptions = { sortKeys: false, ensureAscii: true, itemSeparator: ', ', keySeparator: ': ' };
/** `json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`: what it signs. */
export const SIGNED: DumpOptions = { sortKeys: true, ensureAscii: false, itemSeparator: ',', keySeparator: ':' };

export function dumps(value: PyValue, options: DumpOptions): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return quote(value, options.ensureAscii);
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : floatRepr(value);
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (value instanceof PyInt) return value.value.toString();
  if (Array.isArray(value)) return `[${value.map((item) => dumps(item, options)).join(options.itemSeparator)}]`;
  let keys = Object.keys(value);
  if (options.sortKeys) keys = keys.sort(byCodePoints);
  const members = keys.map(
    (key) => `${quote(key, options.ensureAscii)}${options.keySeparator}${dumps(value[key] as PyValue, options)}`,
  );
  return `{${members.join(options.itemSeparator)}}`;
}

function byCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function hex4(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

function quote(text: string, ensureAscii: boolean): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (code < 0x20 || (ensureAscii && code > 0x7e))
      out += hex4(code); // UTF-16 units: astral chars become surrogate pairs
    else out += char;
  }
  return `${out}"`;
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function floatRepr(value: number): string {
  if (!Number.isFinite(value)) throw new Error('the service never sends NaN or Infinity');
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${body}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}
