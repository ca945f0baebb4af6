/** What the CLI's re-drives send: the calendar event inside a DLQ message, and a message copied to a FIFO queue. */
import { describe, expect, it } from 'vitest';
import { calendarEventOf, calendarPutEventsEntry } from '../../cli/dlq/calendar-redrive';
import { resendOf } from '../../cli/dlq/sqs-redrive';
import { CALENDAR_DETAIL_TYPES, CALENDAR_EVENT_SOURCE } from '../../lambdas/core/schedule/calendar-events';

const event = {
  version: '0',
  id: 'e1',
  source: CALENDAR_EVENT_SOURCE,
  'detail-type': CALENDAR_DETAIL_TYPES.upserted,
  detail: { schedule_id: 'standup', sequence: 3, meeting_url: 'https://meet.google.com/abc-defg-hij' },
};

describe('calendar DLQ messages', () => {
  it('finds the event in a rule target DLQ message (the event itself) and in an on-failure record', () => {
    expect(calendarEventOf(JSON.stringify(event))).toEqual({
      event: expect.objectContaining({ detail: event.detail }),
    });
    const onFailure = {
      version: '1.0',
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: event,
      responsePayload: { errorType: 'CalendarEventConflictError' },
    };
    expect(calendarEventOf(JSON.stringify(onFailure))).toEqual({
      event: expect.objectContaining({ source: CALENDAR_EVENT_SOURCE, 'detail-type': CALENDAR_DETAIL_TYPES.upserted }),
    });
  });

  it('puts the event back on the calendar events bus, where the calendar rule listens', () => {
    const found = calendarEventOf(JSON.stringify(event));
    if (!('event' in found)) throw new Error(found.problem);
    expect(calendarPutEventsEntry(found.event, 'Prod-calendar-events')).toEqual({
      EventBusName: 'Prod-calendar-events',
      Source: CALENDAR_EVENT_SOURCE,
      DetailType: CALENDAR_DETAIL_TYPES.upserted,
      Detail: JSON.stringify(event.detail),
    });
  });

  it('leaves anything else in the queue, saying why', () => {
    expect(calendarEventOf('not json')).toEqual({ problem: 'the message is not JSON' });
    expect(calendarEventOf(JSON.stringify({ ...event, source: 'other' }))).toMatchObject({
      problem: expect.stringContaining('not a calendar event'),
    });
  });
});

describe('a message moved back by hand', () => {
  const message = {
    MessageId: 'm-1',
    Body: '{"job":1}',
    Attributes: { MessageGroupId: 'bot_1', MessageDeduplicationId: 'original' },
    MessageAttributes: { kind: { DataType: 'String', StringValue: 'archive', StringListValues: [] } },
  };

  it('keeps its body, attributes and group, with a dedup id of its own that a repeat shares', () => {
    const resent = resendOf(message, 'https://sqs.eu-west-1.amazonaws.com/1/archive.fifo');
    expect(resent).toMatchObject({
      MessageBody: '{"job":1}',
      MessageGroupId: 'bot_1',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'archive' } },
    });
    expect(resent.MessageDeduplicationId).not.toBe('original');
    expect(resendOf(message, 'https://sqs.eu-west-1.amazonaws.com/1/archive.fifo').MessageDeduplicationId).toBe(
      resent.MessageDeduplicationId,
    );
  });

  it('sends no FIFO fields to a standard queue', () => {
    const resent = resendOf(message, 'https://sqs.eu-west-1.amazonaws.com/1/events');
    expect(resent).not.toHaveProperty('MessageGroupId');
    expect(resent).not.toHaveProperty('MessageDeduplicationId');
  });
});
