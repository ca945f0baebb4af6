/**
 * The lake in local mode, end to end: meetings the simulated service plays are archived by the
 * archive function, which writes their rows to the local bucket's `lake/`; `meeting-pipeline
 * search` and the MCP server's `search_transcripts` find them at the offsets the read API's
 * transcript gives; after the day is compacted, erasing one of them leaves no row and no object of
 * it in any lake file (the compacted file rewritten, the other meeting's rows intact), nor in the
 * folders local mode mirrors the lake into for DuckDB, and the receipt counts what went. The
 * printed search runs the bin as a child, as a user does; the other CLI runs are `main` in this
 * process (each child costs seconds of start-up on a busy machine).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeEngineFor } from '../../cli/lake-engine';
import { lakeMirrorDirOf } from '../../cli/local-endpoints';
import { readApiReader } from '../../cli/mcp/meeting-reader';
import { createMeetingServer } from '../../cli/mcp/server';
import { resolveTarget } from '../../cli/target';
import { compactDay } from '../../lambdas/core/lake/lake-compaction';
import { LAKE_ATTRIBUTE, type LakeRecord } from '../../lambdas/core/lake/lake-contract';
import { LAKE_PREFIX, LAKE_RESULTS_PREFIX, lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { lakeSearch } from '../../lambdas/core/lake/lake-search';
import type { LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { decodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { mirrorLake } from '../../local/lake/lake-mirror';
import { unversionedObjects } from '../../local/unversioned-object-versions';
import { cliInProcess } from '../fixtures/cli-in-process';
import { archivedMeeting, type CliLocalStack, cli, startCliLocalStack } from '../fixtures/cli-local-stack';

let local: CliLocalStack;
beforeAll(async () => {
  local = await startCliLocalStack('lake');
}, 120_000);
afterAll(() => local?.stop());

const target = () => ['--endpoints-file', local.endpointsFile];

async function archived(scheduleId: string): Promise<string> {
  const botId = await archivedMeeting(local, scheduleId);
  expect(botId).not.toBe('');
  return botId;
}

interface Line {
  offset_ms: number;
  speaker_name: string;
  text: string;
}

async function transcriptOf(botId: string): Promise<Line[]> {
  const response = await fetch(`${local.stack.readApiUrl}/meetings/${botId}/transcript`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { utterances: Line[] }).utterances;
}

/** A word of the line that no other line of the meeting has, to search for. */
function distinctWord(lines: Line[]): { word: string; line: Line } {
  for (const line of lines) {
    for (const word of line.text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 6)) {
      const lower = word.toLowerCase();
      if (lines.filter((other) => other.text.toLowerCase().includes(lower)).length === 1) return { word, line };
    }
  }
  throw new Error('no line has a word of its own');
}

const hh = (ms: number) =>
  [Math.floor(ms / 3_600_000), Math.floor(ms / 60_000) % 60, Math.floor(ms / 1000) % 60]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');

const lakeObjects = () => s3LakeObjects(s3Client(), local.stack.recordingsBucket, unversionedObjects(s3Client()));

async function lakeRowsOf(botId: string): Promise<number> {
  const objects = lakeObjects();
  let rows = 0;
  for (const { key } of await objects.list(LAKE_PREFIX)) {
    const table = key.split('/')[2] as LakeTableName;
    if (!['meetings', 'utterances', 'participants'].includes(table)) continue;
    const stored = await objects.get(key);
    if (stored === null) continue;
    rows += (await decodeLakeRows(table, stored.body)).filter((row) => row.bot_id === botId).length;
  }
  return rows;
}

/** Rows of the bot in each Parquet file of a mirror folder (`<dir>/lake/<tier>/<table>/…`), by file. */
async function mirrorFilesHolding(dir: string, botId: string): Promise<string[]> {
  const lakeRoot = join(dir, LAKE_PREFIX);
  const holding: string[] = [];
  for (const path of readdirSync(lakeRoot, { recursive: true, encoding: 'utf8' })) {
    const table = path.split(sep)[1] as LakeTableName;
    if (!path.endsWith('.parquet') || !['meetings', 'utterances', 'participants'].includes(table)) continue;
    const rows = await decodeLakeRows(table, readFileSync(join(lakeRoot, path)));
    if (rows.some((row) => row.bot_id === botId)) holding.push(relative(dir, join(lakeRoot, path)));
  }
  return holding;
}

