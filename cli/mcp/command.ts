/** `meeting-pipeline mcp`: the read API as an MCP server on stdio, for AI assistants. */
import { lakeSearch } from '../../lambdas/core/lake/lake-search';
import { defineCommand } from '../command';
import { lakeEngineFor, lakeEngineKind } from '../lake-engine';
import type { Target } from '../target';
import { lazyLakeEngine } from './lazy-lake-engine';
import { readApiReader } from './meeting-reader';
import { createMeetingServer, serveOverStdio } from './server';

/** stdout is the protocol's: everything for a person goes to stderr. */
const log = (line: string) => process.stderr.write(`meeting-pipeline mcp: ${line}\n`);

export const mcp = defineCommand({
  words: ['mcp'],
  summary: `An MCP server on stdio for AI assistants: meetings read through the read API with your credentials.
Tools search_meetings, get_meeting, get_transcript (paged), get_summary, list_participants and
get_recording_link, and meeting:// resources; with --stack or --local also the meetings lake:
search_transcripts, meeting_stats, and search_meetings past the last 31 days. Requests are signed with your own AWS credentials (SigV4),
so IAM decides what an assistant sees. stdout carries only the protocol; logs go to stderr. Add it to
an MCP client as the command \`npx --no-install meeting-pipeline mcp --stack NAME\` (docs/cli.md, "MCP server").`,
  options: {},
  async run({ target }) {
    // Resolved now so a bad target shows in the log at once; tool calls report it too, with the reason.
    target().then(
      (api) => log(`reading ${api.label}`),
      (error: Error) => log(`cannot read meetings: ${error.message} (fix it, then restart the server)`),
    );
    const api = await target().catch(() => undefined);
    // `--endpoint` names only the HTTP API: no lake (six tools, search_meetings within 31 days).
    const engine = api !== undefined && hasLake(api) ? lazyLakeEngine(() => lakeEngineFor(api)) : undefined;
    const lake = engine && { engine, questions: lakeSearch };
    try {
      await serveOverStdio(createMeetingServer(readApiReader(target), lake === undefined ? {} : { lake }));
    } finally {
      engine?.close();
    }
    return undefined;
  },
});

/** Whether the target has a lake engine (a stack or local mode; not a bare `--endpoint`). */
function hasLake(api: Target): boolean {
  try {
    lakeEngineKind(api);
    return true;
  } catch {
    return false;
  }
}
