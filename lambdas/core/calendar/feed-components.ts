/**
 * The part of a feed worth parsing, chosen in one pass over its text before the
 * ICS parser sees it. Parsing is what a big feed costs (an 8 MiB feed of small
 * events takes seconds and hundreds of MiB in the parser, and one RRULE with
 * long BYMINUTE and BYSECOND lists a quarter of a second), so:
 *  - events that are over before the window (no recurrence, or a recurrence
 *    whose UNTIL is past) are passed over unread: a calendar's feed holds years
 *    of them;
 *  - a recurrence that repeats more often than daily is read only when the
 *    calendar's owner organizes it, and one more often than hourly, or written
 *    longer than any real rule, never;
 *  - of the rest, at most `eventsPerFeed` events and `linesPerFeed` lines are
 *    kept, in feed order, and the rest are reported as not read;
 *  - only VEVENTs and VTIMEZONEs are kept; other components are dropped.
 */
import type { ExpansionLimits, LimitLog } from './calendar-limits';
import { occurrencesPerDayBound } from './recurrence-density';

export interface SelectedComponents {
  /** A feed of the kept components, for the parser. */
  text: string;
  /** Some current events were not kept: the feed was not read whole. */
  truncated: boolean;
}

/** Time zones a feed declares: a few per calendar; more are not read. */
const MAX_TIME_ZONES = 100;
/** Calendar-level properties kept (name, default zone…). */
const MAX_CALENDAR_PROPERTIES = 50;
/** Days an event's text date may sit before the window and still matter (zone offsets, a long event). */
const PAST_SLACK_DAYS = 2;
/** Real rules are well under this ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=…" is 60); long BY lists cost the parser. */
export const MAX_RULE_CHARS = 256;
/** No meeting repeats more often than hourly. */
const MAX_PER_DAY = 24;

interface Block {
  /** Offsets of the block in the unfolded text, END line included. */
  from: number;
  lines: number;
  uid: string;
  rule: string | undefined;
  hasRdate: boolean;
  organizer: string | undefined;
  /** YYYYMMDD of DTSTART, RECURRENCE-ID and RRULE's UNTIL, when readable. */
  start: string | undefined;
  recurrenceId: string | undefined;
}

const dateOf = (line: string): string | undefined => /:(\d{8})/.exec(line)?.[1];

/** Whether the event cannot have an occurrence in the window: over before it, or (one-off) starting after it. */
function isOutside(block: Block, window: { first: string; last: string }): boolean {
  const before = (date: string | undefined) => date !== undefined && date < window.first;
  const after = (date: string | undefined) => date !== undefined && date > window.last;
  if (block.rule !== undefined || block.hasRdate) {
    const until = block.rule === undefined ? undefined : /UNTIL=(\d{8})/i.exec(block.rule)?.[1];
    return !block.hasRdate && before(until);
  }
  const outside = (date: string | undefined) => before(date) || after(date);
  return outside(block.start) && (block.recurrenceId === undefined || outside(block.recurrenceId));
}

/** Whether a recurrence is refused (and logged why): too long, more often than hourly, or more often than daily from anyone but the owner. */
function refusedRule(block: Block, owners: ReadonlySet<string>, log: LimitLog): boolean {
  const rule = block.rule;
  if (rule === undefined) return false;
  if (rule.length > MAX_RULE_CHARS) {
    log.add('recurrence-rule', block.uid, () => `its RRULE is over ${MAX_RULE_CHARS} characters: not read`);
    return true;
  }
  const perDay = occurrencesPerDayBound(rule);
  if (perDay > MAX_PER_DAY) {
    log.add(
      'recurrence-rule',
      block.uid,
      () => `repeats up to ${perDay} times a day (${rule}), more often than hourly: not read`,
    );
    return true;
  }
  if (perDay > 1 && !owners.has(block.organizer ?? '')) {
    log.add(
      'sub-daily-recurrence',
      block.uid,
      () => `repeats up to ${perDay} times a day (${rule}) and the calendar's owner does not organize it: not read`,
    );
    return true;
  }
  return false;
}

