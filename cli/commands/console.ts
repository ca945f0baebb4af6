/** `console`: the operator console, a web app on 127.0.0.1 over the same API routes the CLI calls. */
import { buildConsole, CONSOLE_DIST_DIR, consoleBuildIsStale } from '../../console/build';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { startConsoleServer } from '../console/console-server';
import { EXIT } from '../exit-codes';

export const consoleCommand = defineCommand({
  words: ['console'],
  summary: `Serve the operator console on 127.0.0.1 and print its address: meetings and their outcomes,
transcripts and recordings, delivery logs, erasure. Requests go to the API from here, signed with your
AWS credentials; the browser gets none. The address carries a one-session token: open it, do not share
it (share the addresses of the pages instead). Ctrl-C stops it.`,
  usage: '[--port N] [--read-only]',
  flags: `  --port N                listen on port N (default: any free port)
  --read-only             hide and refuse every change (erase, re-drive…)`,
  options: { port: { type: 'string' }, 'read-only': { type: 'boolean' } },
  async run({ values, target }) {
    const port = wholeNumber('port', values.port, 1, 65_535);
    const api = await target();
    // `npm ci` builds the pages; a checkout that skipped its scripts, or changed the pages since, builds them now.
    if (consoleBuildIsStale()) await buildConsole();
    const console = await startConsoleServer({
      target: api,
      staticDir: CONSOLE_DIST_DIR,
      readOnly: values['read-only'] === true,
      ...(port !== undefined && { port }),
    });
    if (values.json === true) printJson({ url: console.url, target: api.label });
    else print(`console for ${api.label}: open ${console.url}\n(Ctrl-C stops it)`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await console.close();
    return EXIT.ok;
  },
});
