/** The CLI finds local mode from any folder of the repository, as git finds `.git`, and says where it looked. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit-codes';
import { findLocalEndpointsFile } from '../../cli/local-endpoints';
import { resolveTarget } from '../../cli/target';

const ENDPOINTS = {
  scheduleApiUrl: 'http://127.0.0.1:9/schedules',
  readApiUrl: 'http://127.0.0.1:9',
  region: 'us-east-1',
  dynamodb: { endpoint: 'http://127.0.0.1:9', tableName: 'dev-table' },
  s3: { endpoint: 'http://127.0.0.1:9', payloadBucket: 'dev-payloads' },
  sqs: {
    endpoint: 'http://127.0.0.1:9',
    eventsQueueUrl: 'http://127.0.0.1:9/q/events',
    eventsDeadLetterQueueUrl: 'http://127.0.0.1:9/q/events-dlq',
    archiveQueueUrl: 'http://127.0.0.1:9/q/archive.fifo',
  },
};

const folders: string[] = [];
const startingCwd = process.cwd();
afterEach(() => {
  process.chdir(startingCwd);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A repository-like folder with `.local/endpoints.json` at its root and a nested subfolder. */
function repository(): { root: string; nested: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'local-endpoints-')));
  folders.push(root);
  mkdirSync(join(root, '.local'));
  writeFileSync(join(root, '.local/endpoints.json'), JSON.stringify(ENDPOINTS));
  const nested = join(root, 'lambdas/core/calendar');
  mkdirSync(nested, { recursive: true });
  return { root, nested };
}

describe('finding local mode', () => {
  it('finds .local/endpoints.json in a folder above the working folder', () => {
    const { root, nested } = repository();
    expect(findLocalEndpointsFile(nested)).toBe(join(root, '.local/endpoints.json'));
    expect(findLocalEndpointsFile(root)).toBe(join(root, '.local/endpoints.json'));
  });

  it('--local from a subfolder targets the local mode of the repository', async () => {
    const { root, nested } = repository();
    process.chdir(nested);
    const target = await resolveTarget({ local: true });
    expect(target.label).toBe(`local mode (${join(root, '.local/endpoints.json')})`);
    expect(target.apiBaseUrl).toBe('http://127.0.0.1:9');
  });

  it('says where it looked when no folder above has one', () => {
    const empty = realpathSync(mkdtempSync(join(tmpdir(), 'no-local-')));
    folders.push(empty);
    expect(() => findLocalEndpointsFile(empty)).toThrow(
      expect.objectContaining({
        exitCode: EXIT.usage,
        message: expect.stringContaining(`No .local/endpoints.json in ${empty} or any folder above it`),
      }),
    );
  });
});
