import * as z from 'zod/mini';

/** Environment the read API function is deployed with (set by lib/read-api.ts). */
export const readApiEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** Archived recordings, transcripts and participants. */
  RECORDINGS_BUCKET: z.string().check(z.minLength(1)),
  /** Claim-checked values too large for an item (a long summary). */
  PAYLOAD_BUCKET: z.string().check(z.minLength(1)),
  /** How long a recording link stays valid (recordingLinkMinutes). */
  RECORDING_LINK_SECONDS: z.coerce.number().check(z.int(), z.positive(), z.lte(604_800)),
});
export type ReadApiEnvironment = z.infer<typeof readApiEnvironmentSchema>;
