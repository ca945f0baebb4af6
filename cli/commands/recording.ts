/** `recording <bot> [--download FILE]`: a presigned link to the archived recording, or the checked bytes. */
import { READ_API_ROUTES, recordingLink } from '../../lambdas/core/read/read-api-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson } from '../command';
import { downloadVerified } from '../download';
import { progressBar } from '../progress';
import { renderFields } from '../table';

export const recording = defineCommand({
  words: ['recording'],
  args: ['<bot>'],
  summary: `A link to a meeting's archived recording, or (--download) its bytes, checked against the archive.
The link is valid for minutes. Downloaded bytes must match the sha256 taken when the recording was
archived: if they differ, nothing is kept and the exit status is 5.`,
  usage: '[--download FILE]',
  flags: '  --download FILE         save the recording to FILE (a progress bar on stderr)',
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
    const saved = await downloadVerified(link.url, values.download, link, (total) => progressBar(total));
    if (values.json === true) printJson({ file: values.download, bytes: saved.bytes, sha256: saved.sha256 });
    else print(`${values.download}: ${saved.bytes} bytes, sha256 ${saved.sha256} (matches the archive)`);
    return undefined;
  },
});
