/**
 * An erasure asked for through the API (`DELETE /meetings/{bot_id}`): a bot the pipeline never
 * saw is answered "not found", since a receipt of zeros for a mistyped id would read as a
 * success. With `force` it is erased all the same (a bot whose webhooks have not arrived yet
 * may be erased ahead of them: its tombstone drops them), and its receipt says nothing of it
 * was found (`never_seen`). A bot already erased, or whose erasure was started, is answered
 * with its receipt as before.
 */
import { holdsRecordsOf } from '../read/known-bot';
import type { EraseDependencies } from './erase-dependencies';
import { eraseMeeting } from './erase-meeting';
import { takeStock } from './inventory';
import { type ErasureReceipt, foundNothing } from './receipt';
import { readTombstone } from './tombstone-writes';

export type ErasureRequestOutcome =
  | { outcome: 'erased'; receipt: ErasureReceipt }
  | { outcome: 'unknown-bot'; message: string };

export async function eraseOnRequest(
  botId: string,
  options: { force: boolean },
  deps: EraseDependencies,
): Promise<ErasureRequestOutcome> {
  if (!options.force) {
    const meeting = await readTombstone(deps.table, botId);
    // The meeting item, or its tombstone once an erasure started, or any other record of the bot;
    // failing those, the stock-take the erasure itself would make (read only), so a bot whose only
    // trace is a quarantined webhook (refused for its signature, still holding its text) is erased.
    const known =
      meeting !== undefined ||
      (await holdsRecordsOf(deps.table, botId)) ||
      !foundNothing((await takeStock(botId, {}, deps)).counts);
    if (!known)
      return {
        outcome: 'unknown-bot',
        message: `the pipeline never saw bot ${botId} (no webhook, schedule or state of it): nothing was erased; erase it anyway with force=true (meeting-pipeline erase --force), which also drops its webhooks from now on`,
      };
  }
  return { outcome: 'erased', receipt: await eraseMeeting(botId, 'request', deps) };
}
