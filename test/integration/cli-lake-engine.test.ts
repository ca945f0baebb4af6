/**
 * The engine `search` and `query` use for a deployed stack (cli/lake-engine.ts): Athena, in the
 * workgroup and database the stack's outputs name, through the default credential chain and the
 * standard endpoint variable, here pointed at the local Athena emulator (DuckDB over lake files,
 * results into the versioned S3 emulator). The CLI's error for each way it can fail is checked too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../cli/exit-codes';
import { lakeEngineFor, withLakeEngine } from '../../cli/lake-engine';
import { targetFromEndpoint, targetFromStackOutputs } from '../../cli/target';
import { searchTranscripts } from '../../lambdas/core/lake/lake-search';
import { STACK_OUTPUTS } from '../../lambdas/core/stack-outputs';
import { LAKE_DATABASE, type LocalAthena, startLocalAthena, utterance } from '../fixtures/athena-lake';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const signing = { region: 'us-east-1', credentials };
const STACK = 'MeetingPipeline';

let lake: LocalAthena | undefined;
const saved = { ...process.env };

beforeAll(async () => {
  lake = await startLocalAthena({
    workGroups: {
      lake: { ResultConfiguration: { OutputLocation: 's3://pipeline-bucket/lake-results/' } },
      // A cutoff any query over the fixture exceeds (Athena's own minimum is 10 MB; the emulator takes what it is given).
      tight: {
        ResultConfiguration: { OutputLocation: 's3://pipeline-bucket/lake-results/' },
        BytesScannedCutoffPerQuery: 16,
      },
    },
  });
  lake.writeRecent('utterances', '2026-11-23', 'bot-a', [utterance('bot-a', 3, 'Ana', 'what about pricing?')]);
  lake.writeRecent('meetings', '2026-11-23', 'bot-a', [
    {
      bot_id: 'bot-a',
      state: 'ended',
      started_at: '2026-11-23T09:00:00.000Z',
      ended_at: null,
      duration_ms: null,
      utterance_count: 1,
      participant_count: 1,
      speaker_count: 1,
      schedule_id: null,
      calendar_id: null,
      summary: null,
      archived_at: '2026-11-23T10:00:00.000Z',
      lake_version: '2026-11-23T10:00:00.000Z',
    },
  ]);
  // What resolveTarget leaves for a deployed stack: the region; credentials from the default chain.
  process.env.AWS_ENDPOINT_URL_ATHENA = lake.emulator.endpoint;
  process.env.AWS_REGION = signing.region;
  process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
});

afterAll(async () => {
  process.env = saved;
  await lake?.stop();
});

const stackTarget = (workGroup?: string) =>
  targetFromStackOutputs(
    STACK,
    {
      [STACK_OUTPUTS.apiUrl]: 'https://api.example.test',
      ...(workGroup !== undefined && {
        [STACK_OUTPUTS.lakeWorkGroup]: workGroup,
        [STACK_OUTPUTS.lakeDatabase]: LAKE_DATABASE,
      }),
    },
    signing,
  );

describe('the lake engine of a deployed stack', () => {
  it("is Athena in the stack's workgroup and database", async () => {
    const engine = await lakeEngineFor(stackTarget('lake'));
    try {
      const page = await searchTranscripts(engine, { words: 'pricing' });
      expect(page.engine).toBe('athena');
      expect(page.query_id).toEqual(expect.any(String));
      expect(page.hits.map((hit) => [hit.bot_id, hit.offset, hit.speaker])).toEqual([['bot-a', '00:00:03', 'Ana']]);
    } finally {
      engine.close();
    }
  });

  it("says so when the workgroup's cutoff stopped the query (exit 1), not that the SQL was wrong", async () => {
    const error = await withLakeEngine(stackTarget('tight'), (engine, options) =>
      searchTranscripts(engine, { words: 'pricing' }, options),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.error);
    expect((error as CliError).message).toMatch(/^the workgroup's bytes-scanned cutoff stopped the query/);
  });

  it('refused input is a usage error (exit 2)', async () => {
    const error = await withLakeEngine(stackTarget('lake'), (engine, options) =>
      searchTranscripts(engine, { words: 'pricing', cursor: 'not-a-cursor' }, options),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toContain('cursor');
  });

  it('a stack deployed before the lake, or a bare API base, cannot be searched: one line says why', async () => {
    await expect(lakeEngineFor(stackTarget())).rejects.toThrow(
      `stack ${STACK} (us-east-1) has no LakeWorkGroup and LakeDatabase outputs`,
    );
    const bare = lakeEngineFor(targetFromEndpoint('http://127.0.0.1:1', async () => signing));
    await expect(bare).rejects.toMatchObject({ exitCode: EXIT.usage });
  });
});