describe('the lake in local mode', () => {
  let first: string;
  let second: string;

  it('finds an archived meeting with `search` and the MCP server at the read API transcript offsets', {
    timeout: 240_000,
  }, async () => {
    first = await archived('lake-first');
    second = await archived('lake-second');
    const lines = await transcriptOf(first);
    expect(lines.length).toBeGreaterThan(0);
    const { word, line } = distinctWord(lines);

    const found = await cliInProcess(['search', word, '--json', ...target()]);
    expect(found.code, found.stderr).toBe(0);
    const page = JSON.parse(found.stdout) as { hits: Array<{ bot_id: string; offset_ms: number; offset: string }> };
    const hit = page.hits.find((h) => h.bot_id === first);
    expect(hit).toMatchObject({ offset_ms: line.offset_ms, offset: hh(line.offset_ms) });

    const printed = await cli(['search', word, ...target()]);
    expect(printed.stdout).toContain(`${first}  [${hh(line.offset_ms)}]  ${line.speaker_name}:`);

    const api = await resolveTarget({ endpointsFile: local.endpointsFile });
    const engine = await lakeEngineFor(api);
    const client = new Client({ name: 'lake-local-test', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMeetingServer(
      readApiReader(async () => api),
      { lake: { engine, questions: lakeSearch } },
    ).connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = (await client.callTool({
        name: 'search_transcripts',
        arguments: { words: word },
      })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      const hits = (result.structuredContent as { hits: Array<{ bot_id: string; offset_ms: number }> }).hits;
      expect(hits.find((h) => h.bot_id === first)?.offset_ms).toBe(line.offset_ms);
    } finally {
      await client.close();
      engine.close();
    }

    // The read API's search route, through the Athena engine and the local Athena emulator.
    const routed = await fetch(`${local.stack.readApiUrl}/search?q=${encodeURIComponent(word)}`);
    expect(routed.status).toBe(200);
    const body = (await routed.json()) as { hits: Array<{ bot_id: string; offset_ms: number }>; engine: string };
    expect(body.engine).toBe('athena');
    expect(body.hits.find((h) => h.bot_id === first)?.offset_ms).toBe(line.offset_ms);
  });

  it('erasing a meeting of a compacted day leaves no row or object of it in the lake; the other stays', {
    timeout: 240_000,
  }, async () => {
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: local.stack.resources.tableName, Key: keys.meeting(first), ConsistentRead: true }),
    );
    const record = Item?.[LAKE_ATTRIBUTE] as LakeRecord | undefined;
    expect(record).toBeDefined();
    const day = record?.day ?? '';
    const secondRows = await lakeRowsOf(second);
    expect(await lakeRowsOf(first)).toBeGreaterThan(0);

    await compactDay(day, {
      table: { db: documentClient(), tableName: local.stack.resources.tableName },
      objects: lakeObjects(),
      telemetry: silentTelemetry,
      now: () => new Date(),
    });
    const compacted = await lakeObjects().list(LAKE_PREFIX);
    expect(compacted.map((o) => o.key)).toContain(lakeKeys.compactedFile('utterances', day));
    expect(compacted.filter((o) => o.key.startsWith(`${LAKE_PREFIX}recent/`))).toEqual([]);

    // Mirrored as a search mirrors it first: the CLI's folder next to the endpoints file, the search route's own.
    const mirrors = [lakeMirrorDirOf(local.endpointsFile, local.stack.recordingsBucket), local.stack.lakeMirrorDir];
    for (const dir of mirrors) await mirrorLake(s3Client(), local.stack.recordingsBucket, dir);
    const mirroredBefore = (await Promise.all(mirrors.map((dir) => mirrorFilesHolding(dir, first)))).flat();
    // Its rows in each table's compacted file, in both folders.
    expect(mirroredBefore).toHaveLength(6);

    const erased = await cliInProcess(['erase', first, '--yes', '--json', ...target()]);
    expect(erased.code, erased.stderr).toBe(0);
    const receipt = JSON.parse(erased.stdout) as { counts: Record<string, number> };
    expect(receipt.counts.lake_rows).toBeGreaterThan(0);
    // No mirror keeps the erased meeting; each holds what the bucket holds (the other meeting's rows, compacted).
    for (const dir of mirrors) {
      expect(await mirrorFilesHolding(dir, first), dir).toEqual([]);
      expect(await mirrorFilesHolding(dir, second), dir).toContain(
        relative(dir, join(dir, lakeKeys.compactedFile('utterances', day))),
      );
    }
    // The receipt says so: the mirrors' files that held its rows.
    expect(receipt.counts.lake_copies).toBe(mirroredBefore.length);
    // The search route's Athena result named the bot: it went too.
    expect(receipt.counts.query_results).toBeGreaterThan(0);
    for (const { key } of await lakeObjects().list(LAKE_RESULTS_PREFIX)) {
      const stored = await lakeObjects().get(key);
      expect(Buffer.from(stored?.body ?? []).toString('utf8')).not.toContain(first);
    }

    expect(await lakeRowsOf(first)).toBe(0);
    expect(await lakeRowsOf(second)).toBe(secondRows);
    const { word } = distinctWord(await transcriptOf(second));
    const after = await cliInProcess(['search', word, '--json', ...target()]);
    const bots = (JSON.parse(after.stdout) as { hits: Array<{ bot_id: string }> }).hits.map((h) => h.bot_id);
    expect(bots).toContain(second);
    expect(bots).not.toContain(first);
  });
});
