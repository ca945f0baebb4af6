/** `dlq list` and `dlq redrive <name>`: the pipeline's dead-letter queues. */
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { DEAD_LETTER_QUEUE_NAMES, DEAD_LETTER_QUEUES, type DeadLetterQueueName } from '../dlq/dead-letter-queues';
import { inspectQueue } from '../dlq/inspect';
import { redriveDeadLetters } from '../dlq/redrive';
import { CliError, EXIT, UsageError } from '../exit-codes';
import { oneLine, renderTable } from '../table';
import { requireResources } from '../target';
import { writeErr } from '../terminal';

const NAMES_HELP = DEAD_LETTER_QUEUE_NAMES.map(
  (name) => `  ${name.padEnd(22)}  ${DEAD_LETTER_QUEUES[name].holds}; back to: ${DEAD_LETTER_QUEUES[name].redrive}`,
).join('\n');

export const dlqList = defineCommand({
  words: ['dlq', 'list'],
  summary: `Every dead-letter queue: how many messages wait (approximately) and one of them.\n\n${NAMES_HELP}`,
  options: {},
  async run({ values, target }) {
    const resources = requireResources(await target(), 'dlq list');
    const sqs = sqsClient();
    const rows = await Promise.all(
      resources.deadLetterQueues.map(async (queue) => ({ queue, depth: await inspectQueue(sqs, queue.url) })),
    );
    if (values.json === true) {
      printJson(
        rows.map(({ queue, depth }) => ({
          name: queue.name,
          url: queue.url,
          approximate_messages: depth.messages,
          in_flight: depth.inFlight,
          sample: depth.sample === null ? null : { message_id: depth.sample.messageId, body: depth.sample.body },
        })),
      );
      return undefined;
    }
    print(
      renderTable(
        [
          { header: 'DLQ', value: (r) => r.queue.name },
          { header: 'MESSAGES', value: (r) => r.depth.messages, align: 'right' },
          { header: 'IN FLIGHT', value: (r) => r.depth.inFlight, align: 'right' },
          { header: 'SAMPLE', value: (r) => (r.depth.sample === null ? null : oneLine(r.depth.sample.body, 80)) },
        ],
        rows,
      ),
    );
    const missing = DEAD_LETTER_QUEUE_NAMES.filter((name) => !resources.deadLetterQueues.some((q) => q.name === name));
    if (missing.length > 0) writeErr(`not in this target: ${missing.join(', ')}\n`);
    return undefined;
  },
});

export const dlqRedrive = defineCommand({
  words: ['dlq', 'redrive'],
  args: ['<name>'],
  summary: `Send a dead-letter queue's messages back where they came from (after fixing the cause).
The SQS-fed ones (events, archive) use SQS's move task in AWS and receive → send → delete
elsewhere; a message is deleted only once it is sent. Consumers drop what was applied already.

${NAMES_HELP}`,
  usage: '[--max N]',
  flags: '  --max N                 at most N messages (receive → send → delete and calendar only)',
  options: { max: { type: 'string' } },
  async run({ values, args, target }) {
    const name = args[0] ?? '';
    if (!(DEAD_LETTER_QUEUE_NAMES as string[]).includes(name))
      throw new UsageError(
        `dlq redrive takes one of ${DEAD_LETTER_QUEUE_NAMES.join(', ')}, not ${JSON.stringify(name)}`,
      );
    const max = wholeNumber('max', values.max, 1, 1_000_000);
    const resources = requireResources(await target(), 'dlq redrive');
    const queue = resources.deadLetterQueues.find((q) => q.name === (name as DeadLetterQueueName));
    if (queue === undefined) throw new CliError(`This target has no ${name} DLQ (see dlq list).`, EXIT.notFound);
    const sqs = sqsClient();
    const report = await redriveDeadLetters(queue, sqs, max === undefined ? {} : { max }, (line) => {
      if (values.json !== true) writeErr(`${line}\n`);
    });
    if (values.json === true) printJson(report);
    else
      print(
        `${report.moved} moved back from the ${name} DLQ${report.failed.length > 0 ? `, ${report.failed.length} failed` : ''}` +
          (report.via === 'move-task' ? ' (SQS move task)' : ''),
      );
    for (const failure of report.failed) writeErr(`  ${failure.messageId}: ${failure.reason}\n`);
    return report.failed.length > 0 ? EXIT.error : undefined;
  },
});