/** The property name a line starts with, upper case (names are short; a long line is never BEGIN or END). */
function nameOf(text: string, at: number, end: number): string {
  let stop = at;
  while (stop < end && stop - at < 20) {
    const c = text.charCodeAt(stop);
    if (c === 58 || c === 59) break; // ':' or ';'
    stop++;
  }
  return text.slice(at, stop).toUpperCase();
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

export function selectComponents(
  feed: string,
  window: { from: Date; to: Date },
  owners: ReadonlySet<string>,
  limits: ExpansionLimits,
  log: LimitLog,
): SelectedComponents {
  const slack = PAST_SLACK_DAYS * 86_400_000;
  const days = { first: dayOf(window.from.getTime() - slack), last: dayOf(window.to.getTime() + slack) };
  const text = feed.replace(/\r?\n[ \t]/g, '');
  const header: string[] = [];
  const kept: string[] = [];
  let zones = 0;
  let keptEvents = 0;
  let keptLines = 0;
  let truncatedAt: number | undefined;
  /** Component names from the outermost in; VCALENDAR is depth 1. */
  const open: string[] = [];
  let block: Block | undefined;
  let zoneFrom: number | undefined;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const lineEnd = end > at && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const lineStart = at;
    at = end + 1;
    if (lineEnd === lineStart) continue;
    if (block !== undefined) block.lines++;
    const name = nameOf(text, lineStart, lineEnd);
    if (name === 'BEGIN' || name === 'END') {
      const component = text.slice(lineStart + name.length + 1, Math.min(lineEnd, lineStart + 40)).toUpperCase();
      if (name === 'BEGIN') {
        open.push(component);
        if (open.length === 2 && component === 'VEVENT')
          block = {
            from: lineStart,
            lines: 1,
            uid: '',
            rule: undefined,
            hasRdate: false,
            organizer: undefined,
            start: undefined,
            recurrenceId: undefined,
          };
        if (open.length === 2 && component === 'VTIMEZONE' && zones < MAX_TIME_ZONES) zoneFrom = lineStart;
        continue;
      }
      open.pop();
      if (open.length === 1 && component === 'VEVENT' && block !== undefined) {
        if (!isOutside(block, days) && !refusedRule(block, owners, log)) {
          if (keptEvents >= limits.eventsPerFeed || keptLines + block.lines > limits.linesPerFeed) {
            // Full: the rest of the feed is not read at all (scanning it would cost as much again).
            truncatedAt = block.from;
            break;
          }
          kept.push(text.slice(block.from, lineEnd));
          keptEvents++;
          keptLines += block.lines;
        }
        block = undefined;
      }
      if (open.length === 1 && component === 'VTIMEZONE' && zoneFrom !== undefined) {
        kept.unshift(text.slice(zoneFrom, lineEnd));
        zones++;
        zoneFrom = undefined;
      }
      continue;
    }
    if (block !== undefined && open.length === 2) {
      const line = () => text.slice(lineStart, Math.min(lineEnd, lineStart + 2 * MAX_RULE_CHARS));
      if (name === 'UID') block.uid = text.slice(lineStart + 4, Math.min(lineEnd, lineStart + 200));
      else if (name === 'DTSTART') block.start = dateOf(line());
      else if (name === 'RECURRENCE-ID') block.recurrenceId = dateOf(line());
      else if (name === 'RRULE') block.rule = text.slice(lineStart + 6, lineEnd);
      else if (name === 'RDATE') block.hasRdate = true;
      else if (name === 'ORGANIZER')
        block.organizer = /mailto:([^;:]*)$/i
          .exec(text.slice(lineStart, Math.min(lineEnd, lineStart + 500)))?.[1]
          ?.toLowerCase();
    } else if (open.length === 1 && header.length < MAX_CALENDAR_PROPERTIES) {
      header.push(text.slice(lineStart, lineEnd));
    }
  }
  if (truncatedAt !== undefined) {
    const at = truncatedAt;
    log.add(
      'events-per-feed',
      undefined,
      () =>
        `the feed holds more than ${limits.eventsPerFeed} events (or ${limits.linesPerFeed} lines) in the window: the first ${keptEvents} were read, the feed after character ${at} of ${text.length} was not`,
    );
  }
  return {
    text: ['BEGIN:VCALENDAR', ...header, ...kept, 'END:VCALENDAR', ''].join('\r\n'),
    truncated: truncatedAt !== undefined,
  };
}
