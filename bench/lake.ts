/**
 * `npm run bench -- lake`: the meetings lake at scale. A writer process (its own peak RSS) puts
 * 10,000 meetings × 600 utterances (BENCH_LAKE_MEETINGS to change; the full `npm run bench` runs
 * a tenth) over 5 days into a directory laid out like the bucket, through the real codec and key
 * layout, then compacts each day into one file per table. Here, DuckDB (the local engine) runs a
 * keyword search and talk time per speaker over every row, median of 5 runs each. The measured
 * bytes per row and per column go to bench/out/lake-profile.json, the figures `npm run capacity`
 * prices (capacity/lake-profile.json is the reviewed copy).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { parquetMetadata } from 'hyparquet';
import type { LakeProfile } from '../capacity/lake-load';
import type { LakeQuery } from '../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../lambdas/core/lake/lake-layout';
import { searchQuery, talkTimeQuery } from '../lambdas/core/lake/lake-questions';
import { searchTranscripts } from '../lambdas/core/lake/lake-search';
import { LAKE_TABLE_NAMES, type LakeTableName } from '../lambdas/core/lake/lake-tables';
import { createDuckDbLakeEngine } from '../local/lake/duckdb-lake-engine';
import { GOALS } from './goals';
import { benchDays, SEARCH_WORD, SEARCH_WORD_RATE } from './lake-data';
import { fmt, median, verdict } from './stats';

export const LAKE_FULL_MEETINGS = 10_000;
export const LAKE_REDUCED_MEETINGS = 1_000;
const DAYS = 5;
const UTTERANCES = 600;
const QUERY_GOAL_SECONDS = GOALS.lakeQuerySeconds;
const OUT = join(process.cwd(), 'bench', 'out');

/** The questions' own SQL texts (lake-questions.ts): all time (no day range), a page of 20 and one more. */
const SEARCH = searchQuery({ words: SEARCH_WORD, limit: 21 });
const TALK_TIME = talkTimeQuery({ limit: 100 });
const COUNT_HITS: LakeQuery = {
  sql: 'SELECT count(*) AS hits FROM utterances WHERE strpos(lower(text), lower(?)) > 0',
  params: [SEARCH_WORD],
};

interface WriterFigures {
  meetings: number;
  days: number;
  rows: Record<LakeTableName, number>;
  generateSeconds: number;
  encodeSeconds: number;
  putSeconds: number;
  recent: { count: number; bytes: number };
  rssAfterRecentMb: number;
  writeCpuSeconds: number;
  compactSeconds: number;
  compactCpuSeconds: number;
  compacted: { count: number; bytes: number };
  compactedBytes: Record<LakeTableName, number>;
  rssAfterCompactMb: number;
}

interface HostileFigures {
  /** Peak RSS once the rows were generated, before the writer ran; and at the end. */
  hostileRssBeforeMb: number;
  hostileMaxRssMb: number;
  hostile: Record<LakeTableName, { rows: number; seconds: number; cpuSeconds: number; bytes: number }>;
  hostileInputChars: number;
}

async function bundle(entry: string, outfile: string, minify = false): Promise<string> {
  await build({
    entryPoints: [join(process.cwd(), entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: minify ? undefined : 'external',
    minify,
    logLevel: 'silent',
  });
  return outfile;
}

async function runWriter<T>(script: string, env: Record<string, string>): Promise<T> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as T;
}

/** Compressed bytes per column of one file, from its footer (what a columnar engine reads per column). */
function columnBytes(path: string): Record<string, number> {
  const bytes = readFileSync(path);
  const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const out: Record<string, number> = {};
  for (const group of metadata.row_groups)
    for (const chunk of group.columns) {
      const name = chunk.meta_data?.path_in_schema.join('.') ?? '?';
      out[name] = (out[name] ?? 0) + Number(chunk.meta_data?.total_compressed_size ?? 0);
    }
  return out;
}

/** The writer module alone (the codec's encode path), minified as a Lambda bundle is, and its import time. */
async function writerModule(): Promise<{ bytes: number; initMs: number }> {
  const entry = join(OUT, 'lake-writer-entry.ts');
  writeFileSync(entry, "export { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';\n");
  const file = await bundle('bench/out/lake-writer-entry.ts', join(OUT, 'lake-writer.min.mjs'), true);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const script = `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`;
    times.push(
      Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()),
    );
  }
  return { bytes: statSync(file).size, initMs: median(times) };
}

