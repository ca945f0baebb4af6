import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext, type PipelineConfig, parseConfig } from '../../lib/config';
import { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';
import { scratchDir } from '../fixtures/scratch';
import { SHARED_DIR_VARIABLE } from '../setup/run-temp-dir';

export const TEST_CONFIG_INPUT = { upstreamBaseUrl: 'https://meetings.example.org/api/v1/' };

/** An app whose cloud assembly goes to a scratch folder of the test file (removed when the file ends). */
export function testApp(context: Record<string, unknown> = cdkJsonContext()): App {
  return new App({ context, outdir: scratchDir('cdk.out-') });
}

/**
 * Synthesizes the stack (with real esbuild bundling) and returns its template. The
 * assembly (the bundled functions) is removed at once: only the template is kept.
 */
export function synthTemplate(overrides: Partial<PipelineConfig> = {}): {
  stack: MeetingPipelineStack;
  template: Template;
} {
  const app = testApp();
  const config = parseConfig({ ...TEST_CONFIG_INPUT, ...overrides });
  const stack = new MeetingPipelineStack(app, 'TestPipeline', {
    config,
    env: { account: '111111111111', region: 'eu-west-1' },
  });
  try {
    return { stack, template: Template.fromStack(stack) };
  } finally {
    rmSync(app.outdir, { recursive: true, force: true });
  }
}

/**
 * Settings changed from their defaults, one stack for every test that asks how a setting shows in
 * the template (each reads only its own setting's resources): synthesized once per run, not once
 * per setting.
 */
export const CHANGED_SETTINGS: Partial<PipelineConfig> = {
  calendarSyncEveryMinutes: 10,
  calendarCredentialsSecretPrefix: 'acme/calendar-keys/',
  calendarUserSyncConcurrency: 7,
  microsoftGraphUrl: 'https://graph.microsoft.us/v1.0',
  microsoftLoginUrl: 'https://login.microsoftonline.us',
  calendarEventProducers: ['333333333333', 'arn:aws:iam::222222222222:role/calendar-integration'],
  missedMeetingsAlarmPercent: 35,
  replacedVersionRetentionDays: 7,
  retainData: false,
};

/**
 * The template synthTemplate gives for these settings, synthesized once per test run and
 * shared by the test files that only read the template (the run removes it at its end).
 */
export function sharedTemplate(overrides: Partial<PipelineConfig> = {}): Template {
  const sharedDir = process.env[SHARED_DIR_VARIABLE];
  if (sharedDir === undefined) return synthTemplate(overrides).template;
  const key = createHash('sha256').update(JSON.stringify(overrides)).digest('hex').slice(0, 16);
  const file = join(sharedDir, `template-${key}.json`);
  if (existsSync(file)) return Template.fromJSON(JSON.parse(readFileSync(file, 'utf8')));
  const template = synthTemplate(overrides).template;
  // Written whole, then renamed: a test file reading at the same time sees all of it or none.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(template.toJSON()));
  renameSync(partial, file);
  return template;
}
