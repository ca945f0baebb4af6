/** `recording --download`: bytes kept only when their sha256 is the archive's; exit 5 otherwise. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadTarget, downloadVerified } from '../../cli/download';
import { EXIT } from '../../cli/exit-codes';

const bytes = Buffer.alloc(300_000, 7);
const sha256 = createHash('sha256').update(bytes).digest('hex');
let server: Server;
let url = '';
const dir = mkdtempSync(join(tmpdir(), 'cli-download-'));
const quiet = () => ({ advance: () => {}, done: () => {} });

beforeAll(async () => {
  server = createServer((_request, response) => response.writeHead(200, { 'content-length': bytes.length }).end(bytes));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/recording.mp4`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a checked download', () => {
  it('keeps bytes that match', async () => {
    const file = join(dir, 'good.mp4');
    await expect(downloadVerified(url, file, { sha256, bytes: bytes.length }, quiet)).resolves.toEqual({
      bytes: bytes.length,
      sha256,
    });
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('keeps nothing, and exits 5, when the bytes differ from the archive', async () => {
    const file = join(dir, 'bad.mp4');
    await expect(
      downloadVerified(url, file, { sha256: 'f'.repeat(64), bytes: bytes.length }, quiet),
    ).rejects.toMatchObject({ exitCode: EXIT.checksumMismatch, message: expect.stringContaining('Checksum mismatch') });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});

describe('--download into a folder', () => {
  it('writes the file in the folder under its own name', async () => {
    const folder = mkdtempSync(join(dir, 'into-'));
    const file = downloadTarget(folder, 'bot_1.mp4');
    expect(file).toBe(join(folder, 'bot_1.mp4'));
    await downloadVerified(url, file, { sha256, bytes: bytes.length }, quiet);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a folder that does not exist, and keeps a plain name as the file', () => {
    expect(() => downloadTarget(join(dir, 'missing/'), 'bot_1.mp4')).toThrow(/No folder .*missing\/: create it first/);
    expect(downloadTarget(join(dir, 'named.mp4'), 'bot_1.mp4')).toBe(join(dir, 'named.mp4'));
  });

  it('leaves nothing behind when the checked file cannot take its name', async () => {
    const taken = mkdtempSync(join(dir, 'taken-'));
    mkdirSync(join(taken, 'inside'));
    const file = join(taken, 'inside');
    // Given straight to downloadVerified (no target resolution): a folder stands at the name.
    await expect(downloadVerified(url, file, { sha256, bytes: bytes.length }, quiet)).rejects.toThrow(
      /cannot be written/,
    );
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});
