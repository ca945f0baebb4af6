/** The one-meeting tools: `get_meeting`, `why_meeting`, `get_summary`, `list_participants`, `get_recording_link`. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  meetingView,
  outcomeView,
  participantList,
  recordingLink,
  timelineEntry,
} from '../../../lambdas/core/read/read-api-contract';
import { explainMeeting } from '../../commands/meetings';
import type { MeetingReader } from '../meeting-reader';
import { answer, guarded } from '../tool-result';
import { botIdInput, toolInput } from './inputs';

const input = { bot_id: botIdInput };
const readOnly = { readOnlyHint: true, openWorldHint: false };

export function registerMeetingTools(server: McpServer, reader: MeetingReader): void {
  server.registerTool(
    'get_meeting',
    {
      title: 'Get a meeting',
      description:
        "One meeting as the read API shows it: state and since when, its outcome (status, reason, sentence) and timeline, summary, utterance and participant counts, the schedule it was launched for (id, meeting link, join time), and its archived recording's size and SHA-256.",
      inputSchema: toolInput('get_meeting', input),
      outputSchema: meetingView.shape,
      annotations: readOnly,
    },
    ({ bot_id }) => guarded(async () => answer(await reader.meeting(bot_id))),
  );

  server.registerTool(
    'why_meeting',
    {
      title: 'Why a meeting went as it did',
      description:
        "A meeting's outcome (status: scheduled, in_progress, recorded, partial, missed, failed or cancelled; reason: the meeting service's own code where it gave one, e.g. waiting_room_timeout_exceeded; and a sentence for people) with the timeline it was derived from: scheduled, launched, each state change with its reason and time. Use it when asked why a bot missed or cut short a meeting.",
      inputSchema: toolInput('why_meeting', input),
      outputSchema: { bot_id: z.string(), outcome: z.nullable(outcomeView), timeline: z.array(timelineEntry) },
      annotations: readOnly,
    },
    ({ bot_id }) =>
      guarded(async () => {
        const m = await reader.meeting(bot_id);
        return answer({ bot_id: m.bot_id, outcome: m.outcome, timeline: m.timeline }, explainMeeting(m));
      }),
  );

  server.registerTool(
    'get_summary',
    {
      title: "Get a meeting's summary",
      description:
        "The summary the meeting assistant service wrote for a meeting, or null when none has arrived (it comes after the meeting ends). Cite the meeting's bot id when using it.",
      inputSchema: toolInput('get_summary', input),
      outputSchema: {
        bot_id: z.string(),
        summary: z.string().nullable(),
        state: z.string().nullable(),
        state_at: z.string().nullable(),
        schedule_id: z.string().nullable(),
        note: z.string(),
      },
      annotations: readOnly,
    },
    ({ bot_id }) =>
      guarded(async () => {
        const m = await reader.meeting(bot_id);
        const where = `meeting ${m.bot_id}${m.schedule_id === null ? '' : ` (schedule ${m.schedule_id})`}, state ${m.state ?? 'unknown'}${m.state_at === null ? '' : ` since ${m.state_at}`}`;
        const note = m.summary === null ? `No summary has arrived for ${where}.` : `Summary of ${where}.`;
        const structured = {
          bot_id: m.bot_id,
          summary: m.summary,
          state: m.state,
          state_at: m.state_at,
          schedule_id: m.schedule_id,
          note,
        };
        return answer(structured, m.summary === null ? note : `${note}\n\n${m.summary}`);
      }),
  );

  server.registerTool(
    'list_participants',
    {
      title: "List a meeting's participants",
      description: 'Who took part in a meeting: name, whether host, when they joined and left (ISO 8601), their uuids.',
      inputSchema: toolInput('list_participants', input),
      outputSchema: participantList.shape,
      annotations: readOnly,
    },
    ({ bot_id }) => guarded(async () => answer(await reader.participants(bot_id))),
  );

  server.registerTool(
    'get_recording_link',
    {
      title: "Get a link to a meeting's recording",
      description:
        'A presigned HTTPS link to the archived recording (valid for minutes: expires_at), with its size, SHA-256 and content type. Not found until the meeting is archived, or when the service had no recording.',
      inputSchema: toolInput('get_recording_link', input),
      outputSchema: { bot_id: z.string(), ...recordingLink.shape, note: z.string() },
      annotations: readOnly,
    },
    ({ bot_id }) =>
      guarded(async () => {
        const link = await reader.recording(bot_id);
        const note = `Recording of meeting ${bot_id}: ${link.bytes} bytes (${link.content_type}), sha256 ${link.sha256}; the link works until ${link.expires_at}.`;
        return answer({ bot_id, ...link, note });
      }),
  );
}
