/** `erase <bot>`: erases a meeting everywhere (DELETE /meetings/{bot_id}) and prints the receipt. */
import { ERASE_API_ROUTES, erasureReceipt, FORCE_PARAMETER } from '../../lambdas/core/erase/erase-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson } from '../command';
import { confirmByTyping, onTerminal } from '../confirm';
import { CliError, UsageError } from '../exit-codes';
import { renderFields, renderTable } from '../table';

export const erase = defineCommand({
  words: ['erase'],
  args: ['<bot>'],
  summary:
    'Erase a meeting everywhere the pipeline keeps it and print the receipt: what was removed, and the copies\nit cannot reach with the date each expires. Cannot be undone: on a terminal it asks you to type the bot id,\nelsewhere it needs --yes. Asking again prints the same receipt. A bot the pipeline never saw is not found\n(exit 3) unless --force.',
  usage: '[--yes] [--force]',
  flags: `  --yes                   erase without asking (scripts; needed when stdin or stdout is not a terminal)
  --force                 erase even a bot the pipeline never saw (its webhooks are dropped from then on)`,
  options: { yes: { type: 'boolean' }, force: { type: 'boolean' } },
  async run({ values, args, target }) {
    const botId = args[0];
    if (botId === undefined || botId === '') throw new UsageError('which bot? meeting-pipeline erase <bot>');
    if (values.yes !== true && !onTerminal())
      throw new UsageError(`erasing ${botId} cannot be undone: pass --yes to erase it without being asked`);
    // The target first: a wrong --stack or a local mode that is not running fails before anyone types.
    const api = await target();
    if (values.yes !== true) {
      const confirmed = await confirmByTyping(
        `Erase ${botId} everywhere the pipeline keeps it? This cannot be undone. Type the bot id to confirm: `,
        botId,
      );
      if (!confirmed) throw new CliError(`not erased: the answer was not ${botId}`);
    }
    const url = routeUrl(
      api,
      ERASE_API_ROUTES.eraseMeeting,
      { bot_id: botId },
      { [FORCE_PARAMETER]: values.force === true ? 'true' : undefined },
    );
    const { raw, value: receipt } = await requestJson(api, url, erasureReceipt, { method: 'DELETE' });
    if (values.json === true) {
      printJson(raw);
      return undefined;
    }
    if (receipt.never_seen === true)
      print('the pipeline had never seen this bot: nothing of it was found; its webhooks are dropped from now on\n');
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
