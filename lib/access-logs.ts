/** The bucket that receives the data buckets' S3 server access logs. */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge } from './nag';

export class AccessLogsBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; retention: Duration }) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        {
          id: 'expire-access-logs',
          expiration: props.retention,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    acknowledge(
      this.bucket,
      'AwsSolutions-S1',
      'This bucket receives the access logs; logging it into itself would loop.',
    );
  }
}
