/** `search <words>`: every meeting's transcript lines that say them, all time by default, newest first. */
import type { TranscriptHit, TranscriptSearchPage } from '../../lambdas/core/lake/lake-questions-contract';
import { searchTranscripts } from '../../lambdas/core/lake/lake-search';
import { withoutControls } from '../../lambdas/core/text/control-characters';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { costLine, withLakeEngine } from '../lake-engine';
import { writeErr } from '../terminal';

/** Hits a page at most (lake-questions-contract.ts: 1–100). */
export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 20;

/** A `yyyy-MM-dd` that is a real day, or a usage error naming the flag. */
export function dayFlag(flag: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const day = match === null ? undefined : new Date(`${text}T00:00:00.000Z`);
  if (day === undefined || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text)
    throw new UsageError(`--${flag} takes a day as YYYY-MM-DD (UTC), not ${JSON.stringify(text)}`);
  return text;
}

/** A field of a hit on one line: the outside world's text, so no control character and no line break. */
const flat = (text: string) => withoutControls(text, { keepLines: false });

/** `2026-11-24  bot_x  [00:12:03]  Alice: …we talked pricing…` */
export const hitLine = (hit: TranscriptHit): string =>
  `${hit.day}  ${flat(hit.bot_id)}  [${hit.offset}]  ${flat(hit.speaker)}: ${flat(hit.snippet)}`;

/** A word for a POSIX shell: as is when it is plain, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

export const search = defineCommand({
  words: ['search'],
  args: ['<words>'],
  summary:
    'Transcript lines of every meeting that say <words> (as one phrase, any case), all time by default, newest first, a page at a time: from the meetings lake (Athena in AWS, DuckDB in local mode).',
  usage: '[--from YYYY-MM-DD] [--to YYYY-MM-DD] [--speaker NAME] [--limit N] [--cursor C]',
  flags: `  --from YYYY-MM-DD       only meetings of this day or later (UTC); a range prunes what is scanned
  --to YYYY-MM-DD         only meetings of this day or earlier (UTC)
  --speaker NAME          only lines of speakers whose name contains NAME (any case)
  --limit N               hits a page, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT})
  --cursor C              the page after the one that printed this cursor`,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    speaker: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
  },
  async run({ values, args, target }) {
    const words = args[0] ?? '';
    if (words.trim() === '') throw new UsageError('search needs words to find, e.g. search "pricing"');
    const from = dayFlag('from', values.from);
    const to = dayFlag('to', values.to);
    if (from !== undefined && to !== undefined && from > to)
      throw new UsageError(`--from ${from} is after --to ${to}: the range would be empty`);
    const limit = wholeNumber('limit', values.limit, 1, MAX_SEARCH_LIMIT);
    const input = {
      words,
      ...(from !== undefined && { from }),
      ...(to !== undefined && { to }),
      ...(values.speaker !== undefined && { speaker: values.speaker }),
      ...(limit !== undefined && { limit }),
      ...(values.cursor !== undefined && { cursor: values.cursor }),
    };
    const page = await withLakeEngine(await target(), (engine, options) => searchTranscripts(engine, input, options));
    if (values.json === true) {
      printJson(page);
      return undefined;
    }
    for (const hit of page.hits) print(hitLine(hit));
    writeErr(`${footer(page)}\n`);
    if (page.next_cursor !== null) {
      const line = [
        'meeting-pipeline',
        'search',
        words,
        ...flagWords({ ...values, cursor: page.next_cursor }, ['from', 'to', 'speaker', 'limit', 'cursor']),
        ...flagWords(values, ['stack', 'region', 'endpoints-file'], ['local']),
      ];
      writeErr(`next page: ${line.map(shellWord).join(' ')}\n`);
    }
    return undefined;
  },
});

const footer = (page: TranscriptSearchPage) =>
  `${page.hits.length === 0 ? 'no hits' : `${page.hits.length} ${page.hits.length === 1 ? 'hit' : 'hits'}`}${page.next_cursor === null ? '' : `, searched back to ${page.searched_through}, more on the next page`} (${costLine(page)})`;

/** The given flags back as words: `--from 2026-01-01`, and `--local` for a boolean that was set. */
function flagWords(
  values: Record<string, string | boolean | undefined>,
  named: readonly string[],
  booleans: readonly string[] = [],
): string[] {
  const words: string[] = [];
  for (const name of named) {
    const value = values[name];
    if (typeof value === 'string') words.push(`--${name}`, value);
  }
  for (const name of booleans) if (values[name] === true) words.push(`--${name}`);
  return words;
}
