import { EventBusyError, PoisonEventError } from './process-event';

/**
 * Why applying an event failed, as the `reason` of its EventFailed data point: a
 * closed set, so one alarm watches every value. The error's own name is logged.
 */
export const EVENT_FAILURE_REASONS = ['PoisonEventError', 'EventBusyError', 'other'] as const;
export type EventFailureReason = (typeof EVENT_FAILURE_REASONS)[number];

export function eventFailureReason(error: unknown): EventFailureReason {
  if (error instanceof PoisonEventError) return 'PoisonEventError';
  if (error instanceof EventBusyError) return 'EventBusyError';
  return 'other';
}
