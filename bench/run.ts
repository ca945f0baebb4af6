/**
 * `npm run bench`: speed and size figures, measured in one run. Not a test: it
 * reports, it does not fail. It runs as an esbuild bundle, like the deployed code
 * (under tsx's loader the hot loops run about half as fast).
 */
import { benchAdversarial } from './adversarial';
import { benchArchive } from './archive';
import { benchBundle } from './bundle';
import { benchCalendar, expandHostileFeedChild, FEED_CHILD } from './calendar';
import { benchCompanyCalendars, REDUCED_SCALE } from './company-calendars';
import { benchConsole } from './console';
import { benchEvents } from './events';
import { benchLake, LAKE_REDUCED_MEETINGS } from './lake';
import { benchQuarantineFlood } from './quarantine-flood';
import { benchSqlGuard } from './sql-guard';
import { benchVerify } from './verify';

const child = process.env[FEED_CHILD];
if (child !== undefined) {
  // A child of benchCalendar: one feed, its own peak memory.
  expandHostileFeedChild(child);
  process.exit(0);
}

// `npm run bench -- calendar` runs one section (by name) alone.
const only = process.argv[2];
const sections = {
  verify: benchVerify,
  adversarial: benchAdversarial,
  guard: benchSqlGuard,
  quarantine: benchQuarantineFlood,
  calendar: benchCalendar,
  // Alone (`-- company`) at full scale, minutes on dynalite; reduced in the full run.
  company: () => benchCompanyCalendars(only === 'company' ? undefined : REDUCED_SCALE),
  bundle: benchBundle,
  console: benchConsole,
  events: benchEvents,
  archive: benchArchive,
  // Alone (`-- lake`) 10,000 meetings (BENCH_LAKE_MEETINGS to change), minutes; a tenth in the full run.
  lake: () =>
    benchLake(only === 'lake' || process.env.BENCH_LAKE_MEETINGS !== undefined ? undefined : LAKE_REDUCED_MEETINGS),
};
const started = Date.now();
console.log(`meeting-pipeline benchmarks — Node ${process.version}, ${process.arch}\n`);
for (const [name, section] of Object.entries(sections)) {
  if (only !== undefined && name !== only) continue;
  const lines = await section();
  console.log(`${lines.join('\n')}\n`);
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
