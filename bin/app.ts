#!/usr/bin/env node
/** CDK app: typed configuration from context → one MeetingPipelineStack. */
import { Annotations, App } from 'aws-cdk-lib';
import { checkAppContext, PLACEHOLDER_UPSTREAM_PROBLEM, placeholderUpstream, synthCanDeploy } from '../lib/app-context';
import { ConfigError, configFromContext, type PipelineConfig } from '../lib/config';
import { MeetingPipelineStack } from '../lib/meeting-pipeline-stack';
import { addNagChecks } from '../lib/nag';

const app = new App();
// cdk-nag's AwsSolutions and Serverless packs: an unacknowledged finding fails the synth.
addNagChecks(app);
const { config, stackName } = ((): { config: PipelineConfig; stackName: string } => {
  try {
    const { stackName } = checkAppContext(app.node.getAllContext() as Record<string, unknown>);
    const config = configFromContext(app.node);
    if (synthCanDeploy(process.env) && placeholderUpstream(config))
      throw new ConfigError([PLACEHOLDER_UPSTREAM_PROBLEM]);
    return { config, stackName };
  } catch (error) {
    // A setting's mistake is the operator's to fix: one line saying which and why, no Node trace.
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.oneLine}\n`);
    process.exit(1);
  }
})();

const stack = new MeetingPipelineStack(app, stackName, {
  config,
  description: 'meeting-pipeline: meeting assistant webhooks, meeting state, recordings and scheduled bots',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

if (placeholderUpstream(config)) {
  Annotations.of(stack).addWarningV2(
    'meeting-pipeline:placeholderBaseUrl',
    'upstreamBaseUrl is the example placeholder: fine for an offline synth, refused when AWS credentials name an account (a deploy); deploy with -c upstreamBaseUrl=https://<your service>/api/v1/',
  );
}
