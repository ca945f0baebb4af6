/** GET /meetings/{bot_id}/recording: a presigned GET of the archived recording, with its size and checksum. */

import type * as z from 'zod/mini';
import { knownMeeting } from './known-bot';
import { archiveOf } from './meeting-entry';
import type { recordingLink } from './read-api-contract';
import type { ReadDependencies } from './read-dependencies';
import { notFound } from './read-errors';

export async function recordingLinkOf(botId: string, deps: ReadDependencies): Promise<z.infer<typeof recordingLink>> {
  const archive = archiveOf(await knownMeeting(deps.table, botId));
  if (archive === undefined) {
    throw notFound(
      'not-archived',
      `the meeting of bot ${botId} is not archived yet: its recording is copied once the meeting ends`,
    );
  }
  if (archive.recording === null) {
    throw notFound('no-recording', `bot ${botId} has no recording: the service had none when the meeting was archived`);
  }
  const { key, bytes, sha256, contentType } = archive.recording;
  const url = await deps.objects.presignGet(archive.bucket, key, deps.recordingLinkSeconds);
  return {
    url,
    expires_at: new Date(deps.now().getTime() + deps.recordingLinkSeconds * 1000).toISOString(),
    bytes,
    sha256,
    content_type: contentType,
  };
}
