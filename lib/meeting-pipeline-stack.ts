/** The whole pipeline: one construct per capability, wired together. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { PipelineConfig } from './config';
import { EVENT_CONSUMER_TIMEOUT, EventProcessing } from './event-processing';
import { WebhookIngress } from './webhook-ingress';

export interface MeetingPipelineStackProps extends StackProps {
  config: PipelineConfig;
}

export class MeetingPipelineStack extends Stack {
  readonly ingress: WebhookIngress;
  readonly eventProcessing: EventProcessing;

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

    this.eventProcessing = new EventProcessing(this, 'EventProcessing', {
      eventsQueue: this.ingress.eventsQueue,
      payloadBucket: this.ingress.payloadBucket,
      dedupRetentionDays: config.dedupRetentionDays,
      maxConcurrency: config.eventConcurrency,
      logRetention: config.logRetentionDays,
      removalPolicy,
    });

    new CfnOutput(this, 'WebhookUrl', {
      value: this.ingress.webhookUrl,
      description: 'Register this URL with the meeting assistant service',
    });
    new CfnOutput(this, 'EventsQueueUrl', { value: this.ingress.eventsQueue.queueUrl });
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: this.ingress.eventsDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'PayloadBucketName', { value: this.ingress.payloadBucket.bucketName });
    new CfnOutput(this, 'MeetingsTableName', { value: this.eventProcessing.table.tableName });
    new CfnOutput(this, 'ArchiveQueueUrl', { value: this.eventProcessing.archiveQueue.queueUrl });
  }
}
