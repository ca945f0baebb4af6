/** The erase function's retention trigger: the daily rule's event, run against the environment's settings. */
import { RETENTION_RUN_EVENT } from '../core/erase/erasure-job';
import { type RetentionDependencies, type RetentionRun, runRetention } from '../core/erase/retention';
import type { EraseEnvironment } from './environment';

export const isRetentionRun = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && (event as { kind?: unknown }).kind === RETENTION_RUN_EVENT.kind;

export function createRetentionHandler(
  env: Pick<EraseEnvironment, 'MEETING_RETENTION_DAYS' | 'RETENTION_MAX_MEETINGS'>,
  deps: RetentionDependencies,
) {
  return async (): Promise<RetentionRun | undefined> => {
    // The rule exists only with a retention set; an event without one (sent by hand) erases nothing.
    if (env.MEETING_RETENTION_DAYS === undefined) {
      deps.telemetry.log.warn('retention run without meetingRetentionDays: nothing erased');
      return undefined;
    }
    return runRetention({ retentionDays: env.MEETING_RETENTION_DAYS, maxMeetings: env.RETENTION_MAX_MEETINGS }, deps);
  };
}
