/** `events <bot>` or `events --calendar-id ID` (…): the delivery log of a meeting or of an object. */
import { deliveryLog, READ_API_ROUTES } from '../../lambdas/core/read/read-api-contract';
import { RELATED_OBJECT_ID_FIELDS } from '../../lambdas/core/upstream/webhook-contract';
import { requestJson, routeUrl } from '../api';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { UsageError } from '../exit-codes';
import { pageFooter, readPages } from '../paging';
import { renderTable } from '../table';
import { writeErr } from '../terminal';

/** The objects other than bots that webhooks relate to, by query parameter: `--calendar-id` sets `calendar_id`… */
const OBJECT_FIELDS: string[] = Object.values(RELATED_OBJECT_ID_FIELDS);
const flagOf = (field: string) => field.replaceAll('_', '-');

export const events = defineCommand({
  words: ['events'],
  args: ['[bot]'],
  summary: `A meeting's delivery log: every webhook with its key, trigger, time and outcome.
With ${OBJECT_FIELDS.map((field) => `--${flagOf(field)}`).join(', ')} instead of a bot: the deliveries about that object.`,
  usage: `[${OBJECT_FIELDS.map((field) => `--${flagOf(field)} ID`).join(' | ')}] [--limit N] [--cursor C] [--all]`,
  flags: `  --<object>-id ID        deliveries about this calendar, app session or Zoom connection instead of a bot
  --limit N               deliveries a page
  --cursor C              the page after the one that printed this cursor
  --all                   follow the cursors to the last page`,
  options: {
    ...Object.fromEntries(OBJECT_FIELDS.map((field) => [flagOf(field), { type: 'string' as const }])),
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async run({ values, args, target }) {
    // The object flags are built from a record, so their values are looked up by name.
    const given = values as Record<string, unknown>;
    const objects = OBJECT_FIELDS.flatMap((field) => {
      const id = given[flagOf(field)];
      return typeof id === 'string' ? [{ field, id }] : [];
    });
    const bot = args[0];
    if ((bot === undefined ? 0 : 1) + objects.length !== 1)
      throw new UsageError(
        `events takes a bot id, or one of ${OBJECT_FIELDS.map((field) => `--${flagOf(field)}`).join(', ')}`,
      );
    const limit = wholeNumber('limit', values.limit, 1, 1000);
    const api = await target();
    const object = objects[0];
    const {
      items: deliveries,
      raw,
      next,
    } = await readPages(values.cursor, values.all === true, async (cursor) => {
      const url =
        object === undefined
          ? routeUrl(api, READ_API_ROUTES.meetingEvents, { bot_id: bot ?? '' }, { limit, cursor })
          : routeUrl(api, READ_API_ROUTES.objectEvents, {}, { [object.field]: object.id, limit, cursor });
      const page = await requestJson(api, url, deliveryLog);
      return {
        items: page.value.events,
        raw: (page.raw as { events: unknown[] }).events,
        next: page.value.next_cursor,
      };
    });

    if (values.json === true) {
      printJson({ events: raw, next_cursor: next });
      return undefined;
    }
    print(
      renderTable(
        [
          { header: 'RECEIVED', value: (d) => d.received_at },
          { header: 'TRIGGER', value: (d) => d.trigger },
          { header: 'OUTCOME', value: (d) => d.outcome },
          { header: 'IDEMPOTENCY KEY', value: (d) => d.idempotency_key },
          { header: 'FAILURE', value: (d) => d.failure_reason },
        ],
        deliveries,
      ),
    );
    writeErr(pageFooter(deliveries.length, ['delivery', 'deliveries'], next));
    return undefined;
  },
});
