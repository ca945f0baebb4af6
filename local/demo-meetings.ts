/**
 * The meetings `npm run dev` schedules: `count` the bot records; with `--chaos`, also
 * the meetings users complain about first, each on the platform that plays it so: a
 * Teams meeting the bot is never admitted to (it stays `joining` until the lobby times
 * out), a Zoom meeting whose host denies it from the waiting room, a Zoom meeting
 * that ends while the bot is still in the waiting room, and a bot the service cannot
 * start (the account is out of credits: `fatal_error` straight from `scheduled`).
 */
import { createHash } from 'node:crypto';
import type { BotScenarioName } from './simulator/bot-scenarios';

export interface DemoMeeting {
  scheduleId: string;
  /** Absent: a Google Meet link made from the schedule id. */
  meetingUrl?: string;
  /** Absent: the bot records the meeting. */
  scenario?: BotScenarioName;
}

/** Digits from the schedule id, so each demo meeting has a link of its own. */
function digits(scheduleId: string, length: number): string {
  return Array.from(createHash('sha256').update(scheduleId).digest().subarray(0, length), (byte) =>
    String(byte % 10),
  ).join('');
}

export function demoMeetings(runId: string, count: number, chaos: boolean): DemoMeeting[] {
  const meetings: DemoMeeting[] = Array.from({ length: count }, (_, i) => ({ scheduleId: `demo-${runId}-${i + 1}` }));
  if (!chaos) return meetings;
  const lobby = `demo-${runId}-lobby`;
  const denied = `demo-${runId}-denied`;
  const endedInLobby = `demo-${runId}-ended-in-lobby`;
  const noCredits = `demo-${runId}-no-credits`;
  meetings.push(
    {
      scheduleId: lobby,
      meetingUrl: `https://teams.microsoft.com/meet/${digits(lobby, 13)}?p=Lobby1`,
      scenario: 'waiting_room_timeout_exceeded',
    },
    { scheduleId: denied, meetingUrl: `https://zoom.us/j/8${digits(denied, 10)}`, scenario: 'request_to_join_denied' },
    {
      scheduleId: endedInLobby,
      meetingUrl: `https://zoom.us/j/8${digits(endedInLobby, 10)}`,
      scenario: 'ended_in_lobby',
    },
    { scheduleId: noCredits, scenario: 'out_of_credits' },
  );
  return meetings;
}
