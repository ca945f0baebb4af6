/**
 * The lake bench's writer, in a process of its own so that its peak RSS is the writer's: generates
 * BENCH_LAKE_MEETINGS meetings over BENCH_LAKE_DAYS days into BENCH_LAKE_ROOT (a directory laid
 * out like the bucket) as recent per-meeting files through the real codec and key layout, then
 * compacts each day into one file per table the way lake-layout.ts describes (compacted files
 * first, then the `compacted_through` mark, then the recent files go), and writes the hostile
 * meeting apart (BENCH_LAKE_PART=hostile). Prints one JSON line of figures.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { COMPACTED_THROUGH_COLUMN, lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { LAKE_TABLE_NAMES, type LakeRow, type LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { decodeLakeRows, encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { benchDays, generateMeeting, hostileMeeting } from '../lake-data';

const root = process.env.BENCH_LAKE_ROOT ?? '';
if (root === '') throw new Error('BENCH_LAKE_ROOT is not set');
const meetings = Number(process.env.BENCH_LAKE_MEETINGS ?? 10_000);
const days = benchDays(Number(process.env.BENCH_LAKE_DAYS ?? 5));
const utterances = Number(process.env.BENCH_LAKE_UTTERANCES ?? 600);
const perDay = Math.ceil(meetings / days.length);

const put = (key: string, body: Uint8Array) => {
  const path = join(root, key);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
};

function lakeFiles(): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  const dir = join(root, 'lake');
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.parquet')) continue;
    count++;
    bytes += statSync(join(dir, entry)).size;
  }
  return { count, bytes };
}

const seconds = (since: number) => (performance.now() - since) / 1000;
/** CPU seconds of this process so far: the machine is shared, so wall time alone overstates the work. */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
async function writeLake() {
  const rows = { meetings: 0, utterances: 0, participants: 0 };

  // Recent tier: one PUT per meeting and table, as the archive writes them.
  let generateSeconds = 0;
  let encodeSeconds = 0;
  let putSeconds = 0;
  let written = 0;
  for (const day of days) {
    for (let index = 0; index < perDay && written < meetings; index++, written++) {
      let at = performance.now();
      const meeting = generateMeeting(day, index, utterances);
      generateSeconds += seconds(at);
      for (const table of LAKE_TABLE_NAMES) {
        at = performance.now();
        const body = encodeLakeRows(table, meeting[table]);
        encodeSeconds += seconds(at);
        at = performance.now();
        put(lakeKeys.recentFile(table, day, meeting.meetings[0]!.bot_id as string), body);
        putSeconds += seconds(at);
        rows[table] += meeting[table].length;
      }
    }
  }
  const writeCpuSeconds = cpuSeconds();
  const recent = lakeFiles();
  const rssAfterRecentMb = process.resourceUsage().maxRSS / 1024;

  // Compacted tier: a day's recent files read back, written as one file per table.
  const compactStarted = performance.now();
  const compactedBytes: Record<LakeTableName, number> = { meetings: 0, utterances: 0, participants: 0 };
  for (const day of days) {
    for (const table of LAKE_TABLE_NAMES) {
      const dir = join(root, lakeKeys.dayPrefix('recent', table, day));
      const dayRows: LakeRow[] = [];
      for (const name of readdirSync(dir).sort())
        for (const row of await decodeLakeRows(table, new Uint8Array(readFileSync(join(dir, name))))) dayRows.push(row);
      const body = encodeLakeRows(table, dayRows);
      put(lakeKeys.compactedFile(table, day), body);
      compactedBytes[table] += body.byteLength;
    }
    const mark = parquetWriteBuffer({ columnData: [{ name: COMPACTED_THROUGH_COLUMN, data: [day], type: 'STRING' }] });
    put(lakeKeys.stateFile(), new Uint8Array(mark));
    for (const table of LAKE_TABLE_NAMES)
      rmSync(join(root, lakeKeys.dayPrefix('recent', table, day)), { recursive: true });
  }
  const compactSeconds = seconds(compactStarted);
  const compactCpuSeconds = cpuSeconds() - writeCpuSeconds;
  const compacted = lakeFiles();
  const rssAfterCompactMb = process.resourceUsage().maxRSS / 1024;

  return {
    meetings: written,
    days: days.length,
    rows,
    generateSeconds,
    encodeSeconds,
    putSeconds,
    recent,
    rssAfterRecentMb,
    writeCpuSeconds,
    compactSeconds,
    compactCpuSeconds,
    compacted,
    compactedBytes,
    rssAfterCompactMb,
  };
}

/** The hostile meeting, encoded only (nothing reads it), in a process of its own for its peak RSS. */
function writeHostile() {
  const hostile = hostileMeeting(days.at(-1)!);
  const hostileRssBeforeMb = process.resourceUsage().maxRSS / 1024;
  const hostileFigures: Record<string, { rows: number; seconds: number; cpuSeconds: number; bytes: number }> = {};
  for (const table of LAKE_TABLE_NAMES) {
    const at = performance.now();
    const cpu = cpuSeconds();
    const body = encodeLakeRows(table, hostile[table]);
    hostileFigures[table] = {
      rows: hostile[table].length,
      seconds: seconds(at),
      cpuSeconds: cpuSeconds() - cpu,
      bytes: body.byteLength,
    };
  }
  const hostileInputChars =
    hostile.utterances.reduce((sum, row) => sum + String(row.text).length, 0) +
    hostile.participants.reduce((sum, row) => sum + String(row.name).length, 0);

  return {
    hostileRssBeforeMb,
    hostile: hostileFigures,
    hostileInputChars,
    hostileMaxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

console.log(JSON.stringify(process.env.BENCH_LAKE_PART === 'hostile' ? writeHostile() : await writeLake()));
