/**
 * The calendar events DLQ holds the original EventBridge event (the rule target's
 * DLQ) or a Lambda on-failure record with the event under `requestPayload`. A
 * re-drive puts that event on the default bus again: the calendar rule delivers it,
 * and its `sequence`/`updated_at` keep it from undoing a newer change.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
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

export async function redriveCalendarEvents(
  sqs: SQSClient,
  dlqUrl: string,
  eventBridge: Pick<EventBridgeClient, 'send'> = new EventBridgeClient({}),
  options: { max?: number } = {},
): Promise<DrainReport> {
  return drainQueue(
    sqs,
    dlqUrl,
    async (message: Message) => {
      const found = calendarEventOf(message.Body ?? '');
      if ('problem' in found) throw new Error(`${found.problem}; left in the queue`);
      const { event } = found;
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            {
              Source: event.source,
              DetailType: event['detail-type'],
              Detail: JSON.stringify(event.detail),
              ...(event.resources !== undefined && { Resources: event.resources }),
            },
          ],
        }),
      );
      const failure = answer.Entries?.[0];
      if ((answer.FailedEntryCount ?? 0) > 0)
        throw new Error(`PutEvents refused it: ${failure?.ErrorCode ?? ''} ${failure?.ErrorMessage ?? ''}`.trim());
    },
    options,
  );
}
