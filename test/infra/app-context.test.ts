/**
 * A deploy that refuses to go wrong: a context key the app does not read fails the synth with
 * the nearest known key, a bad stack name fails it, and the placeholder service address fails
 * a synth that can deploy (the CDK CLI found an account) while an offline one still works.
 * bin/app.ts runs as `cdk synth` runs it (context in CDK_CONTEXT_JSON); each case fails before
 * any bundling, so it takes a second or two.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAppContext, synthCanDeploy, unknownContextKeyProblems } from '../../lib/app-context';
import { ConfigError, cdkJsonContext } from '../../lib/config';
import { BIN, ROOT, run } from '../fixtures/cli-local-stack';

const NO_TRACE = /^\s+at /m;

describe('context keys', () => {
  it('names a misspelt key and the key it most likely meant', () => {
    expect(unknownContextKeyProblems({ upstreamBaseURL: 'https://a.example.org/api/v1/' })).toEqual([
      'upstreamBaseURL: not a setting of this app (did you mean upstreamBaseUrl?) (docs/configuration.md lists them)',
    ]);
    expect(unknownContextKeyProblems({ alarmEmial: 'a@b.org' })[0]).toContain('(did you mean alarmEmail?)');
    expect(unknownContextKeyProblems({ stakName: 'Two' })[0]).toContain('(did you mean stackName?)');
    expect(unknownContextKeyProblems({ zzzzzzzz: 1 })[0]).not.toContain('did you mean');
  });

  it("leaves CDK's own keys alone: feature flags, CLI settings, lookups, notices", () => {
    expect(
      unknownContextKeyProblems({
        ...cdkJsonContext(),
        'aws:cdk:bundling-stacks': ['**'],
        'availability-zones:account=111111111111:region=eu-west-1': ['a'],
        'acknowledged-issue-numbers': [1],
        stackName: 'Second',
      }),
    ).toEqual([]);
  });

  it('refuses a stack name CloudFormation would refuse, and defaults it', () => {
    expect(() => checkAppContext({ stackName: 'two stacks' })).toThrow(ConfigError);
    expect(() => checkAppContext({ stackName: '1st' })).toThrow(/stackName: must start with a letter/);
    expect(checkAppContext({ stackName: 'MeetingPipeline-eu' }).stackName).toBe('MeetingPipeline-eu');
    expect(checkAppContext({}).stackName).toBe('MeetingPipeline');
  });

  it('a synth can deploy when the CDK CLI found an account', () => {
    expect(synthCanDeploy({ CDK_DEFAULT_ACCOUNT: '111111111111' })).toBe(true);
    expect(synthCanDeploy({})).toBe(false);
  });
});

describe('bin/app.ts as cdk synth and cdk deploy run it', () => {
  const out = mkdtempSync(join(tmpdir(), 'synth-context-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const synth = (context: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    run(join(BIN, 'tsx'), [join(ROOT, 'bin/app.ts')], {
      CDK_CONTEXT_JSON: JSON.stringify(context),
      CDK_OUTDIR: out,
      ...env,
    });

  it('a misspelt -c key fails with one line and the key meant', async () => {
    const result = await synth({ ...cdkJsonContext(), upstreamBaseURL: 'https://meetings.acme.example.org/api/v1/' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('upstreamBaseURL (given "https://meetings.acme.example.org/api/v1/")');
    expect(result.stderr).toContain('did you mean upstreamBaseUrl?');
    expect(result.stderr).not.toMatch(NO_TRACE);
  });

  it('the placeholder address fails a synth for an account (a deploy), with one line', async () => {
    const result = await synth(cdkJsonContext(), {
      CDK_DEFAULT_ACCOUNT: '111111111111',
      CDK_DEFAULT_REGION: 'eu-west-1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^meeting-pipeline configuration: upstreamBaseUrl: is the example placeholder/),
    ]);
  });
});
