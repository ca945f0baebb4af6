/**
 * How long a recording download may take and how fast it must keep moving. The
 * defaults are the deployment's (lib/config.ts) and the archive function's when its
 * environment leaves them out (local mode).
 */
import type { TransferLimits } from './download-guard';

export const RECORDING_TRANSFER_DEFAULTS = {
  /** Inside the archive function's 15 minutes, leaving time to finish the upload and record it. */
  deadlineMinutes: 12,
  /** Far below a storage service's speed, far above a drip; 10 GiB (the size cap) at 12 minutes needs 14 MiB/s anyway. */
  minKiBPerSecond: 256,
} as const;

/** The rate is judged over 30 s windows: long enough for a storage service's slow first byte. */
export const RECORDING_RATE_WINDOW_MS = 30_000;

export function recordingTransferLimits(deadlineMinutes: number, minKiBPerSecond: number): TransferLimits {
  return {
    deadlineMs: deadlineMinutes * 60_000,
    minBytesPerSecond: minKiBPerSecond * 1024,
    rateWindowMs: RECORDING_RATE_WINDOW_MS,
  };
}

export const DEFAULT_RECORDING_TRANSFER: TransferLimits = recordingTransferLimits(
  RECORDING_TRANSFER_DEFAULTS.deadlineMinutes,
  RECORDING_TRANSFER_DEFAULTS.minKiBPerSecond,
);
