/** `transcript <bot> [--format json|text|vtt|srt]`: the API renders every format; this prints it. */
import {
  READ_API_ROUTES,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
  transcriptJson,
} from '../../lambdas/core/read/read-api-contract';
import { request, requestJson, routeUrl } from '../api';
import { defineCommand, printJson } from '../command';
import { UsageError } from '../exit-codes';
import { writeOut } from '../terminal';

const isFormat = (text: string): text is TranscriptFormat => (TRANSCRIPT_FORMATS as readonly string[]).includes(text);

export const transcript = defineCommand({
  words: ['transcript'],
  args: ['<bot>'],
  summary: 'A meeting\'s transcript: "[HH:MM:SS] Speaker: text" lines, WebVTT or SubRip captions, or JSON.',
  usage: `[--format ${TRANSCRIPT_FORMATS.join('|')}]`,
  flags: `  --format F              ${TRANSCRIPT_FORMATS.join(', ')} (default text; --json means json)`,
  options: { format: { type: 'string' } },
  async run({ values, args, target }) {
    const format = values.format ?? (values.json === true ? 'json' : 'text');
    if (!isFormat(format))
      throw new UsageError(`--format takes ${TRANSCRIPT_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
    const api = await target();
    const url = routeUrl(api, READ_API_ROUTES.transcript, { bot_id: args[0] ?? '' }, { format });
    if (format === 'json') {
      printJson((await requestJson(api, url, transcriptJson)).raw);
      return undefined;
    }
    const text = await (await request(api, url)).text();
    writeOut(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    return undefined;
  },
});
