import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALENDAR_PUSH_ROUTES } from '../../lambdas/core/calendar/company/push/push-settings';
import { keys } from '../../lambdas/core/store/table-layout';
import { CHANGED_SETTINGS, sharedTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = sharedTemplate();
});

const ingressFunction = () => {
  const functions = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'webhook-ingress' } } },
  });
  expect(Object.keys(functions)).toHaveLength(1);
  return Object.entries(functions)[0]!;
};

describe('webhook ingress', () => {
  it('routes POST /webhooks to the ingress function with payload format 2.0', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /webhooks',
      AuthorizationType: 'NONE',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
    // The same API carries the IAM-authorized routes; the open ones are the webhook and the calendar push routes
    // (the providers cannot sign for IAM: each notification is held by its channel secret).
    const open = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', { Properties: { AuthorizationType: 'NONE' } }),
    );
    expect(open.map((route) => route.Properties.RouteKey).sort()).toEqual(
      ['POST /webhooks', ...Object.values(CALENDAR_PUSH_ROUTES)].sort(),
    );
  });

  it('throttles the default stage and writes access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1500, ThrottlingBurstLimit: 3000 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('integrationLatency') },
    });
  });

  it('runs the ingress on a current Node.js runtime, arm64, untraced, with reserved concurrency, answering inside the 10 s budget', () => {
    const [, fn] = ingressFunction();
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 8,
      MemorySize: 512,
      ReservedConcurrentExecutions: 150,
      LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO' },
    });
    expect(fn.Properties).not.toHaveProperty('TracingConfig');
    expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(
      [
        'EVENTS_QUEUE_URL',
        'INLINE_MESSAGE_LIMIT_BYTES',
        'MAX_BODY_BYTES',
        'NODE_OPTIONS',
        'PAYLOAD_BUCKET',
        'POWERTOOLS_LOG_LEVEL',
        'POWERTOOLS_SERVICE_NAME',
        'SECRET_CACHE_SECONDS',
        'SIGNING_SECRET_ID',
        'TABLE_NAME',
        'DEDUP_RETENTION_DAYS',
        'QUARANTINE_MAX_PER_MINUTE',
        'QUARANTINE_MAX_BYTES_PER_MINUTE',
        'QUARANTINE_MAX_PER_BOT_PER_DAY',
      ].sort(),
    );
    // The secret's name, never its value.
    expect(fn.Properties.Environment.Variables.SIGNING_SECRET_ID).toBe('meeting-pipeline/webhook-signing-secret');
  });

  it('gives the function an explicit log group with retention', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    const [, fn] = ingressFunction();
    expect(fn.Properties.LoggingConfig.LogGroup).toBeDefined();
  });

  it('queues events with SSE, a DLQ after 5 receives, 14 days retention and a visibility of 6× the consumer timeout', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
      MaximumMessageSize: 1_048_576,
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
    });
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    // Standard queues: events and its DLQ, the calendar rule's DLQ, erasure and its DLQ, user sync and its DLQ;
    // the archive queues are FIFO.
    expect(queues.filter((q) => q.Properties.FifoQueue !== true)).toHaveLength(7);
    expect(queues.every((q) => q.Properties.SqsManagedSseEnabled === true)).toBe(true);
  });

  it('denies non-TLS access to every queue', () => {
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(9);
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('keeps the payload bucket private, encrypted, versioned, TLS-only, retained, with lifecycle rules', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({ Prefix: 'claim-check/', ExpirationInDays: 30, Status: 'Enabled' }),
            Match.objectLike({ Prefix: 'quarantine/', ExpirationInDays: 14, Status: 'Enabled' }),
            Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
          ]),
        },
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('lets the ingress send to the queue, put claim checks and quarantined bodies, read the signing secret and record events in the ledger, nothing more', () => {
    const [, fn] = ingressFunction();
    const roleRef = fn.Properties.Role['Fn::GetAtt'][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleRef),
    );
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const actions = statements.flatMap((s) => [s.Action].flat()).sort();
    expect(actions).toEqual(
      [
        'sqs:SendMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        's3:PutObject',
        'secretsmanager:GetSecretValue',
        'secretsmanager:DescribeSecret',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        // the quarantine's counters
        'dynamodb:UpdateItem',
      ].sort(),
    );
    // Only the ledger records: their partition keys start with EVENTS# (the meeting items' with BOT#).
    const tableStatement = statements.find((s) => [s.Action].flat().includes('dynamodb:PutItem'));
    expect(tableStatement.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVENTS#*'] },
    });
    expect(keys.event('bot_x', 'k').pk.startsWith('EVENTS#')).toBe(true);
    expect(keys.bot('bot_x').startsWith('EVENTS#')).toBe(false);
    const s3Statement = statements.find((s) => [s.Action].flat().includes('s3:PutObject'));
    expect(JSON.stringify(s3Statement.Resource)).toContain('/claim-check/*');
    // Refused bodies go under a bot's folder or the unbound one, never into the first layout's day folders.
    expect(JSON.stringify(s3Statement.Resource)).toContain('/quarantine/bots/*');
    expect(JSON.stringify(s3Statement.Resource)).toContain('/quarantine/unbound/*');
    expect(JSON.stringify(s3Statement.Resource)).not.toContain('/quarantine/*');
    expect(JSON.stringify(s3Statement.Resource).match(/\/\*"/g) ?? []).toHaveLength(3);
    // The quarantine's caps: updates of its counter items only, no put or read of any item.
    const counterStatement = statements.find(
      (s) => [s.Action].flat().join() === 'dynamodb:UpdateItem' && s !== tableStatement,
    );
    expect(counterStatement.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['QUARANTINE#*'] },
    });
    expect(keys.quarantineMinute(29_000_000).pk.startsWith('QUARANTINE#')).toBe(true);
    expect(keys.quarantineBotDay('ab', '2026-11-23').pk.startsWith('QUARANTINE#')).toBe(true);
  });

  it('outputs the webhook URL to register with the service', () => {
    template.hasOutput('WebhookUrl', {
      Value: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['/webhooks'])]) }),
    });
  });
});

describe('data retention', () => {
  it('can be told to delete data with the stack', () => {
    const disposable = sharedTemplate(CHANGED_SETTINGS);
    disposable.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
  });
});
