/** The MCP server: the tools and resources over a meeting reader, served on stdio. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { MeetingReader } from './meeting-reader';
import { registerResources } from './resources';
import { registerGetTranscript } from './tools/get-transcript';
import { registerMeetingTools } from './tools/meeting-tools';
import { registerSearchMeetings } from './tools/search-meetings';

const INSTRUCTIONS = `Meetings this company's meeting pipeline recorded: states, transcripts, participants, summaries and recordings, read through its read API with the user's own AWS access.
Find meetings with search_meetings (UTC days), then read one with get_meeting, get_summary, get_transcript (paged: follow next_cursor), list_participants or get_recording_link.
Cite what you use: the meeting's bot_id and, for transcript content, the [HH:MM:SS] offsets (and times) of the utterances.`;

export function createMeetingServer(reader: MeetingReader): McpServer {
  const server = new McpServer(
    { name: 'meeting-pipeline', version: packageJson.version },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  registerSearchMeetings(server, reader);
  registerMeetingTools(server, reader);
  registerGetTranscript(server, reader);
  registerResources(server, reader);
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
