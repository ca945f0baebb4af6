import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext, type PipelineConfig, parseConfig } from '../../lib/config';
import { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';

export const TEST_CONFIG_INPUT = { upstreamBaseUrl: 'https://meetings.example.org/api/v1/' };

/** Synthesizes the stack (with real esbuild bundling) and returns its template. */
export function synthTemplate(overrides: Partial<PipelineConfig> = {}): {
  stack: MeetingPipelineStack;
  template: Template;
} {
  const app = new App({ context: cdkJsonContext() });
  const config = parseConfig({ ...TEST_CONFIG_INPUT, ...overrides });
  const stack = new MeetingPipelineStack(app, 'TestPipeline', {
    config,
    env: { account: '111111111111', region: 'eu-west-1' },
  });
  return { stack, template: Template.fromStack(stack) };
}
