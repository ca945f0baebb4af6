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

/** Help text's width: the terminal's, or 100 columns when stdout is no terminal. */
export const helpWidth = (): number =>
  process.stdout.isTTY && process.stdout.columns > 0 ? Math.max(60, process.stdout.columns) : 100;

/**
 * Text in lines of at most `width` characters: the lines of each paragraph are joined and
 * wrapped; an indented line (a table's row) stands alone, its text wrapped under its second column.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  const flush = () => {
    if (line !== '') lines.push(line);
    line = '';
  };
  for (const source of text.split('\n')) {
    if (source.trim() === '' || /^\s/.test(source)) {
      flush();
      lines.push(...tableRow(source.trimEnd(), width));
      continue;
    }
    for (const word of source.split(/\s+/).filter((w) => w !== '')) {
      if (line === '') line = word;
      else if (line.length + 1 + word.length <= width) line = `${line} ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
  }
  flush();
  return lines;
}

/** `  name   text…` in lines of `width`, the text's continuation aligned under its start. */
function tableRow(row: string, width: number): string[] {
  const columns = /^(\s+\S+\s{2,})(\S.*)$/.exec(row);
  if (row.length <= width || columns === null) return [row];
  const [, head = '', text = ''] = columns;
  const rest = wrap(text, Math.max(20, width - head.length));
  return rest.map((line, i) => (i === 0 ? `${head}${line}` : `${' '.repeat(head.length)}${line}`));
}

/**
 * A reader that stopped reading (`meeting-pipeline meetings list --all | head -3`) is no error:
 * the CLI stops at once and quietly, exit 0, as a command cut short by `head` is expected to.
 * Any other failure to write stdout or stderr ends it with one line, exit 1.
 */
export function exitQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      if (stream !== process.stderr)
        process.stderr.write(`meeting-pipeline: cannot write its output: ${error.message}\n`);
      process.exit(1);
    });
  }
}
