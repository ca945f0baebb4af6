import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

// No AWS credentials or network: synth must still work.
const offlineEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_')));

describe('cdk synth', () => {
  it('synthesizes the app offline with the repository configuration', async () => {
    const { stderr } = await run('npx', ['cdk', 'synth', '--quiet', '--output', outdir], {
      env: { ...offlineEnv, CDK_DISABLE_VERSION_CHECK: 'true', AWS_EC2_METADATA_DISABLED: 'true' },
      timeout: 120_000,
    });
    expect(stderr).toContain('upstreamBaseUrl is the example placeholder');
    const template = JSON.parse(readFileSync(join(outdir, 'MeetingPipeline.template.json'), 'utf8'));
    expect(Object.keys(template.Outputs)).toContain('WebhookUrl');
  });

  it('fails with a message naming the bad setting', async () => {
    const failure = await run(
      'npx',
      ['cdk', 'synth', '--quiet', '--output', outdir, '-c', 'upstreamBaseUrl=http://x.example.org/v1'],
      {
        env: { ...offlineEnv, CDK_DISABLE_VERSION_CHECK: 'true', AWS_EC2_METADATA_DISABLED: 'true' },
        timeout: 120_000,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).not.toBe(0);
    expect(failure.stderr).toMatch(/upstreamBaseUrl: must use https:\/\//);
    expect(failure.stderr).toMatch(/must end in \/api\/v1\//);
  });
});
