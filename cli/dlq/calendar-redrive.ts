/**
 * The calendar events DLQ holds the original EventBridge event (the rule target's
 * DLQ) or a Lambda on-failure record with the event under `requestPayload`. A
 * re-drive puts that event on the calendar events bus again (the stack's
 * CalendarEventBusName output; the caller must be one of its named producers): the
 * calendar rule delivers it, and its `sequence`/`updated_at` keep it from undoing a
 * newer change.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { CALENDAR_DETAIL_TYPES, CALENDAR_EVENT_SOURCE } from '../../lambdas/core/schedule/calendar-events';
import { type DrainReport, drainQueue } from './drain';

const calendarEvent = z.object({
  source: z.literal(CALENDAR_EVENT_SOURCE),
  'detail-type': z.enum(Object.values(CALENDAR_DETAIL_TYPES) as [string, ...string[]]),
  detail: z.record(z.string(), z.unknown()),
  resources: z.array(z.string()).optional(),
});
export type CalendarEvent = z.infer<typeof calendarEvent>;

/** The calendar event a DLQ message carries, or why there is none. */
export function calendarEventOf(body: string): { event: CalendarEvent } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { problem: 'the message is not JSON' };
  }
  const record = parsed as { requestPayload?: unknown };
  const candidate =
    typeof record === 'object' && record !== null && 'requestPayload' in record ? record.requestPayload : parsed;
  const event = calendarEvent.safeParse(candidate);
  return event.success
    ? { event: event.data }
    : {
        problem: `not a calendar event (${CALENDAR_EVENT_SOURCE}): ${event.error.issues[0]?.message ?? 'unknown shape'}`,
      };
}

/** The PutEvents entry that puts a calendar event back: on the calendar bus when named. */
export function calendarPutEventsEntry(event: CalendarEvent, eventBusName: string | undefined): PutEventsRequestEntry {
  return {
    ...(eventBusName !== undefined && { EventBusName: eventBusName }),
    Source: event.source,
    DetailType: event['detail-type'],
    Detail: JSON.stringify(event.detail),
    ...(event.resources !== undefined && { Resources: event.resources }),
  };
}

export interface CalendarRedriveOptions {
  max?: number;
  /** The calendar events bus; absent, the default bus (where a stack from before that bus has its rule). */
  eventBusName?: string;
}

export async function redriveCalendarEvents(
  sqs: SQSClient,
  dlqUrl: string,
  options: CalendarRedriveOptions = {},
  eventBridge: Pick<EventBridgeClient, 'send'> = new EventBridgeClient({}),
): Promise<DrainReport> {
  const { eventBusName, ...drainOptions } = options;
  return drainQueue(
    sqs,
    dlqUrl,
    async (message: Message) => {
      const found = calendarEventOf(message.Body ?? '');
      if ('problem' in found) throw new Error(`${found.problem}; left in the queue`);
      const answer = await eventBridge.send(
        new PutEventsCommand({ Entries: [calendarPutEventsEntry(found.event, eventBusName)] }),
      );
      const failure = answer.Entries?.[0];
      if ((answer.FailedEntryCount ?? 0) > 0)
        throw new Error(`PutEvents refused it: ${failure?.ErrorCode ?? ''} ${failure?.ErrorMessage ?? ''}`.trim());
    },
    drainOptions,
  );
}
