/**
 * Downloads a file to disk while hashing it, and keeps it only if its bytes match
 * the expected sha256: written to `<file>.partial` and renamed once checked, so a
 * file at the name is always a verified one.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CliError, EXIT } from './exit-codes';
import type { Progress } from './progress';

export interface Expected {
  sha256: string;
  bytes: number;
}

/**
 * Where `--download PATH` writes: PATH itself, or inside it under `name` when PATH is a folder
 * (an existing one, or one written with a trailing slash, which must exist).
 */
export function downloadTarget(path: string, name: string): string {
  let isFolder = /[/\\]$/.test(path);
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    if (isFolder) throw new CliError(`No folder ${path}: create it first, or give a file name.`);
  }
  return isFolder ? join(path, name) : path;
}

export async function downloadVerified(
  url: string,
  file: string,
  expected: Expected,
  progress: (total: number | undefined) => Progress,
): Promise<{ bytes: number; sha256: string }> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new CliError(`Could not download the recording: ${(error as Error).message}`);
  }
  if (!response.ok || response.body === null)
    throw new CliError(`The recording link answered ${response.status}: it may have expired, ask for a new one.`);
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const bar = progress(Number.isFinite(length) ? length : expected.bytes);
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      bar.advance(chunk.length);
      done(null, chunk);
    },
  });
  const partial = `${file}.partial`;
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), measure, createWriteStream(partial));
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`The download of ${file} failed: ${(error as Error).message}`);
  }
  bar.done();
  const sha256 = hash.digest('hex');
  if (sha256 !== expected.sha256 || bytes !== expected.bytes) {
    await rm(partial, { force: true });
    throw new CliError(
      `Checksum mismatch: downloaded ${bytes} bytes with sha256 ${sha256}, but the archive recorded ${expected.bytes} bytes with sha256 ${expected.sha256}. Nothing was kept; try again, and if it repeats the stored recording differs from what was archived.`,
      EXIT.checksumMismatch,
    );
  }
  try {
    await rename(partial, file);
  } catch (error) {
    // Checked, but it cannot take its name (a folder there, no permission): nothing is left behind.
    await rm(partial, { force: true });
    throw new CliError(
      `The recording was downloaded and checked, but ${file} cannot be written: ${(error as Error).message}`,
    );
  }
  return { bytes, sha256 };
}
