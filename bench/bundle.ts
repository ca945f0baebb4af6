/**
 * The ingress bundle beside a bundle holding only the SQS client, both built with
 * the bundling options the stack deploys with: size of index.mjs and module-init
 * time (a fresh Node process importing the bundle, the import timed from inside).
 * The ingress's on-demand S3 module is built and sized too.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { IngressEnvironment } from '../lambdas/ingress/environment';
import { S3_PAYLOAD_PUT_MODULE } from '../lambdas/shared/s3-payloads-on-demand';
import { BUNDLE_BUDGETS_KIB } from '../lib/bundle-budgets';
import { BUNDLING, onDemandBundleCommand, onDemandFileName } from '../lib/function';
import { bundleLikeDeployed } from '../local/bundle-like-deployed';
import { GOALS } from './goals';
import { fmt, median, verdict } from './stats';

// npm runs scripts from the project root.
const PROJECT_ROOT = process.cwd();
const OUT = join(PROJECT_ROOT, 'bench', 'out');

async function bundle(entry: string, name: string): Promise<string> {
  const outfile = join(OUT, name, 'index.mjs');
  await bundleLikeDeployed(join(PROJECT_ROOT, entry), outfile);
  return outfile;
}

// Environment the ingress reads at init (typed by its schema, so a new variable cannot be missed); nothing is called.
const INIT_ENV: { [K in keyof IngressEnvironment]: string } & Record<string, string> = {
  EVENTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111111111111/events',
  PAYLOAD_BUCKET: 'payloads',
  SIGNING_SECRET_ID: 'meeting-pipeline/webhook-signing-secret',
  MAX_BODY_BYTES: '3145728',
  INLINE_MESSAGE_LIMIT_BYTES: '1048576',
  SECRET_CACHE_SECONDS: '60',
  TABLE_NAME: 'meetings',
  DEDUP_RETENTION_DAYS: '7',
  QUARANTINE_MAX_PER_MINUTE: '600',
  QUARANTINE_MAX_BYTES_PER_MINUTE: '16777216',
  QUARANTINE_MAX_PER_BOT_PER_DAY: '1000',
  AWS_REGION: 'eu-west-1',
  POWERTOOLS_SERVICE_NAME: 'bench',
};

function initMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, ...INIT_ENV },
    encoding: 'utf8',
  });
  return Number(out.trim().split('\n').at(-1));
}

export async function benchBundle(): Promise<string[]> {
  mkdirSync(OUT, { recursive: true });
  const ingress = await bundle('lambdas/ingress/handler.ts', 'ingress');
  const ingressDir = join(OUT, 'ingress');
  execFileSync('bash', ['-c', onDemandBundleCommand(PROJECT_ROOT, ingressDir, S3_PAYLOAD_PUT_MODULE)]);
  const onDemand = join(ingressDir, onDemandFileName(S3_PAYLOAD_PUT_MODULE));
  const baseline = await bundle('bench/fixtures/sqs-only-handler.ts', 'sqs-only');
  const size = (file: string) => statSync(file).size;
  const runs = 15;
  const ingressInit: number[] = [];
  const baselineInit: number[] = [];
  initMs(ingress); // warm the file cache
  initMs(baseline);
  for (let i = 0; i < runs; i++) {
    ingressInit.push(initMs(ingress));
    baselineInit.push(initMs(baseline));
  }
  const sizeRatio = size(ingress) / size(baseline);
  const initRatio = median(ingressInit) / median(baselineInit);
  const budgets: string[] = [];
  for (const [entry, budget] of Object.entries(BUNDLE_BUDGETS_KIB)) {
    const kib =
      size(
        await bundle(
          entry,
          entry
            .replace(/^lambdas\//, '')
            .replace(/\.ts$/, '')
            .replaceAll('/', '-'),
        ),
      ) / 1024;
    budgets.push(
      `    ${entry.padEnd(40)} ${fmt(kib).padStart(5)} KiB  ${kib <= budget ? 'meets' : 'MISSES'} budget ≤ ${budget}`,
    );
  }
  return [
    `bundle: minified ESM (target ${BUNDLING.target}), module init = median of ${runs} fresh processes`,
    `  ingress:  ${fmt(size(ingress) / 1024)} KiB, init ${fmt(median(ingressInit), 1)} ms`,
    `            + ${fmt(size(onDemand) / 1024)} KiB S3 module beside it, loaded only to claim-check a body over the SQS limit`,
    `  SQS only: ${fmt(size(baseline) / 1024)} KiB, init ${fmt(median(baselineInit), 1)} ms`,
    `  size ratio ${fmt(sizeRatio, 2)}× (${verdict(sizeRatio, GOALS.ingressOverSqsOnly)}), init ratio ${fmt(initRatio, 2)}× (${verdict(initRatio, GOALS.ingressOverSqsOnly)})`,
    '  every function (lib/bundle-budgets.ts):',
    ...budgets,
  ];
}
