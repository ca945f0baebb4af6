/**
 * The lake's protocols under random interleavings (test/fixtures/lake-interleaving.ts): writers
 * (late archives, corrections), compaction runs, erasures (twice for one meeting, as a repeated API
 * call does) and a retention drop run at once over the versioned S3 emulator and dynalite, with a
 * fault at a random call, a crash at another and the clock moved past crashed holders' leases.
 * Then what the pipeline does next runs (after every lease expired): failed writes retried, each
 * erasure's second sweep, the next compaction run. Checked after each run:
 *  - every archived, non-erased meeting's rows are in each view exactly once, at their latest version;
 *  - an erased meeting's rows are in no object version under `lake/`, hence in no view.
 * A failure names its seed and interleaving. `SOAK_RUNS` (default 3) sets the runs (npm run soak),
 * `PROPERTY_SEED` the first seed: docs/lake.md says how to soak it.
 */

import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_LEASE_MS } from '../../lambdas/core/lake/day-lease';
import {
  compactClosedDays,
  createDayFolder,
  type LakeMaintenanceDependencies,
} from '../../lambdas/core/lake/lake-compaction';
import type { LakeObjects } from '../../lambdas/core/lake/lake-contract';
import { eraseFromLake } from '../../lambdas/core/lake/lake-erasure';
import { dropLakeDays } from '../../lambdas/core/lake/lake-retention';
import { LAKE_TABLE_NAMES, type LakeRow } from '../../lambdas/core/lake/lake-tables';
import { foldIfCompacted, putRecentFiles } from '../../lambdas/core/lake/lake-writer';
import { decodeLakeRows, encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import type { TableAccess } from '../../lambdas/core/store/dynamo';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { seededRandom } from '../../local/seeded-random';
import { type EraseWorld, startEraseWorld } from '../fixtures/erase-harness';
import { Interleaving, type JobClients, type JobPlan } from '../fixtures/lake-interleaving';
import { botsInEveryVersion, meetingRows } from '../fixtures/lake-rows';
import { lakeViewRows } from '../fixtures/lake-view';

const RUNS = Number(process.env.SOAK_RUNS ?? 3);
const FIRST_SEED = Number(process.env.PROPERTY_SEED ?? 1);
const DAYS = ['2026-09-30', '2026-10-01', '2026-10-02', '2026-10-03'];
const COMPACT = { compactAfterHours: 30 };
const BEFORE_ANY_CLOSED = new Date('2026-10-01T12:00:00Z');
const FIRST_DAY_CLOSED = new Date('2026-10-02T12:00:00Z');
const EVERY_DAY_CLOSED = new Date('2026-10-10T00:00:00Z');

let world: EraseWorld;

beforeAll(async () => {
  world = await startEraseWorld();
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

interface Meeting {
  botId: string;
  day: string;
  /** Its versions in write order: an archive, then perhaps a correction. */
  versions: { version: string; utterances: number }[];
}

interface RunPlan {
  /** Written and compacted before the interleaving (no faults). */
  before: Meeting[];
  /** Written during it: late archives of new meetings, corrections of earlier ones. */
  during: Meeting[];
  erased: string[];
  /** Retention drops the days before it (and erases their meetings). */
  retentionCutoff?: string;
  compactions: number;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function planRun(random: () => number, run: number): RunPlan {
  const version = (n: number) => new Date(Date.UTC(2026, 9, 5, 0, 0, n)).toISOString();
  const meetings = Array.from({ length: 6 }, (_, index) => ({
    botId: `bot_r${run}_${index}`,
    day: pick(random, DAYS),
    versions: [{ version: version(index), utterances: 1 + Math.floor(random() * 3) }],
  }));
  const before = meetings.filter(() => random() < 0.35);
  const during: Meeting[] = meetings.filter((meeting) => !before.includes(meeting));
  for (const meeting of before.filter(() => random() < 0.6)) {
    during.push({ ...meeting, versions: [{ version: version(10 + during.length), utterances: 4 }] });
  }
  const erased = meetings.filter(() => random() < 0.3).map(({ botId }) => botId);
  return {
    before,
    during,
    erased,
    retentionCutoff: random() < 0.25 ? (DAYS[1] as string) : undefined,
    compactions: 1 + Math.floor(random() * 3),
  };
}

async function lakeBucket(): Promise<LakeObjects> {
  const bucket = `${world.resources.tableName}-prop-${randomUUID().slice(0, 8)}`;
  await s3Client().send(new CreateBucketCommand({ Bucket: bucket }));
  await s3Client().send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  return s3LakeObjects(s3Client(), bucket);
}

const maintenance = (
  clients: Pick<JobClients, 'objects' | 'table' | 'now' | 'sleep'>,
): LakeMaintenanceDependencies => ({
  objects: clients.objects,
  table: clients.table,
  now: clients.now,
  telemetry: silentTelemetry,
  lease: { waitMs: 4000, sleep: clients.sleep },
});

/** What writeMeetingToLake does with a meeting's rows: the recent files, then its fold if the day is compacted. */
async function writeVersion(meeting: Meeting, at: Meeting['versions'][number], clients: JobClients): Promise<void> {
  const deps = maintenance(clients);
  await putRecentFiles(
    meeting.botId,
    meeting.day,
    meetingRows(meeting.botId, at.utterances, at.version),
    at.version,
    deps,
  );
  await foldIfCompacted(
    meeting.botId,
    meeting.day,
    { objects: deps.objects, fold: createDayFolder(deps) },
    {
      onlyIfRecentFilesLeft: false,
    },
  );
}

const writeJob = (meeting: Meeting) => `write ${meeting.botId}@${meeting.versions.at(-1)?.version}`;
const sortedRows = (rows: readonly LakeRow[]) => rows.map((row) => JSON.stringify(row)).sort();

async function runOnce(seed: number): Promise<{ calls: number; trace: string[]; problems: string[] }> {
  const random = seededRandom(seed);
  const plan = planRun(random, seed);
  const objects = await lakeBucket();
  const real = { objects, table: { db: documentClient(), tableName: world.resources.tableName } as TableAccess };
  // The table is shared by the runs: a lease a crashed job of an earlier run left goes first.
  for (const lease of [...DAYS, 'compacted_through'])
    await real.table.db.send(new DeleteCommand({ TableName: real.table.tableName, Key: keys.lakeDayLease(lease) }));
  // Before the interleaving, none of the days or only the first is closed; during it, all are.
  const interleaving = new Interleaving(random, random() < 0.5 ? BEFORE_ANY_CLOSED : FIRST_DAY_CLOSED);
  const direct: JobClients = { ...real, now: interleaving.now, sleep: async () => {} };

  for (const meeting of plan.before) for (const at of meeting.versions) await writeVersion(meeting, at, direct);
  await compactClosedDays(COMPACT, maintenance(direct));
  interleaving.advance(EVERY_DAY_CLOSED.getTime() - interleaving.now().getTime());

  // Erased (or dropped by retention) once its job started: a writer reads the tombstone first.
  const erased = new Set<string>();
  const jobs: Array<{ plan: JobPlan; work: (clients: JobClients) => Promise<unknown> }> = [];
  for (const meeting of plan.during)
    jobs.push({
      plan: { name: writeJob(meeting) },
      work: async (clients) => {
        for (const at of meeting.versions) {
          if (erased.has(meeting.botId)) return;
          await writeVersion(meeting, at, clients);
        }
      },
    });
  for (let n = 0; n < plan.compactions; n++)
    jobs.push({
      plan: { name: `compaction ${n + 1}` },
      work: (clients) => compactClosedDays(COMPACT, maintenance(clients)),
    });
  for (const botId of plan.erased) {
    const day = [...plan.before, ...plan.during].find((m) => m.botId === botId)?.day as string;
    // Two runs of one erasure: the API's "call again" while the first still rewrites.
    for (const attempt of [1, 2])
      jobs.push({
        plan: { name: `erase ${botId} #${attempt}` },
        work: async (clients) => {
          erased.add(botId); // the tombstone comes before the sweep
          await eraseFromLake(botId, day, maintenance(clients));
        },
      });
  }
  if (plan.retentionCutoff !== undefined) {
    const cutoff = plan.retentionCutoff;
    jobs.push({
      plan: { name: `retention before ${cutoff}` },
      work: async (clients) => {
        for (const m of [...plan.before, ...plan.during]) if (m.day < cutoff) erased.add(m.botId);
        await dropLakeDays(cutoff, { objects: clients.objects, telemetry: silentTelemetry });
      },
    });
  }
  // A fault at a random call of some jobs, a crash at another's.
  for (const job of jobs) {
    if (random() < 0.5) job.plan.faultAt = { call: 1 + Math.floor(random() * 40), afterEffect: random() < 0.5 };
    else if (random() < 0.15) job.plan.crashAt = 1 + Math.floor(random() * 25);
  }
  const outcomes = await interleaving.run(jobs, real);

  // What comes next, once every crashed holder's lease expired: the failed jobs' retries (a write
  // lands its latest version), each erasure's second sweep, the next compaction run.
  interleaving.advance(2 * DAY_LEASE_MS);
  const everyMeeting = [...plan.before, ...plan.during];
  const latest = new Map<string, Meeting>();
  for (const meeting of everyMeeting) if (!erased.has(meeting.botId)) latest.set(meeting.botId, meeting);
  // A failed write is retried, or stays in the DLQ: its meeting keeps the version it had (if any).
  const inDeadLetters = new Set<string>();
  for (const meeting of plan.during) {
    if (!latest.has(meeting.botId) || outcomes.get(writeJob(meeting)) === 'done') continue;
    if (random() < 0.5) for (const at of meeting.versions) await writeVersion(meeting, at, direct);
    else inDeadLetters.add(meeting.botId);
  }
  for (const botId of erased) {
    const day = everyMeeting.find((m) => m.botId === botId)?.day as string;
    await eraseFromLake(botId, day, maintenance(direct));
  }
  await compactClosedDays(COMPACT, maintenance(direct));

  const problems: string[] = [];
  const views = await lakeViewRows(objects);
  for (const [botId, meeting] of latest) {
    // Archived versions: the latest; with its write in the DLQ, the one before or (if that write
    // got as far as its meetings file) the new one. A first archive in the DLQ was never archived.
    const archived = inDeadLetters.has(botId)
      ? plan.before
          .filter((m) => m.botId === botId)
          .concat(meeting)
          .flatMap((m) => m.versions)
      : meeting.versions.slice(-1);
    if (inDeadLetters.has(botId) && archived.length === 1) continue;
    let found = false;
    for (const at of archived) {
      const want = meetingRows(botId, at.utterances, at.version);
      let all = true;
      for (const table of LAKE_TABLE_NAMES) {
        const got = views[table].filter((row) => row.bot_id === botId);
        // Through the codec: the rows as a file holds them (every column, null where unset).
        const wanted = await decodeLakeRows(table, encodeLakeRows(table, want[table]));
        all &&= JSON.stringify(sortedRows(got)) === JSON.stringify(sortedRows(wanted));
      }
      found ||= all;
    }
    if (!found) {
      const counts = LAKE_TABLE_NAMES.map((t) => `${t} ${views[t].filter((row) => row.bot_id === botId).length}`);
      problems.push(
        `${botId} (${meeting.day}): the views hold ${counts.join(', ')} rows, not one archived version of ${archived.map((at) => `${at.version} (${at.utterances} lines)`).join(' or ')}`,
      );
    }
  }
  const left = new Set(await botsInEveryVersion(s3Client(), objects.bucket));
  for (const botId of erased)
    if (left.has(botId)) problems.push(`${botId} was erased, but an object version under lake/ still holds its rows`);
  const calls = interleaving.trace.filter((step) => !step.endsWith(': sleep')).length;
  return { calls, trace: interleaving.trace, problems };
}

describe('the lake protocols under random interleavings, faults and crashes', () => {
  it(`keeps every archived meeting in each view once at its latest version, and no erased one anywhere (${RUNS} runs)`, async () => {
    let calls = 0;
    for (let seed = FIRST_SEED; seed < FIRST_SEED + RUNS; seed++) {
      const started = Date.now();
      const run = await runOnce(seed);
      if (process.env.PROPERTY_DEBUG) console.info(`seed ${seed}: ${run.calls} calls, ${Date.now() - started} ms`);
      calls += run.calls;
      expect(
        run.problems,
        `seed ${seed} (replay: PROPERTY_SEED=${seed} SOAK_RUNS=1)\ninterleaving:\n  ${run.trace.join('\n  ')}`,
      ).toEqual([]);
    }
    console.info(`lake protocols: ${RUNS} runs, ${calls} interleaved client calls`);
  }, 600_000);
});
