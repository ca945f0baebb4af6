/** The settings every data bucket and queue of the pipeline shares, in one place. */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** SQS's longest retention: a stalled consumer has two weeks before anything expires. */
export const QUEUE_RETENTION = Duration.days(14);

/** Private, encrypted, versioned, TLS-only, owner-enforced, with server access logs. */
export function dataBucket(
  scope: Construct,
  id: string,
  props: {
    removalPolicy: RemovalPolicy;
    accessLogs: IBucket;
    accessLogsPrefix: string;
    lifecycleRules: BucketProps['lifecycleRules'];
  },
): Bucket {
  return new Bucket(scope, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    versioned: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: props.removalPolicy,
    serverAccessLogsBucket: props.accessLogs,
    serverAccessLogsPrefix: props.accessLogsPrefix,
    lifecycleRules: props.lifecycleRules,
  });
}

/** SQS-managed encryption, TLS only, two weeks' retention; the rest as given. */
export function encryptedQueue(scope: Construct, id: string, props: QueueProps = {}): Queue {
  return new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: QUEUE_RETENTION,
    ...props,
  });
}
