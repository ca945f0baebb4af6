import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_SETTINGS } from '../../lambdas/core/queue/queue-settings';
import { actionsOf, functionStatements, wildcardDataActions } from './iam';
import { sharedTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = sharedTemplate();
});

describe('event processing', () => {
  it('consumes the events queue in batches with partial batch responses and capped concurrency', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 25 },
    });
  });

  it('keeps meetings in one table with the documented keys, indexes, TTL and PITR, retained on delete', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        // The state index alone (the day index is gone), its name and keys as before: one index change a deploy.
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: 'gsi2',
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
          }),
        ],
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      },
    });
  });

  it('feeds a FIFO archive queue with its own FIFO DLQ', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: QUEUE_SETTINGS.archiveMaxReceiveCount },
    });
    expect(Object.values(template.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } }))).toHaveLength(
      2,
    );
  });

  it('lets the function touch only the table items, the two queues, the claim checks and long summaries', () => {
    const statements = functionStatements(template, 'process-events');
    expect(wildcardDataActions(statements)).toEqual([]);
    const dynamo = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
    expect(actionsOf(dynamo)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    // Deletes only ledger records: a dropped webhook of an erased meeting.
    const deletes = dynamo.find((statement) => actionsOf([statement]).includes('dynamodb:DeleteItem'));
    expect(JSON.stringify(deletes)).toContain('"dynamodb:LeadingKeys":["EVENTS#*"]');
    // Queries only a meeting's items: its state changes, for its outcome.
    const queries = dynamo.find((statement) => actionsOf([statement]).includes('dynamodb:Query'));
    expect(JSON.stringify(queries)).toContain('"dynamodb:LeadingKeys":["BOT#*"]');
    expect(JSON.stringify(dynamo.map((s) => s.Resource))).not.toContain('index');
    expect(actionsOf(statements).filter((a) => a.startsWith('sqs:'))).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    const s3 = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('s3:')));
    expect(s3.map((statement) => JSON.stringify(statement).match(/(claim-check|summaries)\/\*/)?.[1])).toEqual([
      'claim-check',
      'summaries',
      'claim-check',
    ]);
    // A dropped webhook of an erased meeting takes its claim-checked body's every version with it.
    expect(actionsOf(s3)).toEqual(expect.arrayContaining(['s3:ListBucketVersions', 's3:DeleteObjectVersion']));
    const summaries = s3.find((statement) => JSON.stringify(statement.Resource).includes('/summaries/*'));
    expect(actionsOf([summaries!])).toEqual(['s3:PutObject']);
  });

  it('holds no wildcard data actions in any function role', () => {
    for (const service of [
      'webhook-ingress',
      'process-events',
      'recording-archive',
      'reconciler',
      'schedules',
      'launch-bot',
    ])
      expect(wildcardDataActions(functionStatements(template, service)), service).toEqual([]);
  });

  it('outputs the table name and the archive queue URL', () => {
    template.hasOutput('MeetingsTableName', {});
    template.hasOutput('ArchiveQueueUrl', {});
  });
});
