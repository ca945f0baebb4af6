/**
 * A calendar sync says what it made of the feed, and why when it scheduled nothing: the events outside the
 * window, the rules' reasons with counts. The sample feed of `npm run dev -- --calendar sample` is dated from
 * whatever today is, and always shows each kind of decision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RULES, sampleCalendarFeed } from '../../local/sample-calendar';
import { calendarHarness, type FeedServer, fixtureFeed, startFeedServer } from '../fixtures/calendar-harness';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
let feeds: FeedServer;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds?.stop();
  await pipeline?.stop();
});

const NO_LINK = 'no Zoom, Google Meet or Teams link in the event';

describe('what a calendar sync made of the feed', () => {
  it.each(['2026-11-24T21:00:00Z', '2031-06-30T06:15:00Z'])(
    'the sample feed on %s: three meetings scheduled, one left out by the rules, one without a link',
    async (today) => {
      const now = Date.parse(today);
      const calendars = await calendarHarness(() => now);
      feeds.set(`/sample-${now}.ics`, sampleCalendarFeed(now));
      await calendars.call('PUT', '/calendars/sample', {
        ics_url: feeds.url(`/sample-${now}.ics`),
        rules: SAMPLE_RULES,
        lookahead_days: 14,
      });
      const sync = await calendars.call('POST', '/calendars/sample/sync');
      expect(sync.body).toMatchObject({
        created: 3,
        skipped: 2,
        feed_events: 6,
        occurrences: 5,
        skipped_reasons: { [NO_LINK]: 1, 'title contains "[no bot]" (title_exclude)': 1 },
      });
      expect(sync.body.explain).toBe(
        `3 occurrences scheduled (created 3, moved 0, unchanged 0); not scheduled: 1 ${NO_LINK}, 1 title contains "[no bot]" (title_exclude)`,
      );
    },
  );

  it('says the feed has no occurrence in the window when its events are all later', async () => {
    const now = Date.parse('2026-11-24T21:00:00Z');
    const calendars = await calendarHarness(() => now);
    feeds.set('/google.ics', fixtureFeed('google'));
    await calendars.call('PUT', '/calendars/later', { ics_url: feeds.url('/google.ics'), lookahead_days: 14 });
    const sync = await calendars.call('POST', '/calendars/later/sync');
    expect(sync.body).toMatchObject({ created: 0, occurrences: 0, skipped_reasons: {} });
    expect(sync.body.explain).toMatch(
      /^nothing to schedule: none of the feed's \d+ events occurs between 2026-11-24T21:00:00.000Z and 2026-12-08T21:00:00.000Z \(lookahead_days 14\)$/,
    );
  });

  it('counts the reasons the rules gave when they leave every occurrence out', async () => {
    const now = Date.parse('2026-11-24T21:00:00Z');
    const calendars = await calendarHarness(() => now);
    feeds.set('/sample-retro.ics', sampleCalendarFeed(now));
    await calendars.call('PUT', '/calendars/retro', {
      ics_url: feeds.url('/sample-retro.ics'),
      rules: { join: 'all', title_include: ['retro'] },
    });
    const sync = await calendars.call('POST', '/calendars/retro/sync');
    expect(sync.body).toMatchObject({ created: 0, skipped: 5 });
    expect(sync.body.explain).toBe(
      `nothing scheduled: 5 occurrences between 2026-11-24T21:00:00.000Z and 2026-12-08T21:00:00.000Z (lookahead_days 14), not scheduled: 4 title contains none of "retro" (title_include), 1 ${NO_LINK}`,
    );
  });
});
