/**
 * The reconciler: on a schedule, asks the service about meetings stuck in a
 * non-final state (the service gives up on a webhook after a few attempts) and
 * applies what it learns like a webhook; final meetings without an archive get
 * an archive job.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { GSI } from '../lambdas/core/store/table-layout';
import { SERVICES } from '../lambdas/core/telemetry';
import type { ReconcilerEnvironment } from '../lambdas/reconciler/environment';
import { RECONCILER_RESERVED_CONCURRENCY } from './config';
import type { EnvironmentBesidesEvents } from './domain-events';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantClaimChecks, grantSummaryObjects, grantTableItems } from './grants';
import { acknowledge } from './nag';
import { grantApiKey, type UpstreamSettings, upstreamEnvironment } from './upstream-settings';

export interface ReconcilerProps extends UpstreamSettings {
  table: ITableV2;
  archiveQueue: IQueue;
  payloadBucket: IBucket;
  dedupRetentionDays: number;
  everyMinutes: number;
  staleAfterMinutes: number;
  maxMeetingsPerRun: number;
  /**
   * Where a `data_deleted` it heals queues the meeting's erasure, as the consumer does for the
   * webhook (`eraseOnUpstreamDelete`); none when absent.
   */
  erasureQueue?: IQueue;
  functions: FunctionSettings;
}

export class Reconciler extends Construct {
  readonly function: PipelineFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ReconcilerProps) {
    super(scope, id);
    // EVENT_BUS_NAME comes with the grant to publish (domain-events.ts).
    const environment: EnvironmentBesidesEvents<ReconcilerEnvironment> = {
      TABLE_NAME: props.table.tableName,
      ARCHIVE_QUEUE_URL: props.archiveQueue.queueUrl,
      PAYLOAD_BUCKET: props.payloadBucket.bucketName,
      DEDUP_RETENTION_DAYS: String(props.dedupRetentionDays),
      ...upstreamEnvironment(props),
      STALE_AFTER_MINUTES: String(props.staleAfterMinutes),
      MAX_MEETINGS_PER_RUN: String(props.maxMeetingsPerRun),
      ...(props.erasureQueue !== undefined && { ERASURE_QUEUE_URL: props.erasureQueue.queueUrl }),
    };
    this.function = new PipelineFunction(this, 'ReconcilerFunction', {
      entry: 'lambdas/reconciler/handler.ts',
      description: 'Heals meetings whose webhooks were lost by asking the meeting assistant service',
      serviceName: SERVICES.reconciler,
      timeout: Duration.minutes(5),
      // A few dozen service calls and table writes every few minutes: waiting, not computing.
      memorySize: 256,
      settings: props.functions,
      environment,
      // One run at a time: a slow run never overlaps the next.
      reservedConcurrentExecutions: RECONCILER_RESERVED_CONCURRENCY,
      failureHandling: "Runs on a schedule: a failed run is simply the next run's work; nothing is lost.",
    });
    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the meeting reconciler',
      schedule: Schedule.rate(Duration.minutes(props.everyMinutes)),
      targets: [new LambdaFunction(this.function, { retryAttempts: 0 })],
    });
    acknowledge(
      this.rule,
      'Serverless-EventBusDLQ',
      'A missed run carries nothing to keep: the next scheduled run does its work.',
    );

    grantTableItems(this.function, props.table);
    // A state it observes for a meeting erased meanwhile is dropped with its ledger record, as the consumer drops it.
    grantTableItems(this.function, props.table, ['dynamodb:DeleteItem'], ['events']);
    // What it applies derives the meeting's outcome again from the meeting's state changes.
    grantTableItems(this.function, props.table, ['dynamodb:Query'], ['bot']);
    // The state index holds meeting items only (no other item has its keys), all in the reconciler's
    // partitions already: a LeadingKeys condition, on index partitions (STATE#…), would add nothing.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${props.table.tableArn}/index/${GSI.byState.name}`],
      }),
    );
    grantClaimChecks(this.function, props.payloadBucket, 'get-and-put');
    grantSummaryObjects(this.function, props.payloadBucket);
    props.archiveQueue.grantSendMessages(this.function);
    props.erasureQueue?.grantSendMessages(this.function);
    grantApiKey(this.function, props);
  }
}
