/**
 * Each way a user's SQL can name a file outside the lake folder, write one or loosen DuckDB's
 * limits (test/fixtures/escaping-sql.ts), sent where local mode takes user SQL: the local Athena
 * emulator (StartQueryExecution) and the CLI's `query` over local mode's engine (DuckDB over the
 * bucket's mirror). Each is refused, by the Trino grammar, the read-only guard or DuckDB itself;
 * nothing of the secret comes back and no file is written.
 */
import { GetQueryExecutionCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryCommand } from '../../cli/commands/query';
import { createMirroredLakeEngine } from '../../local/lake/mirrored-lake-engine';
import { LAKE_DATABASE, type LocalAthena, RESULTS_BUCKET, startLocalAthena } from '../fixtures/athena-lake';
import { type EscapeWorld, escapeWorld, escapingQueries, SECRET } from '../fixtures/escaping-sql';
import { scratchDir } from '../fixtures/scratch';

let lake: LocalAthena;
let emulatorWorld: EscapeWorld;
let emulatorFiles: string[];
beforeAll(async () => {
  lake = await startLocalAthena();
  emulatorWorld = escapeWorld(lake.root);
  emulatorFiles = emulatorWorld.files();
});
afterAll(async () => {
  await lake.stop();
});

// The cases are named before the worlds exist: their SQL is built from each world in its test.
const CASES = escapingQueries(escapeWorld(scratchDir('escape-names-'))).map(([what]) => what);
const sqlOf = (world: EscapeWorld, what: string) =>
  (escapingQueries(world).find(([name]) => name === what) as [string, string])[1];

/** What became of a query: refused at the call, or its final state and reason. */
async function emulatorOutcome(sql: string): Promise<string> {
  let id: string | undefined;
  try {
    ({ QueryExecutionId: id } = await lake.athena.send(
      new StartQueryExecutionCommand({
        QueryString: sql,
        WorkGroup: 'lake',
        QueryExecutionContext: { Database: LAKE_DATABASE },
      }),
    ));
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
  for (;;) {
    const { QueryExecution: execution } = await lake.athena.send(
      new GetQueryExecutionCommand({ QueryExecutionId: id }),
    );
    const state = execution?.Status?.State;
    if (state !== 'QUEUED' && state !== 'RUNNING') return `${state}: ${execution?.Status?.StateChangeReason ?? ''}`;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the local Athena emulator', () => {
  afterAll(() => expect(emulatorWorld.files()).toEqual(emulatorFiles));

  it.each(CASES)('refuses %s', async (what) => {
    const outcome = await emulatorOutcome(sqlOf(emulatorWorld, what));
    expect(outcome).toMatch(/^(refused|FAILED): /);
    expect(outcome).not.toContain(SECRET);
  });
});

describe("the CLI's query in local mode", () => {
  let world: EscapeWorld;
  let files: string[];
  const mirror = scratchDir('escape-mirror-');
  beforeAll(() => {
    world = escapeWorld(mirror);
    files = world.files();
  });
  afterAll(() => expect(world.files().filter((file) => !file.includes('.lake-mirror'))).toEqual(files));

  const command = queryCommand(() => createMirroredLakeEngine({ s3: lake.s3, bucket: RESULTS_BUCKET, dir: mirror }));

  it.each(CASES)('refuses %s', async (what) => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let outcome: string;
    try {
      await command.run(['query', sqlOf(world, what), '--endpoint', 'http://127.0.0.1:9']);
      outcome = `ran: ${[...out.mock.calls, ...err.mock.calls].join('')}`;
    } catch (error) {
      outcome = `${(error as Error).name}: ${(error as Error).message}`;
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(outcome).toMatch(/^(UsageError: refused: |CliError: the query failed: )/);
    expect(outcome).not.toContain(SECRET);
  });
});
