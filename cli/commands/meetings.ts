/** `meetings list`, `meetings show <bot>` and `meetings why <bot>`. */

import { OUTCOME_STATUSES } from '../../lambdas/core/outcome/outcome-reasons';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type MeetingListEntry,
  type MeetingView,
  meetingList,
  meetingView,
  participantList,
  READ_API_ROUTES,
  type TimelineEntry,
} from '../../lambdas/core/read/read-api-contract';
import { withoutControls } from '../../lambdas/core/text/control-characters';
import { BOT_STATES } from '../../lambdas/core/upstream/webhook-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { closest, didYouMean } from '../flags';
import { pageFooter, readPages } from '../paging';
import { renderFields, renderTable } from '../table';
import { writeErr } from '../terminal';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const meetingsList = defineCommand({
  words: ['meetings', 'list'],
  summary: "A day's meetings (today by default, UTC), newest first: a page, or every page with --all.",
  usage: '[--state S] [--outcome O] [--day YYYY-MM-DD] [--limit N] [--cursor C] [--all]',
  flags: `  --state S               only meetings in this state (joining, joined_recording, ended…)
  --outcome O             only meetings with this outcome (${OUTCOME_STATUSES.join(', ')})
  --day YYYY-MM-DD        only meetings of this day (UTC)
  --limit N               meetings a page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})
  --cursor C              the page after the one that printed this cursor
  --all                   follow the cursors to the last page`,
  options: {
    state: { type: 'string' },
    outcome: { type: 'string' },
    day: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async run({ values, target }) {
    if (values.day !== undefined && !DAY.test(values.day))
      throw new UsageError(`--day takes a date as YYYY-MM-DD, not ${JSON.stringify(values.day)}`);
    if (values.outcome !== undefined && !(OUTCOME_STATUSES as readonly string[]).includes(values.outcome))
      throw new UsageError(
        `--outcome takes one of ${OUTCOME_STATUSES.join(', ')}, not ${JSON.stringify(values.outcome)}`,
      );
    // The API takes any state (the service may add some before this CLI knows them); a typo here is refused.
    if (values.state !== undefined && !(BOT_STATES as readonly string[]).includes(values.state))
      throw new UsageError(
        `--state takes a bot state, not ${JSON.stringify(values.state)}${didYouMean(closest(values.state, BOT_STATES))}: one of ${BOT_STATES.join(', ')}`,
      );
    const limit = wholeNumber('limit', values.limit, 1, MAX_PAGE_SIZE);
    const api = await target();
    const {
      items: meetings,
      raw,
      next,
    } = await readPages(values.cursor, values.all === true, async (cursor) => {
      const page = await requestJson(
        api,
        routeUrl(
          api,
          READ_API_ROUTES.listMeetings,
          {},
          { state: values.state, outcome: values.outcome, day: values.day, limit, cursor },
        ),
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
          { header: 'OUTCOME', value: (m) => (m.outcome === null ? null : `${m.outcome.status} ${m.outcome.reason}`) },
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

export const meetingsParticipants = defineCommand({
  words: ['meetings', 'participants'],
  args: ['<bot>'],
  summary: "Who was in a meeting: each participant's name, whether they hosted, when they joined and left.",
  options: {},
  async run({ values, args, target }) {
    const api = await target();
    const { raw, value } = await requestJson(
      api,
      routeUrl(api, READ_API_ROUTES.participants, { bot_id: args[0] ?? '' }),
      participantList,
    );
    if (values.json === true) {
      printJson(raw);
      return undefined;
    }
    print(
      renderTable<(typeof value.participants)[number]>(
        [
          { header: 'NAME', value: (p) => p.name },
          { header: 'HOST', value: (p) => (p.is_host ? 'yes' : '') },
          { header: 'JOINED', value: (p) => p.joined_at },
          { header: 'LEFT', value: (p) => p.left_at },
          { header: 'PARTICIPANT', value: (p) => p.participant_uuid },
        ],
        value.participants,
      ),
    );
    writeErr(`${value.participants.length} ${value.participants.length === 1 ? 'participant' : 'participants'}\n`);
    return undefined;
  },
});

export const meetingsWhy = defineCommand({
  words: ['meetings', 'why'],
  args: ['<bot>'],
  summary:
    "Why a meeting went as it did: its timeline (scheduled, launched, each state with the service's reason) and its outcome.",
  options: {},
  async run({ values, args, target }) {
    const api = await target();
    const { raw, value } = await requestJson(
      api,
      routeUrl(api, READ_API_ROUTES.getMeeting, { bot_id: args[0] ?? '' }),
      meetingView,
    );
    if (values.json === true)
      printJson({
        bot_id: value.bot_id,
        outcome: (raw as MeetingView).outcome,
        timeline: (raw as MeetingView).timeline,
      });
    else print(explainMeeting(value));
    return undefined;
  },
});

/** The timeline, one line a step, then the outcome and its sentence (the MCP server's `why_meeting` too). */
export function explainMeeting(m: MeetingView): string {
  const rows: Array<{ at: string | null; what: string; detail: string }> = [];
  if (m.schedule_id !== null)
    rows.push({
      at: m.scheduled_join_at,
      what: 'scheduled',
      detail: `schedule ${m.schedule_id}, join at ${m.scheduled_join_at ?? '?'}`,
    });
  if (m.schedule_id !== null) rows.push({ at: null, what: 'launched', detail: `bot ${m.bot_id}` });
  for (const step of m.timeline) rows.push({ at: step.at, what: stepName(step), detail: stepStates(step) });
  const table = renderTable(
    [
      { header: 'AT', value: (row) => row.at },
      { header: 'EVENT', value: (row) => row.what },
      { header: 'STATE', value: (row) => row.detail },
    ],
    rows,
  );
  const outcome = m.outcome;
  // One line each, whatever the text holds: no value may add a line that reads as ours.
  const line = (text: string) => withoutControls(text, { keepLines: false });
  const verdict =
    outcome === null
      ? 'outcome: not derived yet (a meeting heard of before outcomes were kept)'
      : `outcome: ${line(outcome.status)} (${line(outcome.reason)})\n${line(outcome.sentence)}`;
  return `${table}\n${verdict}`;
}

const stepName = (step: TimelineEntry) =>
  step.event_sub_type === null ? step.event_type : `${step.event_type} (${step.event_sub_type})`;
const stepStates = (step: TimelineEntry) =>
  step.old_state === null && step.new_state === null ? '' : `${step.old_state ?? '?'} → ${step.new_state ?? '?'}`;

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
    ['outcome', m.outcome === null ? null : `${m.outcome.status} (${m.outcome.reason})`],
    ['  why', m.outcome?.sentence ?? null],
    ['summary', m.summary],
  ]);
}
