/**
 * Text that others wrote (participants' display names, what they said, titles,
 * reasons the service gives) made safe to show: no character that a terminal or a
 * caption player would act on instead of showing.
 *
 * Removed: C0 controls (ESC starts the sequences that write the clipboard, OSC 52,
 * or forge links, OSC 8), DEL, C1 controls (U+009B is a CSI on its own), and the
 * bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
 * reorder what follows them on the line (another column, another name) so it reads
 * other than it is. The bidi marks (U+200E, U+200F, U+061C) stay: they reorder
 * nothing, and right-to-left names need them. JSON keeps the exact text: its
 * escapes (`\u001b`) show a character without acting on it.
 */

/** DEL, C1 and the bidi embeddings, overrides and isolates (as regular expression ranges). */
const BEYOND_C0 = '\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
/** What is removed everywhere: the above and C0 but newline and tab, which the caller decides on. */
const CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${BEYOND_C0}]`, 'g');
/** What a JSON text may still hold raw: JSON.stringify escapes only C0. */
const RAW_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

/**
 * Text for a terminal or a text file: controls removed; newlines (and tabs) kept
 * where the output is several lines (`keepLines`), else every run of whitespace is one space.
 * A carriage return, which would let a line overwrite what came before it, is removed
 * (a space on one line).
 */
export function withoutControls(text: string, options: { keepLines: boolean }): string {
  if (options.keepLines) return text.replace(CONTROLS, '');
  return text.replace(/\s+/g, ' ').replace(CONTROLS, '').trim();
}

/** A JSON text with the characters JSON.stringify leaves raw escaped: the same value, safe on a terminal. */
export function escapeControlsInJson(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
