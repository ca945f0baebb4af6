/** `recording <bot> [--download FILE]`: a presigned link to the archived recording, or the checked bytes. */

import { extensionFor } from '../../lambdas/core/archive/recording-store';
import { READ_API_ROUTES, recordingLink } from '../../lambdas/core/read/read-api-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson } from '../command';
import { downloadTarget, downloadVerified } from '../download';
import { progressBar } from '../progress';
import { renderFields } from '../table';

export const recording = defineCommand({
  words: ['recording'],
  args: ['<bot>'],
  summary: `A link to a meeting's archived recording, or (--download) its bytes, checked against the archive.
The link is valid for minutes. Downloaded bytes must match the sha256 taken when the recording was
archived: if they differ, nothing is kept and the exit status is 5.`,
  usage: '[--download FILE]',
  flags: '  --download FILE         save the recording to FILE, or into FILE/<bot>.<ext> when it is a folder',
  options: { download: { type: 'string' } },
  async run({ values, args, target }) {
    const api = await target();
    const { raw, value: link } = await requestJson(
      api,
      routeUrl(api, READ_API_ROUTES.recording, { bot_id: args[0] ?? '' }),
      recordingLink,
    );
    if (values.download === undefined) {
      if (values.json === true) printJson(raw);
      else
        print(
          renderFields([
            ['url', link.url],
            ['expires at', link.expires_at],
            ['bytes', link.bytes],
            ['sha256', link.sha256],
            ['content type', link.content_type],
          ]),
        );
      return undefined;
    }
    // A folder gets the file under the bot's name, as the archive names it (recording.mp4 → <bot>.mp4).
    const file = downloadTarget(values.download, `${args[0] ?? 'recording'}${extensionFor(link.content_type)}`);
    const saved = await downloadVerified(link.url, file, link, (total) => progressBar(total));
    if (values.json === true) printJson({ file, bytes: saved.bytes, sha256: saved.sha256 });
    else print(`${file}: ${saved.bytes} bytes, sha256 ${saved.sha256} (matches the archive)`);
    return undefined;
  },
});
