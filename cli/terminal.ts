/**
 * Everything the CLI writes for people goes through here: text from the API
 * (names, titles, reasons) without the control characters a terminal would act
 * on (lambdas/core/text/control-characters.ts). JSON keeps every value exact, with
 * the characters JSON.stringify leaves raw escaped.
 */
import { escapeControlsInJson, withoutControls } from '../lambdas/core/text/control-characters';

/** Writes text, lines kept, to stdout. */
export const writeOut = (text: string): boolean => process.stdout.write(withoutControls(text, { keepLines: true }));

/** Writes text, lines kept, to stderr. */
export const writeErr = (text: string): boolean => process.stderr.write(withoutControls(text, { keepLines: true }));

/** A value as indented JSON, safe on a terminal and exact for a parser. */
export const terminalJson = (value: unknown): string => escapeControlsInJson(JSON.stringify(value, null, 2));
