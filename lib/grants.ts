/**
 * The permissions several functions share, each written once: what the core does
 * to a table item, and the claim-check objects in the payload bucket.
 */
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { SUMMARY_PREFIX } from '../lambdas/core/apply/summary';
import { CLAIM_CHECK_PREFIX } from '../lambdas/core/queue/queued-event';
import { keys } from '../lambdas/core/store/table-layout';
import { acknowledge, wildcardResourceId } from './nag';

/** Get, put and update of single items on the table itself: no scans, no deletes, no indexes. */
export function grantTableItems(fn: IFunction, table: ITableV2): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
    }),
  );
}

/**
 * The ingress's one use of the table: put and read ledger records (each event's first
 * acceptance, with its body) and note a repeat's time on them, and no other item: their
 * partition keys start with EVENTS#.
 */
export function grantLedgerRecords(fn: IFunction, table: ITableV2): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [keys.eventsOfBot('*')] } },
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
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [keys.eventsOfBot('*')] } },
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
