import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext, parseConfig } from '../../lib/config';
import { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';
import { addNagChecks } from '../../lib/nag';
import { testApp } from './synth';

function synthWithNag(retainData: boolean) {
  const app = testApp({ ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] });
  new MeetingPipelineStack(app, 'NagCheck', {
    config: parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/', retainData }),
  });
  addNagChecks(app);
  return app.synth();
}

describe('cdk-nag AwsSolutions and Serverless packs', () => {
  it('find nothing unacknowledged in the stack', () => {
    expect(() => synthWithNag(true)).not.toThrow();
    expect(() => synthWithNag(false)).not.toThrow();
  });

  it('fail the synth when a finding is not acknowledged', () => {
    const app = testApp({ ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] });
    const stack = new MeetingPipelineStack(app, 'NagBroken', {
      config: parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/' }),
    });
    // An extra queue without SSE enforcement or a DLQ must be caught.
    new Queue(stack, 'Unchecked');
    addNagChecks(app);
    expect(() => app.synth()).toThrow(/NagBroken\/Unchecked/);
  });
});
