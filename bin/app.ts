#!/usr/bin/env node
/** CDK app: typed configuration from context → one MeetingPipelineStack. */
import { Annotations, App } from 'aws-cdk-lib';
import { ConfigError, configFromContext, type PipelineConfig } from '../lib/config';
import { MeetingPipelineStack } from '../lib/meeting-pipeline-stack';
import { addNagChecks } from '../lib/nag';

const app = new App();
// cdk-nag's AwsSolutions and Serverless packs: an unacknowledged finding fails the synth.
addNagChecks(app);
const config = ((): PipelineConfig => {
  try {
    return configFromContext(app.node);
  } catch (error) {
    // A setting's mistake is the operator's to fix: one line saying which and why, no Node trace.
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.oneLine}\n`);
    process.exit(1);
  }
})();
const stackName: unknown = app.node.tryGetContext('stackName');

const stack = new MeetingPipelineStack(
  app,
  typeof stackName === 'string' && stackName !== '' ? stackName : 'MeetingPipeline',
  {
    config,
    description: 'meeting-pipeline: meeting assistant webhooks, meeting state, recordings and scheduled bots',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  },
);

if (new URL(config.upstreamBaseUrl).hostname.endsWith('example.com')) {
  Annotations.of(stack).addWarningV2(
    'meeting-pipeline:placeholderBaseUrl',
    'upstreamBaseUrl is the example placeholder; deploy with -c upstreamBaseUrl=https://<your service>/api/v1/',
  );
}
