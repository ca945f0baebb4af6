/** What waits for an operator: messages in each dead-letter queue, webhooks in quarantine. */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { QUARANTINE_PREFIX } from '../../lambdas/core/ingress/quarantine';
import { DEAD_LETTER_QUEUES, type DeadLetterQueue } from '../dlq/dead-letter-queues';
import { isDeniedByAws } from '../exit-codes';
import { type CheckResult, errorText, failed, ok } from './check';

export async function checkDeadLetterQueue(
  sqs: Pick<SQSClient, 'send'>,
  queue: Pick<DeadLetterQueue, 'name' | 'url'>,
): Promise<CheckResult> {
  const check = `DLQ ${queue.name}`;
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queue.url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const waiting = Number(Attributes.ApproximateNumberOfMessages ?? 0);
    const inFlight = Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    const count = waiting + inFlight;
    if (count === 0) return ok(check, 'empty');
    return failed(
      check,
      `${count} message${count === 1 ? '' : 's'} (${DEAD_LETTER_QUEUES[queue.name].holds})`,
      `see them with meeting-pipeline dlq list; fix the cause, then meeting-pipeline dlq redrive ${queue.name}`,
    );
  } catch (error) {
    const { name, message } = errorText(error);
    return failed(
      check,
      `could not read ${queue.url}: ${name}: ${message}`,
      isDeniedByAws(name)
        ? 'let your credentials call sqs:GetQueueAttributes on it'
        : 'check the queue exists (redeploy?)',
    );
  }
}

/** Quarantined webhooks (refused for their signature, kept for a re-drive): counted up to one page. */
export async function checkQuarantine(s3: Pick<S3Client, 'send'>, payloadBucket: string): Promise<CheckResult> {
  const check = 'quarantine';
  try {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: payloadBucket, Prefix: QUARANTINE_PREFIX, MaxKeys: 1000 }),
    );
    const count = page.KeyCount ?? page.Contents?.length ?? 0;
    if (count === 0) return ok(check, 'empty');
    const many = page.IsTruncated === true ? `more than ${count}` : String(count);
    return failed(
      check,
      `${many} webhook${count === 1 ? '' : 's'} refused for their signature, kept under ${QUARANTINE_PREFIX} in ${payloadBucket}`,
      'see them with meeting-pipeline quarantine list; once the signing secret is right, meeting-pipeline quarantine redrive',
    );
  } catch (error) {
    const { name, message } = errorText(error);
    return failed(
      check,
      `could not list ${payloadBucket}/${QUARANTINE_PREFIX}: ${name}: ${message}`,
      isDeniedByAws(name) ? `let your credentials call s3:ListBucket on ${payloadBucket}` : 'check the bucket exists',
    );
  }
}
