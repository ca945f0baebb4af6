/** The whole pipeline: one construct per capability, wired together. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { PipelineConfig } from './config';
import { WebhookIngress } from './webhook-ingress';

export interface MeetingPipelineStackProps extends StackProps {
  config: PipelineConfig;
}

/** Timeout of the events consumer (arrives with event processing); the queue's visibility follows it. */
export const EVENT_CONSUMER_TIMEOUT = Duration.seconds(30);

export class MeetingPipelineStack extends Stack {
  readonly ingress: WebhookIngress;

  constructor(scope: Construct, id: string, props: MeetingPipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const signingSecret = Secret.fromSecretNameV2(this, 'SigningSecret', config.signingSecretName);

    this.ingress = new WebhookIngress(this, 'WebhookIngress', {
      signingSecret,
      maxBodyBytes: config.maxWebhookBodyBytes,
      secretCacheSeconds: config.secretCacheSeconds,
      payloadRetention: Duration.days(config.payloadRetentionDays),
      logRetention: config.logRetentionDays,
      consumerTimeout: EVENT_CONSUMER_TIMEOUT,
      throttle: { rateLimit: config.webhookRateLimit, burstLimit: config.webhookBurstLimit },
      removalPolicy,
    });

    new CfnOutput(this, 'WebhookUrl', {
      value: this.ingress.webhookUrl,
      description: 'Register this URL with the meeting assistant service',
    });
    new CfnOutput(this, 'EventsQueueUrl', { value: this.ingress.eventsQueue.queueUrl });
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: this.ingress.eventsDeadLetterQueue.queueUrl });
  }
}
