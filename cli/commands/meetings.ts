/** `meetings list` and `meetings show <bot>`. */
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type MeetingListEntry,
  type MeetingView,
  meetingList,
  meetingView,
  READ_API_ROUTES,
} from '../../lambdas/core/read/read-api-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { pageFooter, readPages } from '../paging';
import { renderFields, renderTable } from '../table';
import { writeErr } from '../terminal';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const meetingsList = defineCommand({
  words: ['meetings', 'list'],
  summary: "A day's meetings (today by default, UTC), newest first: a page, or every page with --all.",
  usage: '[--state S] [--day YYYY-MM-DD] [--limit N] [--cursor C] [--all]',
  flags: `  --state S               only meetings in this state (joining, joined_recording, ended…)
  --day YYYY-MM-DD        only meetings of this day (UTC)
  --limit N               meetings a page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})
  --cursor C              the page after the one that printed this cursor
  --all                   follow the cursors to the last page`,
  options: {
    state: { type: 'string' },
    day: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async run({ values, target }) {
    if (values.day !== undefined && !DAY.test(values.day))
      throw new UsageError(`--day takes a date as YYYY-MM-DD, not ${JSON.stringify(values.day)}`);
    const limit = wholeNumber('limit', values.limit, 1, MAX_PAGE_SIZE);
    const api = await target();
    const {
      items: meetings,
      raw,
      next,
    } = await readPages(values.cursor, values.all === true, async (cursor) => {
      const page = await requestJson(
        api,
        routeUrl(api, READ_API_ROUTES.listMeetings, {}, { state: values.state, day: values.day, limit, cursor }),
        meetingList,
      );
      return {
        items: page.value.meetings,
        raw: (page.raw as { meetings: unknown[] }).meetings,
        next: page.value.next_cursor,
      };
    });

    if (values.json === true) {
      printJson({ meetings: raw, next_cursor: next });
      return undefined;
    }
    print(
      renderTable<MeetingListEntry>(
        [
          { header: 'BOT', value: (m) => m.bot_id },
          { header: 'STATE', value: (m) => m.state },
          { header: 'SINCE', value: (m) => m.state_at },
          { header: 'SCHEDULE', value: (m) => m.schedule_id },
          { header: 'JOIN AT', value: (m) => m.scheduled_join_at },
          { header: 'ARCHIVED', value: (m) => m.archived_at },
        ],
        meetings,
      ),
    );
    writeErr(pageFooter(meetings.length, ['meeting', 'meetings'], next));
    return undefined;
  },
});

export const meetingsShow = defineCommand({
  words: ['meetings', 'show'],
  args: ['<bot>'],
  summary: 'One meeting: its state, summary, counts, schedule and recording.',
  options: {},
  async run({ values, args, target }) {
    const api = await target();
    const { raw, value } = await requestJson(
      api,
      routeUrl(api, READ_API_ROUTES.getMeeting, { bot_id: args[0] ?? '' }),
      meetingView,
    );
    if (values.json === true) printJson(raw);
    else print(describeMeeting(value));
    return undefined;
  },
});

function describeMeeting(m: MeetingView): string {
  const recording = m.recording;
  return renderFields([
    ['bot', m.bot_id],
    ['state', m.state],
    ['since', m.state_at],
    ['schedule', m.schedule_id],
    ['meeting url', m.meeting_url],
    ['join at', m.scheduled_join_at],
    ['utterances', m.utterance_count],
    ['participants', m.participant_count],
    ['archived at', m.archived_at],
    ['recording', recording === null ? null : recording.status],
    ...(recording?.status === 'archived'
      ? ([
          ['  bytes', recording.bytes],
          ['  sha256', recording.sha256],
          ['  content type', recording.content_type],
        ] as Array<[string, string | number | null]>)
      : []),
    ['summary', m.summary],
  ]);
}
