import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../fixtures/scratch';

const run = promisify(execFile);

// No AWS credentials or network: synth must still work. No credentials files either, so the CLI
// finds no account (with one, the placeholder address is refused: test/infra/app-context.test.ts).
const offlineEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_'))),
  AWS_CONFIG_FILE: '/nonexistent/aws-config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
};

// As long as the CLI may take (a busy machine bundles slowly); each synth has its own output folder.
describe('cdk synth', { timeout: 150_000 }, () => {
  it('synthesizes the app offline with the repository configuration', async () => {
    const outdir = scratchDir('cdk-out-');
    const { stderr } = await run('npx', ['cdk', 'synth', '--quiet', '--output', outdir], {
      env: { ...offlineEnv, CDK_DISABLE_VERSION_CHECK: 'true', AWS_EC2_METADATA_DISABLED: 'true' },
      timeout: 120_000,
    });
    expect(stderr).toContain('upstreamBaseUrl is the example placeholder');
    const template = JSON.parse(readFileSync(join(outdir, 'MeetingPipeline.template.json'), 'utf8'));
    expect(Object.keys(template.Outputs)).toContain('WebhookUrl');
  });

  it('fails with a message naming the bad setting', async () => {
    const outdir = scratchDir('cdk-out-');
    const failure = await run(
      'npx',
      ['cdk', 'synth', '--quiet', '--output', outdir, '-c', 'upstreamBaseUrl=http://x.example.org/v1'],
      {
        env: { ...offlineEnv, CDK_DISABLE_VERSION_CHECK: 'true', AWS_EC2_METADATA_DISABLED: 'true' },
        timeout: 120_000,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).not.toBe(0);
    expect(failure.stderr).toMatch(/upstreamBaseUrl \(given "http:\/\/x\.example\.org\/v1"\): must use https:\/\//);
    expect(failure.stderr).toMatch(/must end in \/api\/v1\//);
    // One line from the app (CDK adds its own line saying the subprocess failed), never a Node trace.
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });
});
