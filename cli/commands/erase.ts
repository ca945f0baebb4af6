/** `erase <bot>`: erases a meeting everywhere (DELETE /meetings/{bot_id}) and prints the receipt. */
import { ERASE_API_ROUTES, erasureReceipt } from '../../lambdas/core/erase/erase-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson } from '../command';
import { UsageError } from '../exit-codes';
import { renderFields, renderTable } from '../table';

export const erase = defineCommand({
  words: ['erase'],
  args: ['<bot>'],
  summary:
    'Erase a meeting everywhere the pipeline keeps it and print the receipt: what was removed, and the copies\nit cannot reach with the date each expires. Cannot be undone; asking again prints the same receipt.',
  options: {},
  async run({ values, args, target }) {
    const botId = args[0];
    if (botId === undefined || botId === '') throw new UsageError('which bot? meeting-pipeline erase <bot>');
    const api = await target();
    const url = routeUrl(api, ERASE_API_ROUTES.eraseMeeting, { bot_id: botId });
    const { raw, value: receipt } = await requestJson(api, url, erasureReceipt, { method: 'DELETE' });
    if (values.json === true) {
      printJson(raw);
      return undefined;
    }
    print(
      renderFields([
        ['receipt', receipt.receipt_id],
        ['bot', receipt.bot_id],
        ['reason', receipt.reason],
        ['requested at', receipt.requested_at],
        ['erased at', receipt.erased_at],
        ['service copy', receipt.upstream],
        ...Object.entries(receipt.counts).map(([store, count]): [string, number] => [
          store.replaceAll('_', ' '),
          count,
        ]),
      ]),
    );
    print('');
    print('not reachable by an erasure: gone by themselves by "until", or kept by their owner:');
    print(
      renderTable(
        [
          { header: 'store', value: (copy: (typeof receipt.retained)[number]) => copy.store },
          { header: 'until', value: (copy) => copy.until ?? "owner's" },
          { header: 'why', value: (copy) => copy.why },
        ],
        receipt.retained,
      ),
    );
    return undefined;
  },
});
