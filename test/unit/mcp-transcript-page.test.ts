/** Transcript pages of the MCP server: bounded by count and bytes, continued by cursor, filtered. */
import { describe, expect, it } from 'vitest';
import { ToolInputError } from '../../cli/mcp/tool-result';
import { offsetMs, TRANSCRIPT_PAGE, transcriptPage } from '../../cli/mcp/transcript-page';
import type { UtteranceView } from '../../lambdas/core/read/read-api-contract';

const START = Date.UTC(2026, 10, 22, 15);

function transcript(count: number, textBytes = 40) {
  const utterances: UtteranceView[] = Array.from({ length: count }, (_, i) => ({
    speaker_name: i % 2 === 0 ? 'Ada Lovelace' : 'Grace Hopper',
    speaker_uuid: i % 2 === 0 ? 'p-ada' : 'p-grace',
    // Two utterances share each time: the cursor must tell them apart by speaker.
    timestamp_ms: START + Math.floor(i / 2) * 1000,
    duration_ms: 900,
    text: 'x'.repeat(textBytes),
    offset_ms: Math.floor(i / 2) * 1000,
  }));
  return { bot_id: 'bot_1', offsets_from: 'recording_start' as const, utterances };
}

/** Every page, following the cursors. */
function allPages(t: ReturnType<typeof transcript>, maxUtterances: number, filter = {}) {
  const pages = [transcriptPage(t, { filter, maxUtterances })];
  for (let page = pages[0]; page?.nextCursor != null; page = pages.at(-1))
    pages.push(transcriptPage(t, { filter: {}, maxUtterances, cursor: page.nextCursor }));
  return pages;
}

describe('MCP transcript pages', () => {
  it('cuts a long transcript into pages of at most ~50 KB that together hold every utterance once', () => {
    const long = transcript(3_000, 400);
    const pages = allPages(long, TRANSCRIPT_PAGE.maxUtterances);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page.utterances))).toBeLessThan(52_000);
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.flatMap((p) => p.utterances.map((u) => u.offset_ms))).toEqual(long.utterances.map((u) => u.offset_ms));
    expect(pages.flatMap((p) => p.utterances.map((u) => u.speaker_uuid))).toEqual(
      long.utterances.map((u) => u.speaker_uuid),
    );
    expect(pages[1]?.first).toBe((pages[0]?.utterances.length ?? 0) + 1);
    expect(pages[0]?.utterances[1]).toMatchObject({
      line: `[00:00:00] Grace Hopper: ${'x'.repeat(400)}`,
      timestamp: new Date(START).toISOString(),
    });
  });

  it('moves on past an utterance larger than the page budget', () => {
    const pages = allPages(transcript(3, 80_000), 10);
    expect(pages.map((p) => p.utterances.length)).toEqual([1, 1, 1]);
  });

  it('keeps the filters in the cursor', () => {
    const t = transcript(40);
    const pages = allPages(t, 3, { speaker: 'grace', fromMs: offsetMs('5'), toMs: offsetMs('00:14') });
    const kept = pages.flatMap((p) => p.utterances);
    expect(kept.map((u) => u.offset_ms)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((s) => s * 1000));
    expect(new Set(kept.map((u) => u.speaker_name))).toEqual(new Set(['Grace Hopper']));
    expect(pages[0]?.matching).toBe(10);
  });

  it("refuses a cursor that is not the server's or belongs to another meeting", () => {
    const t = transcript(10);
    const { nextCursor } = transcriptPage(t, { filter: {}, maxUtterances: 2 });
    expect(() =>
      transcriptPage({ ...t, bot_id: 'bot_2' }, { filter: {}, maxUtterances: 2, cursor: nextCursor ?? '' }),
    ).toThrow(/belongs to meeting bot_1/);
    expect(() => transcriptPage(t, { filter: {}, maxUtterances: 2, cursor: 'e30' })).toThrow(ToolInputError);
    expect(offsetMs('01:02:03')).toBe(3_723_000);
    expect(() => offsetMs('1h')).toThrow(/HH:MM:SS/);
  });
});
