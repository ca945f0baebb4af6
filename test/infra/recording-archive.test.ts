import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, functionStatements, type Statement, wildcardDataActions } from './iam';
import { CHANGED_SETTINGS, sharedTemplate } from './synth';

let template: Template;
// Synthesizing bundles every function: on a busy machine that outlasts the default minute.
beforeAll(() => {
  template = sharedTemplate();
}, 300_000);

const archiveFunction = () =>
  Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'recording-archive' } } },
    }),
  )[0]!;

describe('recording archive', () => {
  it('keeps recordings in a private, encrypted, versioned, TLS-only, retained bucket that removes incomplete uploads and expires replaced versions', () => {
    const buckets = template.findResources('AWS::S3::Bucket', {
      Properties: {
        LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Id: 'expire-replaced-versions' })]) },
      },
    });
    const [recordings] = Object.values(buckets);
    expect(recordings).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: [
            {
              Id: 'abort-incomplete-uploads',
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              Status: 'Enabled',
            },
            { Id: 'expire-replaced-versions', NoncurrentVersionExpiration: { NoncurrentDays: 30 }, Status: 'Enabled' },
            {
              Id: 'archive-recordings',
              Prefix: 'meetings/',
              Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 30 }],
              Status: 'Enabled',
            },
            // The lake's query results (lib/meetings-lake.ts): they hold transcript text.
            {
              Id: 'expire-lake-results',
              Prefix: 'lake-results/',
              ExpirationInDays: 1,
              NoncurrentVersionExpiration: { NoncurrentDays: 1 },
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              Status: 'Enabled',
            },
          ],
        },
      },
    });
  });

  it('consumes the FIFO archive queue one job at a time, at most 20 at once; the queue waits six times the function timeout', () => {
    expect(archiveFunction().Properties).toMatchObject({
      Timeout: 900,
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      VisibilityTimeout: 5400,
      // Room for a crashed meeting's job to wait for its recording (up to 4 receives) and still retry failures.
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 8 }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it('never allows plain-http downloads in AWS, and names secrets rather than holding them', () => {
    expect(archiveFunction().Properties.Environment.Variables).toMatchObject({
      ALLOW_LOOPBACK_DOWNLOADS: 'false',
      API_KEY_SECRET_ID: 'meeting-pipeline/api-key',
      UPSTREAM_BASE_URL: 'https://meetings.example.org/api/v1/',
      RECORDING_WAIT_MINUTES: '30',
      // A drip-fed download is cut off: 12 minutes connect to last byte, at least 256 KiB/s per window.
      RECORDING_DOWNLOAD_MINUTES: '12',
      RECORDING_DOWNLOAD_MIN_KIB_PER_SECOND: '256',
      // Larger than local mode's 8 MiB default (the emulator's request limit): fewer requests per recording.
      RECORDING_UPLOAD_PART_MIB: '16',
    });
  });

  it('may make its own queue jobs visible again sooner (retries and waits for late recordings)', () => {
    const statements = functionStatements(template, 'recording-archive');
    expect(actionsOf(statements)).toContain('sqs:ChangeMessageVisibility');
    expect(archiveFunction().Properties.Environment.Variables.ARCHIVE_QUEUE_URL).toEqual({
      Ref: expect.stringMatching(/^RecordingArchiveArchiveQueue/),
    });
  });

  it('may write, read back and list recordings under meetings/ (and its lake files under lake/), abort its uploads, touch and query table items, read the API key and publish domain events, nothing more', () => {
    const statements = functionStatements(template, 'recording-archive');
    expect(wildcardDataActions(statements)).toEqual([]);
    expect(actionsOf(statements).filter((a) => !a.startsWith('xray:') && !a.startsWith('sqs:'))).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'events:PutEvents',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:AbortMultipartUpload',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
        // The meeting's lake files (lib/meetings-lake.ts: under lake/ only, test/infra/meetings-lake.test.ts).
        's3:DeleteObjectVersion',
        's3:GetObject',
        's3:ListBucket',
        's3:ListBucketVersions',
        's3:PutObject',
        // The transcript reader's unknown-bot check: the webhook ledger, queried only.
        'dynamodb:Query',
        // The lake day's lease, released when a fold into a compacted day is done.
        'dynamodb:DeleteItem',
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ].sort(),
    );
    const list = statements.find((statement) => actionsOf([statement]).includes('s3:ListBucket')) as
      | (Statement & { Condition?: unknown })
      | undefined;
    expect(list?.Condition).toEqual({ StringLike: { 's3:prefix': 'meetings/*' } });
  });

  it('keeps replaced versions as long as configured', () => {
    const custom = sharedTemplate(CHANGED_SETTINGS);
    custom.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 7 } })]),
      },
    });
  }, 300_000);
});
