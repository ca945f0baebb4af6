/**
 * Local mode's event bus: each domain event is printed in the timeline and its
 * PutEvents entry, exactly as the EventBridge adapter would send it, appended as
 * one JSON line to a file (`.local/events.jsonl` by default), in the same
 * batches and under the same limits.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DomainEvent } from '../lambdas/core/domain-events/catalogue';
import {
  type DomainEventPublisher,
  type PutEventsEntry,
  putEventsBatches,
  toPutEventsEntry,
} from '../lambdas/core/domain-events/publisher';
import { PRIVATE_FILE_MODE } from './private-files';

/** The bus name local entries carry (the stack names its own bus in AWS). */
export const LOCAL_EVENT_BUS_NAME = 'meeting-pipeline-local';

export const DEFAULT_EVENTS_FILE = '.local/events.jsonl';

export interface EventLogOptions {
  file: string;
  eventBusName?: string;
  /** Told of each event once its batch is written. */
  onEvent?: (event: DomainEvent) => void;
}

export function eventLogPublisher(options: EventLogOptions): DomainEventPublisher {
  const eventBusName = options.eventBusName ?? LOCAL_EVENT_BUS_NAME;
  let folder: Promise<unknown> | undefined;
  return {
    async publish(events: readonly DomainEvent[]) {
      if (events.length === 0) return;
      folder ??= mkdir(dirname(options.file), { recursive: true });
      await folder;
      const batches = putEventsBatches(events.map((event) => toPutEventsEntry(event, eventBusName)));
      for (const batch of batches) {
        // What happened to each meeting: the operator's only, like the rest of `.local`.
        await appendFile(options.file, batch.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
          mode: PRIVATE_FILE_MODE,
        });
      }
      for (const event of events) options.onEvent?.(event);
    },
  };
}

/** A file of its own in a new temporary folder, for runs whose events nobody reads later (tests, benchmarks). */
/** The PutEvents entries an events file holds, in order (none when it does not exist yet). */
export function readEventLog(file: string): PutEventsEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PutEventsEntry);
}

export const scratchEventsFile = (): string => join(mkdtempSync(join(tmpdir(), 'domain-events-')), 'events.jsonl');

/** The timeline line of an event: its type and the fields a person looks for. */
export function describeDomainEvent(event: DomainEvent): string {
  const { detail } = event;
  switch (event.detailType) {
    case 'meeting.state_changed':
      return `${event.detail.bot_id}  event ${event.detailType} ${event.detail.old_state} → ${event.detail.new_state}`;
    case 'meeting.ended':
      return `${event.detail.bot_id}  event ${event.detailType} (${event.detail.final_state})`;
    case 'summary.ready':
      return `${event.detail.bot_id}  event ${event.detailType}`;
    case 'meeting.archived':
      return `${event.detail.bot_id}  event ${event.detailType}: recording ${event.detail.recording.status}, ${event.detail.recording.bytes ?? 0} bytes`;
    case 'schedule.launched':
      return `${event.detail.bot_id}  event ${event.detailType} for schedule ${event.detail.schedule_id}`;
    case 'schedule.failed':
      return `schedule ${event.detail.schedule_id}  event ${event.detailType}: ${event.detail.reason}`;
    case 'meeting.outcome':
      return `${event.detail.bot_id}  outcome ${event.detail.status} (${event.detail.reason}): ${event.detail.sentence}`;
    default:
      return `event ${JSON.stringify(detail)}`;
  }
}
