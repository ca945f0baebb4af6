import * as z from 'zod/mini';
import { domainEventsEnvironmentShape } from '../shared/domain-events-environment';

/** Environment the process-events function is deployed with (set by lib/event-processing.ts). */
export const processEventsEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  ARCHIVE_QUEUE_URL: z.url(),
  PAYLOAD_BUCKET: z.string().check(z.minLength(1)),
  DEDUP_RETENTION_DAYS: z.coerce.number().check(z.int(), z.positive()),
  /** Set when `eraseOnUpstreamDelete` is on: the service's `data_deleted` queues the meeting's erasure here. */
  ERASURE_QUEUE_URL: z.optional(z.url()),
  ...domainEventsEnvironmentShape,
});
export type ProcessEventsEnvironment = z.infer<typeof processEventsEnvironmentSchema>;
