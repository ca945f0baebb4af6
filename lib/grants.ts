/**
 * The permissions several functions share, each written once: what the core does
 * to a table item (in the partitions its code uses), and the claim-check objects in
 * the payload bucket.
 *
 * No function may Scan: `dynamodb:LeadingKeys` cannot restrict a Scan (it names no
 * partition, and a ForAllValues condition on an absent key is true), so a Scan on the
 * table would read every partition whatever the condition.
 */
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { SUMMARY_PREFIX } from '../lambdas/core/apply/summary';
import { CLAIM_CHECK_PREFIX } from '../lambdas/core/queue/queued-event';
import { PARTITIONS, type PartitionKind } from '../lambdas/core/store/table-layout';
import { SERVICES, type ServiceName } from '../lambdas/core/telemetry';
import type { PipelineFunction } from './function';
import { acknowledge, wildcardResourceId } from './nag';

/**
 * The kinds of partition each function's code reads or writes, and no other: its item actions hold to
 * them through `dynamodb:LeadingKeys`. test/infra/table-grants.test.ts reads each function's code for the
 * key builders it reaches and fails, naming the kind, when a list here differs from the code.
 */
export const TABLE_PARTITIONS = {
  // Ledger records only: each event's first acceptance with its body, a repeat's time. (And the
  // quarantine's counters, updates only: lib/webhook-ingress.ts.)
  [SERVICES.ingress]: ['events'],
  [SERVICES.processEvents]: ['bot', 'events', 'object', 'dayListing'],
  // A meeting's items: reads the meeting, its lines and participants, puts what fills the gaps; the
  // lake day's lease when its rows fold into a day already compacted.
  [SERVICES.archive]: ['bot', 'lakeDay'],
  // The schedule it launches, and the meeting item (and its day listing) the launch creates.
  [SERVICES.launchBot]: ['bot', 'schedule', 'dayListing'],
  [SERVICES.reconciler]: ['bot', 'events', 'dayListing'],
  [SERVICES.schedules]: ['bot', 'schedule', 'dayListing'],
  // Meetings, their day listings and their delivery logs; never schedules, calendars or their feeds.
  [SERVICES.readApi]: ['bot', 'events', 'object', 'dayListing'],
  // And a deleted company calendar's push channels: their routes dropped, the channels kept as retired.
  [SERVICES.calendars]: [
    'calendars',
    'calendar',
    'claim',
    'schedule',
    'bot',
    'dayListing',
    'pushRoute',
    'retiredPushChannels',
  ],
  // And the push channels it opens and renews (listed under each calendar, routed by their secret's id), and
  // stops once their calendar is deleted (retired).
  [SERVICES.calendarSync]: [
    'calendars',
    'calendar',
    'claim',
    'schedule',
    'bot',
    'dayListing',
    'pushRoute',
    'retiredPushChannels',
  ],
  // The company source and its users' items, and the schedules (and launched bots) their events make, as the ICS sync.
  [SERVICES.calendarUserSync]: ['calendars', 'calendar', 'claim', 'schedule', 'bot', 'dayListing'],
  // A verified secret's route item, read and marked due: no calendar item (users' kept copies are there).
  [SERVICES.calendarPush]: ['pushRoute'],
  // A meeting's items and ledger, its schedule link and listings, the lake day's lease while its rows
  // are cut from a compacted file. (And the scheduling calendar's feed copy, deletes only: lib/erasure.ts.)
  [SERVICES.erase]: ['bot', 'events', 'schedule', 'dayListing', 'retention', 'lakeDay'],
  // Lake files and Athena only: the search routes read no item.
  [SERVICES.lakeSearch]: [],
  // The lease that keeps compaction, erasure and a late write from rewriting one day at once.
  [SERVICES.lakeCompaction]: ['lakeDay'],
} as const satisfies Record<ServiceName, readonly PartitionKind[]>;

/** Only items whose partition key is of these kinds (every key a request names, for a batch). */
export const onlyPartitions = (kinds: readonly PartitionKind[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': kinds.map((kind) => PARTITIONS[kind]) },
});

/**
 * Item actions (get, put and update unless told) on the table itself, in the function's partitions
 * only, or in the kinds named (a narrower grant beside those: one action on one more kind).
 */
export function grantTableItems(
  fn: PipelineFunction,
  table: ITableV2,
  actions: readonly string[] = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  kinds: readonly PartitionKind[] = TABLE_PARTITIONS[fn.serviceName],
): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [table.tableArn],
      conditions: onlyPartitions(kinds),
    }),
  );
}

/**
 * Objects under the claim-check prefix of the payload bucket: the ingress puts
 * claim-checked bodies; processing reads them back and puts large raw bodies it
 * keeps for replay. The wildcard is the prefix's, acknowledged here once.
 */
export function grantClaimChecks(fn: IFunction, payloadBucket: IBucket, access: 'put' | 'get-and-put'): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: access === 'put' ? ['s3:PutObject'] : ['s3:GetObject', 's3:PutObject'],
      resources: [payloadBucket.arnForObjects(`${CLAIM_CHECK_PREFIX}*`)],
    }),
  );
  if (fn.role === undefined) throw new Error(`${fn.node.path} has no role to grant claim checks to`);
  acknowledge(
    fn.role,
    wildcardResourceId(payloadBucket, `/${CLAIM_CHECK_PREFIX}*`),
    access === 'put'
      ? 'PutObject on the claim-check prefix only: each body gets its own content-addressed key.'
      : 'Get and put on the claim-check prefix only: claim-checked bodies and large raw bodies kept for replay.',
  );
}

/** Summaries too long for the meeting item, put by the processing core (content-addressed keys). */
export function grantSummaryObjects(fn: IFunction, payloadBucket: IBucket): void {
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['s3:PutObject'], resources: [payloadBucket.arnForObjects(`${SUMMARY_PREFIX}*`)] }),
  );
  if (fn.role === undefined) throw new Error(`${fn.node.path} has no role to grant summary objects to`);
  acknowledge(
    fn.role,
    wildcardResourceId(payloadBucket, `/${SUMMARY_PREFIX}*`),
    'PutObject on the summaries prefix only: each long summary gets its own content-addressed key.',
  );
}

/**
 * A webhook of an erased meeting is dropped with what it left: its ledger record (keys under
 * EVENTS#, nothing else) and every version of its claim-checked body.
 */
export function grantErasedEventDrops(fn: IFunction, table: ITableV2, payloadBucket: IBucket): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:DeleteItem'],
      resources: [table.tableArn],
      conditions: onlyPartitions(['events']),
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:ListBucketVersions'],
      resources: [payloadBucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': `${CLAIM_CHECK_PREFIX}*` } },
    }),
  );
  // The claim-check prefix's wildcard is acknowledged with grantClaimChecks, on the same resource.
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:DeleteObjectVersion'],
      resources: [payloadBucket.arnForObjects(`${CLAIM_CHECK_PREFIX}*`)],
    }),
  );
}
