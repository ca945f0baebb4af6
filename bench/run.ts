/**
 * `npm run bench`: speed and size figures, measured in one run. Not a test: it
 * reports, it does not fail. It runs as an esbuild bundle, like the deployed code
 * (under tsx's loader the hot loops run about half as fast).
 */
import { benchAdversarial } from './adversarial';
import { benchArchive } from './archive';
import { benchBundle } from './bundle';
import { benchEvents } from './events';
import { benchQuarantineFlood } from './quarantine-flood';
import { benchVerify } from './verify';

const started = Date.now();
console.log(`meeting-pipeline benchmarks — Node ${process.version}, ${process.arch}\n`);
for (const section of [benchVerify, benchAdversarial, benchQuarantineFlood, benchBundle, benchEvents, benchArchive]) {
  const lines = await section();
  console.log(`${lines.join('\n')}\n`);
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
