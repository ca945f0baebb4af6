/**
 * The user-sync consumer: SQS batches of UserSyncRequest, each user synced on its own
 * (core's syncCompanyUser), one after the other, so the event source's maximum
 * concurrency is exactly the number of users in flight against the providers. Only
 * failed records are returned, to be redelivered and dead-lettered after their
 * receives; a throttled or disconnected user is an outcome, not a failure.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import type { UserSyncRequest } from '../core/calendar/company/provider-contract';
import type { Telemetry } from '../core/telemetry';

/** A request as the queue carries it: what the scheduled run, a push notification or the API sent. */
export const userSyncRequestSchema = z.strictObject({
  calendar_id: z.string().check(z.minLength(1), z.maxLength(256)),
  // An address or a Graph id / UPN: RFC 5321 caps an address at 254 octets.
  user: z.string().check(z.minLength(1), z.maxLength(320)),
  reason: z.enum(['schedule', 'push', 'manual']),
}) satisfies z.ZodMiniType<UserSyncRequest>;

/** A message that is not a UserSyncRequest: it fails until the DLQ holds it (and its alarm says so). */
export class MalformedUserSyncRequestError extends Error {
  override name = 'MalformedUserSyncRequestError';
}

export function parseUserSyncRequest(body: string): UserSyncRequest {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new MalformedUserSyncRequestError('the message body is not JSON');
  }
  const parsed = userSyncRequestSchema.safeParse(value);
  if (!parsed.success)
    throw new MalformedUserSyncRequestError(
      `the message is not a user sync request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'} ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export type UserSync = (request: UserSyncRequest) => Promise<unknown>;

export function createUserSyncHandler(sync: UserSync, telemetry: Telemetry) {
  const processor = new BatchProcessor(EventType.SQS);
  const processRecord = async (record: SQSRecord, tally: { synced: number; failed: number }) => {
    let calendarId: string | undefined;
    try {
      const request = parseUserSyncRequest(record.body);
      calendarId = request.calendar_id;
      await sync(request);
      tally.synced += 1;
    } catch (error) {
      tally.failed += 1;
      // The user's address stays out of the log line: the calendar and the message say which.
      telemetry.log.error('user sync failed; it will be retried', {
        message_id: record.messageId,
        receive_count: record.attributes?.ApproximateReceiveCount,
        calendar_id: calendarId,
        error_name: error instanceof Error ? error.name : typeof error,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const tally = { records: event.Records.length, synced: 0, failed: 0 };
    try {
      return await processPartialResponse(event, (record: SQSRecord) => processRecord(record, tally), processor, {
        processInParallel: false,
      });
    } finally {
      telemetry.log.info('user sync batch', { ...tally });
    }
  };
}
