/** The MCP server: the tools and resources over a meeting reader, served on stdio. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { MeetingLake } from './lake-calls';
import type { MeetingReader } from './meeting-reader';
import { registerResources } from './resources';
import { registerGetTranscript } from './tools/get-transcript';
import { registerMeetingStats } from './tools/meeting-stats';
import { registerMeetingTools } from './tools/meeting-tools';
import { registerSearchMeetings } from './tools/search-meetings';
import { registerSearchTranscripts } from './tools/search-transcripts';

const INSTRUCTIONS = `Meetings this company's meeting pipeline recorded: states, transcripts, participants, summaries and recordings, read through its read API with the user's own AWS access.
Find meetings with search_meetings (UTC days), then read one with get_meeting, get_summary, get_transcript (paged: follow next_cursor), list_participants or get_recording_link.
Cite what you use: the meeting's bot_id and, for transcript content, the [HH:MM:SS] offsets (and times) of the utterances.`;

const LAKE_INSTRUCTIONS = `Across all archived meetings (the meetings lake): search_transcripts finds what was said, each hit cited by bot_id, [HH:MM:SS] offset and speaker with a meeting:// link to that line; meeting_stats counts talk time per speaker, meetings per participant and per day. These may take a while: they report progress, and after a deadline answer how to narrow the question.`;

export interface MeetingServerOptions {
  /** The meetings lake: adds search_transcripts and meeting_stats, and search_meetings past the recent window. */
  lake?: MeetingLake;
  now?: () => Date;
}

export function createMeetingServer(reader: MeetingReader, options: MeetingServerOptions = {}): McpServer {
  const { lake, now } = options;
  const server = new McpServer(
    { name: 'meeting-pipeline', version: packageJson.version },
    {
      instructions: lake === undefined ? INSTRUCTIONS : `${INSTRUCTIONS}\n${LAKE_INSTRUCTIONS}`,
      capabilities: { tools: {}, resources: {} },
    },
  );
  registerSearchMeetings(server, reader, lake, now);
  registerMeetingTools(server, reader);
  registerGetTranscript(server, reader);
  if (lake !== undefined) {
    registerSearchTranscripts(server, lake);
    registerMeetingStats(server, lake);
  }
  registerResources(server, reader, now);
  return server;
}

/** Serves on stdin/stdout until the client closes stdin (or a signal comes); stdout carries nothing else. */
export async function serveOverStdio(server: McpServer): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const close = () => void server.close();
  process.stdin.once('end', close);
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
  await server.connect(new StdioServerTransport());
  await closed;
}
