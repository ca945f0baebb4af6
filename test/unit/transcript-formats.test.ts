/**
 * The transcript formats, read back by parsers from npm that share no code with ours:
 * webvtt-parser (a validating WebVTT parser, spec-following, with the HTML entity table)
 * and srt-parser-2.
 */
import { createRequire } from 'node:module';
import SrtParser from 'srt-parser-2';
import { describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import type { UtteranceView } from '../../lambdas/core/read/read-api-contract';
import { MIN_CUE_MS, toPlainText, toSrt, toWebVtt } from '../../lambdas/core/read/transcript-formats';

const entities = createRequire(import.meta.url)('webvtt-parser/html-entities.json') as Record<string, string>;
const parseVtt = (text: string) => new WebVTTParser(entities).parse(text, 'metadata');
const parseSrt = (text: string) => new SrtParser().fromSrt(text);

const HOUR = 3_600_000;

function utterance(offsetMs: number, speaker: string, text: string, durationMs: number | null = 1_500): UtteranceView {
  return {
    speaker_name: speaker,
    speaker_uuid: `uuid-${speaker.length}`,
    timestamp_ms: 1_767_225_600_000 + offsetMs,
    duration_ms: durationMs,
    text,
    offset_ms: offsetMs,
  };
}

const meeting: UtteranceView[] = [
  utterance(1_234, 'Ada', 'We ship on Thursday — café at 10?'),
  utterance(2_000, 'Grace', '', 800), // no transcription: left out
  utterance(4_000, 'Bob <admin> & co', 'if a < b && c > d then --> go'),
  utterance(9_000, 'Lin', 'line one\n\nline two'),
  utterance(HOUR + 61_001, 'Ada', 'past the hour', null),
  utterance(HOUR + 70_000, 'Ada', 'last words', null),
];

/** A cue's voice span: the speaker annotation and the text inside it, as the parser read them. */
function voiceOf(cue: {
  tree: { children: Array<{ name?: string; value?: string; children?: Array<{ value?: string }> }> };
}) {
  const [span] = cue.tree.children;
  return { name: span?.name, annotation: span?.value, text: (span?.children ?? []).map((c) => c.value).join('') };
}

describe('WebVTT', () => {
  const vtt = toWebVtt(meeting);
  const parsed = parseVtt(vtt);

  it('is valid WebVTT: a header, and a cue per spoken utterance, no errors', () => {
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues).toHaveLength(5);
  });

  it('times cues from the offsets, HH:MM:SS.mmm, past an hour too', () => {
    expect(parsed.cues.map((c) => [c.startTime, c.endTime])).toEqual([
      [1.234, 2.734],
      [4, 5.5],
      [9, 10.5],
      [3661.001, 3670], // no duration: until the next cue
      [3670, 3673], // the last, without a duration: a default length
    ]);
    expect(vtt).toContain('01:01:01.001 --> 01:01:10.000');
  });

  it('puts each speaker in a voice span and escapes text and names', () => {
    const voices = parsed.cues.map(voiceOf);
    expect(voices.every((v) => v.name === 'v')).toBe(true);
    expect(voices[0]).toEqual({ name: 'v', annotation: 'Ada', text: 'We ship on Thursday — café at 10?' });
    // The parser decodes the text's character references; a raw `<` would have opened a tag and lost text.
    expect(voices[1]?.text).toBe('if a < b && c > d then --> go');
    expect(voices[1]?.annotation).toBe('Bob &lt;admin&gt; &amp; co');
    expect(vtt).not.toMatch(/<(?!v |\/v>)/);
  });

  it('keeps a cue on its lines: line breaks in the text become spaces', () => {
    expect(voiceOf(parsed.cues[2] as never).text).toBe('line one line two');
  });

  it('gives a cue without a length at least the minimum', () => {
    const cues = parseVtt(toWebVtt([utterance(0, 'A', 'x', 0), utterance(0, 'B', 'y', null)])).cues;
    for (const cue of cues) expect((cue.endTime - cue.startTime) * 1000).toBeGreaterThanOrEqual(MIN_CUE_MS);
  });

  it('is a valid empty document for a transcript without speech', () => {
    const empty = parseVtt(toWebVtt([utterance(0, 'A', '   ')]));
    expect(empty.errors).toEqual([]);
    expect(empty.cues).toEqual([]);
  });
});

describe('SubRip', () => {
  const srt = toSrt(meeting);
  const cues = parseSrt(srt);

  it('numbers the cues from 1 and times them with comma milliseconds', () => {
    expect(cues.map((c) => c.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(cues.map((c) => [c.startTime, c.endTime])).toEqual([
      ['00:00:01,234', '00:00:02,734'],
      ['00:00:04,000', '00:00:05,500'],
      ['00:00:09,000', '00:00:10,500'],
      ['01:01:01,001', '01:01:10,000'],
      ['01:01:10,000', '01:01:13,000'],
    ]);
    expect(cues[3]?.startSeconds).toBeCloseTo(3661.001, 3);
  });

  it('labels each cue with its speaker, leaves out empty utterances, one line per cue', () => {
    expect(cues.map((c) => c.text)).toEqual([
      'Ada: We ship on Thursday — café at 10?',
      'Bob <admin> & co: if a < b && c > d then -> go',
      'Lin: line one line two',
      'Ada: past the hour',
      'Ada: last words',
    ]);
  });
});

describe('plain text', () => {
  it('is one `[HH:MM:SS] Speaker: text` line per spoken utterance', () => {
    expect(toPlainText(meeting).split('\n')).toEqual([
      '[00:00:01] Ada: We ship on Thursday — café at 10?',
      '[00:00:04] Bob <admin> & co: if a < b && c > d then --> go',
      '[00:00:09] Lin: line one line two',
      '[01:01:01] Ada: past the hour',
      '[01:01:10] Ada: last words',
      '',
    ]);
  });
});
