/**
 * Meetings for the lake bench, generated from a seed (the same run gives the same rows): a day of
 * meetings of a company of a few hundred people, each an hour long with `utterances` lines of 6–25
 * words drawn from a made-up vocabulary with a few very common words (as speech has), two to eight
 * speakers and a few silent participants. One word, SEARCH_WORD, is in about 0.1 % of the lines and
 * nowhere else, so a keyword search has a known number of hits. The hostile meeting is the largest
 * a caller could make the writer take: very long lines and thousands of participants with long names.
 */
import type { LakeRow, LakeTableName } from '../lambdas/core/lake/lake-tables';
import { seededRandom } from '../local/seeded-random';

/** The word a keyword search looks for (the vocabulary cannot make it: its words are consonant-vowel pairs). */
export const SEARCH_WORD = 'pricing';
export const SEARCH_WORD_RATE = 0.001;

export type MeetingRows = Record<LakeTableName, LakeRow[]>;

/** mulberry32 (local/seeded-random.ts): small, fast, and good enough to spread words and speakers. */
const random = seededRandom;

const CONSONANTS = 'bdfgklmnstvz';
const VOWELS = 'aeiou';
const VOCABULARY: string[] = (() => {
  const next = random(7);
  const words = new Set<string>();
  while (words.size < 3000) {
    const syllables = 1 + Math.floor(next() * 3);
    let word = '';
    for (let i = 0; i < syllables; i++)
      word += (CONSONANTS[Math.floor(next() * CONSONANTS.length)] ?? 'k') + (VOWELS[Math.floor(next() * 5)] ?? 'a');
    words.add(word);
  }
  return [...words];
})();

const FIRST = [
  'Ada',
  'Bo',
  'Cleo',
  'Dev',
  'Edda',
  'Farid',
  'Gia',
  'Hugo',
  'Ines',
  'Jun',
  'Kofi',
  'Lena',
  'Mateo',
  'Nia',
];
const LAST = ['Abe', 'Brandt', 'Costa', 'Diallo', 'Eriksen', 'Fujita', 'Garcia', 'Haddad', 'Ivanova', 'Jensen', 'Kim'];
/** The company's people, each with a stable speaker and participant id. */
const PEOPLE = Array.from({ length: 400 }, (_, i) => ({
  name: `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]} ${Math.floor(i / 154) || ''}`.trim(),
  id: uuid(random(1000 + i)),
}));

function uuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

function botId(next: () => number): string {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `bot_${Array.from({ length: 16 }, () => chars[Math.floor(next() * chars.length)]).join('')}`;
}

/** A word, the first ones far more often than the rest. */
const word = (next: () => number) => VOCABULARY[Math.floor(next() ** 3 * VOCABULARY.length)] as string;

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(word(next));
  if (next() < SEARCH_WORD_RATE) out[Math.floor(next() * out.length)] = SEARCH_WORD;
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The rows of meeting `index` of `day` (yyyy-MM-dd). */
export function generateMeeting(day: string, index: number, utterances: number): MeetingRows {
  const next = random(Date.parse(day) / 86_400_000 + index * 7919);
  const bot_id = botId(next);
  const speakerCount = 2 + Math.floor(next() * 7);
  const people = Array.from(
    { length: speakerCount + Math.floor(next() * 4) },
    () => PEOPLE[Math.floor(next() * PEOPLE.length)]!,
  );
  const speakers = people.slice(0, speakerCount);
  const start = Date.parse(`${day}T07:00:00.000Z`) + Math.floor(next() * 12 * 3600) * 1000;
  const utteranceRows: LakeRow[] = [];
  let offset = 0;
  for (let seq = 0; seq < utterances; seq++) {
    const speaker = speakers[Math.floor(next() ** 1.5 * speakers.length)]!;
    const duration = 1500 + Math.floor(next() * 6000);
    utteranceRows.push({
      bot_id,
      seq,
      offset_ms: offset,
      duration_ms: duration,
      speaker: speaker.name,
      speaker_id: speaker.id,
      text: sentence(next, 6 + Math.floor(next() * 20)),
      language: 'en',
    });
    offset += duration + Math.floor(next() * 800);
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const end = start + offset;
  const scheduled = next() < 0.6;
  return {
    meetings: [
      {
        bot_id,
        state: 'ended',
        started_at: iso(start),
        ended_at: iso(end),
        duration_ms: end - start,
        utterance_count: utterances,
        participant_count: people.length,
        speaker_count: new Set(speakers.map((s) => s.id)).size,
        schedule_id: scheduled ? `sch_${bot_id.slice(4)}` : null,
        calendar_id: scheduled ? `cal_${Math.floor(next() * 50)}` : null,
        summary: Array.from({ length: 4 }, () => sentence(next, 12)).join(' '),
        archived_at: iso(end + 600_000),
        lake_version: iso(end + 600_000),
        // Every bench meeting recorded its lines to the end (no random draw: the other columns keep their data).
        outcome_status: 'recorded',
        outcome_reason: 'meeting_ended',
      },
    ],
    utterances: utteranceRows,
    participants: people.map((person, i) => ({
      bot_id,
      participant_id: uuid(next),
      name: person.name,
      user_id: person.id,
      is_host: i === 0,
      joined_at: iso(start + i * 20_000),
      left_at: iso(end),
    })),
  };
}

/** Letters and spaces without repeats a compressor could use: the worst case for file size. One flat string. */
function noise(next: () => number, length: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz     ';
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = letters.charCodeAt(Math.floor(next() * letters.length));
  return bytes.toString('latin1');
}

/** One meeting at the limits an attacker reaches: 600 lines of 20,000 characters, 5,000 participants named with 1 KB each. */
export function hostileMeeting(day: string): MeetingRows {
  const rows = generateMeeting(day, 0, 600);
  const next = random(42);
  for (const row of rows.utterances) row.text = noise(next, 20_000);
  const template = rows.participants[0]!;
  rows.participants = Array.from({ length: 5000 }, (_, i) => ({
    ...template,
    participant_id: uuid(next),
    name: noise(next, 1024),
    is_host: i === 0,
  }));
  rows.meetings[0]!.participant_count = 5000;
  return rows;
}

/** The days of a run: `days` consecutive UTC dates ending the day before `today`. */
export function benchDays(days: number, today = '2026-11-20'): string[] {
  const end = Date.parse(`${today}T00:00:00.000Z`);
  return Array.from({ length: days }, (_, i) => new Date(end - (days - i) * 86_400_000).toISOString().slice(0, 10));
}
