/**
 * Archive a generated recording (2 GiB by default) served over local HTTP into the
 * S3 emulator, beside a direct lib-storage Upload of the same bytes from a local
 * file. Each runs in its own process (the emulators in a third: they keep objects
 * in memory), so peak RSS is the archiver's own.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { recordingChunks, recordingSha256 } from '../local/simulator/api-server';
import { fmt, verdict } from './stats';

const SIZE = Number(process.env.BENCH_RECORDING_MB ?? 2048) * 1024 * 1024;
const OUT = join(process.cwd(), 'bench', 'out');

async function bundled(name: string): Promise<string> {
  const outfile = join(OUT, `${name}.mjs`);
  await build({
    entryPoints: [join(process.cwd(), 'bench', 'processes', `${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  return outfile;
}

async function runOnce(script: string, env: Record<string, string>): Promise<Record<string, number | string>> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, number | string>;
}

export async function benchArchive(): Promise<string[]> {
  const [servicesScript, archiveScript, directScript] = await Promise.all(
    ['archive-services', 'archive-run', 'direct-upload'].map(bundled),
  );
  const services = spawn(process.execPath, [servicesScript!], {
    env: { ...process.env, BENCH_RECORDING_BYTES: String(SIZE) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-archive-'));
  try {
    const [line] = (await once(services.stdout, 'data')) as [Buffer];
    const setup = JSON.parse(line.toString().trim()) as { env: Record<string, string>; bucket: string; seed: number };

    // The same bytes as a local file for the direct upload.
    const file = join(dir, 'recording.mp4');
    const writer = createWriteStream(file);
    for (const chunk of recordingChunks(setup.seed, SIZE)) if (!writer.write(chunk)) await once(writer, 'drain');
    writer.end();
    await once(writer, 'finish');

    const archive = await runOnce(archiveScript!, { ...setup.env, BENCH_SETUP: line.toString().trim() });
    const direct = await runOnce(directScript!, { ...setup.env, BENCH_FILE: file, BENCH_BUCKET: setup.bucket });
    if (archive.sha256 !== recordingSha256(setup.seed, SIZE))
      throw new Error('archived recording checksum does not match');

    const mbps = (result: Record<string, number | string>) => SIZE / 1024 ** 2 / Number(result.seconds);
    const ratio = mbps(archive) / mbps(direct);
    const peakMb = Number(archive.maxRssBytes) / 1024 ** 2;
    return [
      `archive: ${fmt(SIZE / 1024 ** 3, 2)} GiB generated recording over local HTTP into the S3 emulator (8 MiB parts, 4 in flight), one run each`,
      `  archive (download → SHA-256 → multipart upload): ${fmt(mbps(archive))} MiB/s, ${fmt(Number(archive.seconds), 1)} s, peak RSS ${fmt(peakMb)} MiB (${verdict(peakMb, 256)} MiB)`,
      `  direct lib-storage Upload from a local file:     ${fmt(mbps(direct))} MiB/s, ${fmt(Number(direct.seconds), 1)} s, peak RSS ${fmt(Number(direct.maxRssBytes) / 1024 ** 2)} MiB`,
      `  throughput ratio archive/direct: ${fmt(ratio * 100)}% (${verdict(ratio, 0.7, false)}); checksum verified`,
    ];
  } finally {
    services.stdin.end();
    services.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
