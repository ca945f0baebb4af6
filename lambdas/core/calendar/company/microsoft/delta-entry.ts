/**
 * What one item of a calendarView/delta page is, before it is read as an event.
 * Graph lists a recurring series as its master (the series definition, in full),
 * its exceptions (in full) and its plain occurrences as stubs: an id, the series
 * (`seriesMasterId`), `type` and the slot's times, and nothing else (no subject,
 * link, attendees, organizer or iCalUId: microsoft-graph-docs #1716, #7632,
 * #22197). A stub is only a meeting once its master's fields are put under its
 * own id and times (occurrence-fill.ts). An exception is whole, but takes its
 * series' iCalUId too: Graph gives each instance an iCalUId of its own, and an
 * occurrence must keep its identity (the series' iCalUId and its slot) when it
 * becomes an exception, as an ICS feed's UID and RECURRENCE-ID do.
 */
import * as z from 'zod/mini';

/** Graph ids are about 150 characters; as graph-event.ts bounds them. */
const MAX_ID_CHARS = 2_048;
const id = z.string().check(z.minLength(1), z.maxLength(MAX_ID_CHARS));

const Member = z.object({ id, type: z.enum(['occurrence', 'exception']), seriesMasterId: id });
const Master = z.object({ id, type: z.literal('seriesMaster') });

export type DeltaEntry =
  /** The series definition: not a meeting, the source of its occurrences' fields. */
  | { kind: 'master'; id: string; json: Record<string, unknown> }
  /** An instance of a series: a stub (`whole` false) to fill from its master, or an exception. */
  | { kind: 'member'; id: string; seriesMasterId: string; whole: boolean; json: Record<string, unknown> }
  /** Anything else (a single event, a removal, an unreadable item): read as it stands. */
  | { kind: 'event'; json: unknown };

export function readDeltaEntry(json: unknown): DeltaEntry {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || '@removed' in json)
    return { kind: 'event', json };
  const record = json as Record<string, unknown>;
  const master = Master.safeParse(record);
  if (master.success) return { kind: 'master', id: master.data.id, json: record };
  const member = Member.safeParse(record);
  if (!member.success) return { kind: 'event', json };
  // An occurrence that does carry its own fields (as a GET answers it) takes only the series' iCalUId.
  const whole = member.data.type === 'exception' || 'subject' in record || 'iCalUId' in record;
  return { kind: 'member', id: member.data.id, seriesMasterId: member.data.seriesMasterId, whole, json: record };
}

/** Keys of a master that describe the series, not one of its occurrences. */
const SERIES_ONLY = ['recurrence', 'originalStart', '@odata.etag', '@odata.context'];

/**
 * The instance as the event it is. A stub: the master's fields (subject, body,
 * link, organizer, attendees, the series' iCalUId, …) under its own id, type,
 * series and times. A whole instance: its own fields, with the series' iCalUId.
 */
export function fillFromMaster(
  member: { whole: boolean; json: Record<string, unknown> },
  master: Record<string, unknown>,
): Record<string, unknown> {
  if (member.whole) return { ...member.json, iCalUId: master.iCalUId ?? member.json.iCalUId };
  const stub = member.json;
  const fields = Object.fromEntries(Object.entries(master).filter(([key]) => !SERIES_ONLY.includes(key)));
  return {
    ...fields,
    id: stub.id,
    type: 'occurrence',
    seriesMasterId: stub.seriesMasterId,
    start: stub.start,
    end: stub.end,
  };
}
