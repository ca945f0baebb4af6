/**
 * Erasure in local mode, as a user meets it: `meeting-pipeline erase <bot>` prints the receipt
 * and prints the same one again; the meeting then answers 404 "erased"; and the service's own
 * `data_deleted` (after `POST bots/{id}/delete_data`) erases a meeting through the erasure queue,
 * its receipt named where its delivery log was.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit-codes';
import { erasureReceipt } from '../../lambdas/core/erase/erase-contract';
import { keys } from '../../lambdas/core/store/table-layout';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { type CliLocalStack, cli, startCliLocalStack } from '../fixtures/cli-local-stack';

let local: CliLocalStack;
beforeAll(async () => {
  local = await startCliLocalStack('erase');
}, 120_000);
afterAll(() => local?.stop());

/** Schedules a meeting a few seconds out and waits until it is archived; its bot id. */
async function archivedMeeting(scheduleId: string): Promise<string> {
  await local.stack.scheduleMeeting(scheduleId, new Date(Date.now() + 2_000));
  expect(await local.stack.waitUntilArchived([scheduleId], 90_000)).toBe(true);
  const { Item } = await documentClient().send(
    new GetCommand({
      TableName: local.stack.resources.tableName,
      Key: keys.schedule(scheduleId),
      ConsistentRead: true,
    }),
  );
  return String(Item?.botId);
}

describe('meeting-pipeline erase', () => {
  it('erases a meeting, prints the receipt, prints the same one again, and the meeting answers 404 erased', {
    timeout: 120_000,
  }, async () => {
    const botId = await archivedMeeting('erase-me');
    const first = await cli(['erase', botId, '--json', '--endpoint', local.endpoint]);
    expect(first.code, first.stderr).toBe(0);
    const receipt = erasureReceipt.parse(JSON.parse(first.stdout));
    console.log('local-mode erasure receipt', JSON.stringify(receipt, null, 2));
    expect(receipt).toMatchObject({ bot_id: botId, reason: 'request', upstream: 'not-requested' });
    expect(receipt.counts.meeting_items).toBeGreaterThan(0);
    expect(receipt.counts.ledger_records).toBeGreaterThan(0);
    expect(receipt.counts.recording_objects).toBeGreaterThan(0);

    const again = await cli(['erase', botId, '--endpoint', local.endpoint]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`receipt\\s+${receipt.receipt_id}`));
    expect(again.stdout).toContain('point-in-time-backups');

    const shown = await cli(['meetings', 'show', botId, '--endpoint', local.endpoint]);
    expect(shown.code).toBe(EXIT.notFound);
    expect(shown.stderr).toContain(`erased at ${receipt.erased_at}, receipt ${receipt.receipt_id}`);
  });

  it('erases a meeting whose data the service deleted (data_deleted), through the erasure queue', {
    timeout: 120_000,
  }, async () => {
    const botId = await archivedMeeting('deleted-upstream');
    const service = new UpstreamClient({ baseUrl: local.stack.apiBaseUrl, apiKey: async () => 'local-dev-key' });
    await service.deleteBotData(botId);

    let events = await cli(['events', botId, '--endpoint', local.endpoint]);
    for (let i = 0; i < 60 && events.code !== EXIT.notFound; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      events = await cli(['events', botId, '--endpoint', local.endpoint]);
    }
    // The delivery log of the meeting names the receipt the erasure left.
    expect(events.code).toBe(EXIT.notFound);
    expect(events.stderr).toMatch(/erased at .*, receipt er_/);
    const receipt = erasureReceipt.parse(
      JSON.parse((await cli(['erase', botId, '--json', '--endpoint', local.endpoint])).stdout),
    );
    expect(receipt).toMatchObject({ bot_id: botId, reason: 'upstream-data-deleted' });
    expect(events.stderr).toContain(receipt.receipt_id);
  });
});