export async function benchLake(
  meetings = Number(process.env.BENCH_LAKE_MEETINGS ?? LAKE_FULL_MEETINGS),
): Promise<string[]> {
  mkdirSync(OUT, { recursive: true });
  const writer = await bundle('bench/processes/lake-write.ts', join(OUT, 'lake-write.mjs'));
  const root = mkdtempSync(join(tmpdir(), 'bench-lake-'));
  try {
    const env = {
      BENCH_LAKE_ROOT: root,
      BENCH_LAKE_MEETINGS: String(meetings),
      BENCH_LAKE_DAYS: String(DAYS),
      BENCH_LAKE_UTTERANCES: String(UTTERANCES),
    };
    const w = await runWriter<WriterFigures>(writer, env);
    const hostile = await runWriter<HostileFigures>(writer, { ...env, BENCH_LAKE_PART: 'hostile' });
    const totalRows = w.rows.meetings + w.rows.utterances + w.rows.participants;
    const writeSeconds = w.encodeSeconds + w.putSeconds;

    const engine = await createDuckDbLakeEngine({ root });
    // Wall time and the process's CPU seconds (DuckDB's threads run in it): the machine is shared.
    const timed = async (query: LakeQuery) => {
      const first = await engine.run(query); // warm-up: DuckDB's file metadata cache, as a second query of a session
      const runs: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = process.cpuUsage();
        runs.push((await engine.run(query)).elapsedMs / 1000);
        const used = process.cpuUsage(before);
        cpu.push((used.user + used.system) / 1e6);
      }
      return { first, seconds: median(runs), cpuSeconds: median(cpu) };
    };
    let search: Awaited<ReturnType<typeof timed>>;
    let talk: Awaited<ReturnType<typeof timed>>;
    let hits: number;
    // The search function itself (first page, all time): the lake's days, then windows newest first.
    const now = new Date(`${benchDays(1)[0]}T12:00:00.000Z`);
    const paged = async (windowDays: number) => {
      const pages = [];
      for (let i = 0; i < 5; i++) pages.push(await searchTranscripts(engine, { words: SEARCH_WORD, now, windowDays }));
      const last = pages.at(-1) as (typeof pages)[number];
      return { seconds: median(pages.map((page) => page.elapsed_ms / 1000)), page: last };
    };
    let pageDefault: Awaited<ReturnType<typeof paged>>;
    let pageDaily: Awaited<ReturnType<typeof paged>>;
    try {
      search = await timed(SEARCH);
      pageDefault = await paged(31);
      pageDaily = await paged(1);
      talk = await timed(TALK_TIME);
      hits = Number((await engine.run(COUNT_HITS)).rows[0]?.[0] ?? 0);
    } finally {
      engine.close();
    }

    // Per column, from the compacted files of the first day (a full day of meetings).
    const firstDayFile = (table: LakeTableName) =>
      join(root, lakeKeys.compactedFile(table, benchDays(DAYS)[0] as string));
    const profile: LakeProfile = {
      measured: new Date().toISOString().slice(0, 10),
      meetings: w.meetings,
      utterancesPerMeeting: UTTERANCES,
      participantsPerMeeting: w.rows.participants / w.meetings,
      compactedBytesPerRow: Object.fromEntries(
        LAKE_TABLE_NAMES.map((table) => [table, w.compactedBytes[table] / w.rows[table]]),
      ) as Record<LakeTableName, number>,
      recentBytesPerMeeting: w.recent.bytes / w.meetings,
      utteranceColumnShare: share(columnBytes(firstDayFile('utterances'))),
      meetingColumnShare: share(columnBytes(firstDayFile('meetings'))),
    };
    writeFileSync(join(OUT, 'lake-profile.json'), `${JSON.stringify(profile, null, 2)}\n`);
    const module = await writerModule();

    const mb = (bytes: number) => fmt(bytes / 1024 ** 2, 1);
    const h = hostile.hostile;
    return [
      `lake: ${fmt(w.meetings)} meetings × ${UTTERANCES} utterances over ${w.days} days (${fmt(w.rows.utterances)} utterance rows, ${fmt(totalRows)} rows in all), written through the codec into a local directory laid out like the bucket; compacted with the codec directly (lake-compaction.ts not on main yet)`,
      `  writer module (encodeLakeRows, minified): ${fmt(module.bytes / 1024, 1)} KiB, cold import ${fmt(module.initMs, 1)} ms`,
      `  write, recent tier (one file per meeting and table): ${fmt(totalRows / writeSeconds)} rows/s (encode ${fmt(w.encodeSeconds, 1)} s, put ${fmt(w.putSeconds, 1)} s; generating the rows ${fmt(w.generateSeconds, 1)} s more); ${fmt(totalRows / w.writeCpuSeconds)} rows per CPU-s, generating included`,
      `  files before compaction: ${fmt(w.recent.count)} files, ${mb(w.recent.bytes)} MiB (${fmt(w.recent.bytes / w.rows.utterances, 1)} B per utterance)`,
      `  compaction (read back, one file per day and table): ${fmt(w.compactSeconds, 1)} s, ${fmt(w.rows.utterances / w.compactSeconds)} utterances/s (${fmt(w.compactCpuSeconds, 1)} CPU-s)`,
      `  files after compaction: ${fmt(w.compacted.count)} files (the state file included), ${mb(w.compacted.bytes)} MiB (${fmt(w.compacted.bytes / w.rows.utterances, 1)} B per utterance; meetings ${fmt(profile.compactedBytesPerRow.meetings)} B/row, participants ${fmt(profile.compactedBytesPerRow.participants)} B/row)`,
      `  writer peak RSS: ${fmt(w.rssAfterRecentMb)} MiB writing meetings, ${fmt(w.rssAfterCompactMb)} MiB after compacting a day of ${fmt(w.rows.utterances / w.days)} utterances`,
      `  DuckDB keyword search ("${SEARCH_WORD}", in ${fmt(hits)} lines = ${fmt((hits / w.rows.utterances) * 100, 2)} % of ${fmt(w.rows.utterances)}; newest first, 20 hits), median of 5: ${fmt(search.seconds, 2)} s (${verdict(search.seconds, QUERY_GOAL_SECONDS)} s), ${fmt(search.cpuSeconds, 2)} CPU-s; first run ${fmt(search.first.elapsedMs / 1000, 2)} s`,
      `  searchTranscripts, first page of 20 all time, median of 5: 31-day windows ${fmt(pageDefault.seconds, 2)} s, ${fmt(pageDefault.page.queries)} queries, ${mb(pageDefault.page.bytes_scanned)} MiB read, searched back to ${pageDefault.page.searched_through}; 1-day windows ${fmt(pageDaily.seconds, 2)} s, ${fmt(pageDaily.page.queries)} queries, ${mb(pageDaily.page.bytes_scanned)} MiB read (the page fills on the newest day)`,
      `  DuckDB talk time per speaker (${fmt(talk.first.rows.length)} speakers, all rows), median of 5: ${fmt(talk.seconds, 2)} s (${verdict(talk.seconds, QUERY_GOAL_SECONDS)} s), ${fmt(talk.cpuSeconds, 2)} CPU-s; first run ${fmt(talk.first.elapsedMs / 1000, 2)} s`,
      `  hostile meeting (600 lines × 20,000 characters, 5,000 participants × 1 KiB names; ${mb(hostile.hostileInputChars)} MiB of text, little to compress): utterances ${fmt(h.utterances.seconds, 2)} s (${fmt(h.utterances.cpuSeconds, 2)} CPU-s) → ${mb(h.utterances.bytes)} MiB, participants ${fmt(h.participants.seconds, 2)} s (${fmt(h.participants.cpuSeconds, 2)} CPU-s) → ${mb(h.participants.bytes)} MiB; peak RSS ${fmt(hostile.hostileMaxRssMb)} MiB, ${fmt(hostile.hostileMaxRssMb - hostile.hostileRssBeforeMb)} MiB of it the writer's`,
      `  expected search hits at ${SEARCH_WORD_RATE * 100} %: ~${fmt(w.rows.utterances * SEARCH_WORD_RATE)}; bytes per row → bench/out/lake-profile.json; ${cpus().length} cores, load average ${fmt(loadavg()[0] ?? 0, 1)} (1 min) at the end`,
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Each column's part of a file's bytes. */
function share(bytes: Record<string, number>): Record<string, number> {
  const total = Object.values(bytes).reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.entries(bytes).map(([name, b]) => [name, b / total]));
}
