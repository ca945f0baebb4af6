/**
 * A transcript as captions and text: WebVTT, SubRip and one line per utterance. Pure: the
 * utterances in, the document out. Empty utterances are left out. A cue lasts its utterance's
 * `duration_ms`; without one, until the next cue starts; never shorter than MIN_CUE_MS.
 * Names and words are the participants': control characters are removed (a terminal
 * showing the file, or a player, would act on them); the JSON format keeps them.
 */
import { withoutControls } from '../text/control-characters';
import type { UtteranceView } from './read-api-contract';

/** Shortest cue shown, so a cue without a length (or a zero one) is still readable. */
export const MIN_CUE_MS = 500;
/** Length of a last cue that has no duration. */
export const DEFAULT_LAST_CUE_MS = 3_000;

interface Cue {
  startMs: number;
  endMs: number;
  speaker: string;
  text: string;
}

/** Line breaks would end a cue (a blank line) or split a text line: every run of whitespace is one space. */
const oneLine = (value: string): string => withoutControls(value, { keepLines: false });

export function transcriptCues(utterances: readonly UtteranceView[]): Cue[] {
  const spoken = utterances
    .map((u) => ({ ...u, text: oneLine(u.text) }))
    .filter((u) => u.text !== '')
    .sort((a, b) => a.offset_ms - b.offset_ms);
  return spoken.map((u, i) => {
    const next = spoken[i + 1]?.offset_ms;
    const end =
      u.duration_ms !== null && u.duration_ms > 0
        ? u.offset_ms + u.duration_ms
        : next !== undefined && next > u.offset_ms
          ? next
          : u.offset_ms + DEFAULT_LAST_CUE_MS;
    return {
      startMs: u.offset_ms,
      endMs: Math.max(end, u.offset_ms + MIN_CUE_MS),
      speaker: oneLine(u.speaker_name) || oneLine(u.speaker_uuid) || 'Unknown speaker',
      text: u.text,
    };
  });
}

/** `HH:MM:SS` then `.mmm` or `,mmm`; hours take more digits past 99. */
function clock(ms: number, fraction?: '.' | ','): string {
  const whole = Math.max(0, Math.round(ms));
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const base = `${pad(hours)}:${pad(minutes)}:${pad(seconds)}`;
  return fraction === undefined ? base : `${base}${fraction}${pad(whole % 1000, 3)}`;
}

/** WebVTT's escapes for cue text and voice annotations. */
const escapeVtt = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function toWebVtt(utterances: readonly UtteranceView[]): string {
  const cues = transcriptCues(utterances).map(
    (cue) =>
      `${clock(cue.startMs, '.')} --> ${clock(cue.endMs, '.')}\n<v ${escapeVtt(cue.speaker)}>${escapeVtt(cue.text)}</v>`,
  );
  return `WEBVTT\n\n${cues.map((cue) => `${cue}\n\n`).join('')}`;
}

/** SubRip has no escapes: an arrow in the text would read as a timing line, so it is shortened. */
const srtText = (value: string): string => value.replace(/-->/g, '->');

export function toSrt(utterances: readonly UtteranceView[]): string {
  return transcriptCues(utterances)
    .map(
      (cue, i) =>
        `${i + 1}\n${clock(cue.startMs, ',')} --> ${clock(cue.endMs, ',')}\n${srtText(`${cue.speaker}: ${cue.text}`)}\n\n`,
    )
    .join('');
}

export function toPlainText(utterances: readonly UtteranceView[]): string {
  return transcriptCues(utterances)
    .map((cue) => `[${clock(cue.startMs)}] ${cue.speaker}: ${cue.text}\n`)
    .join('');
}
