/**
 * What a customer's system gets back for a meeting local mode played, read the
 * way it would: through the read API (the same handler as in AWS), the recording
 * link it hands out, and the domain events written to the events file. Each
 * finding that falls short is a problem the demo reports (and `--once` fails on).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { DETAIL_TYPES } from '../lambdas/core/domain-events/catalogue';
import {
  deliveryLog,
  meetingView,
  READ_API_ROUTES,
  recordingLink,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../lambdas/core/read/read-api-contract';
import { readEventLog } from './event-log-publisher';

export interface ReadBack {
  botId: string;
  /** Each transcript format as served: its size and first lines. */
  transcripts: Record<TranscriptFormat, { bytes: number; preview: string[] }>;
  recording: { bytes: number; sha256: string; matchesArchive: boolean } | undefined;
  deliveries: { webhooks: number; byOutcome: Record<string, number> };
  /** Detail-types of the bot's domain events in the events file, in order. */
  events: string[];
  problems: string[];
}

export interface ReadBackSources {
  readApiUrl: string;
  eventsFile: string;
  /** Idempotency keys the ingress accepted for the bot (the sender's record). */
  acceptedKeys: ReadonlySet<string>;
  /**
   * Whether the bot joined and recorded (default true). One that never joined has no transcript
   * lines and no recording, and must have none; its archive is not required.
   */
  recorded?: boolean;
}

async function get(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return response;
}

async function getJson<S extends $ZodType>(url: string, schema: S): Promise<z.output<S>> {
  return z.parse(schema, await (await get(url)).json());
}

const route = (base: string, key: string, botId: string) =>
  `${base}${(key.split(' ')[1] ?? '').replace('{bot_id}', encodeURIComponent(botId))}`;

export async function readBack(botId: string, sources: ReadBackSources): Promise<ReadBack> {
  const { readApiUrl } = sources;
  const recorded = sources.recorded ?? true;
  const problems: string[] = [];
  const meeting = await getJson(route(readApiUrl, READ_API_ROUTES.getMeeting, botId), meetingView);

  const transcripts = {} as ReadBack['transcripts'];
  for (const format of TRANSCRIPT_FORMATS) {
    const text = await (await get(`${route(readApiUrl, READ_API_ROUTES.transcript, botId)}?format=${format}`)).text();
    transcripts[format] = { bytes: Buffer.byteLength(text), preview: text.split('\n').slice(0, 4) };
    if (recorded && text.trim() === '') problems.push(`the ${format} transcript is empty`);
  }

  let recording: ReadBack['recording'];
  if (!recorded) {
    if (meeting.recording?.status === 'archived') problems.push('a recording is archived, but the bot never joined');
  } else if (meeting.recording?.status === 'archived') {
    const link = await getJson(route(readApiUrl, READ_API_ROUTES.recording, botId), recordingLink);
    const bytes = Buffer.from(await (await get(link.url)).arrayBuffer());
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    recording = {
      bytes: bytes.length,
      sha256,
      matchesArchive: sha256 === link.sha256 && sha256 === meeting.recording.sha256,
    };
    if (!recording.matchesArchive)
      problems.push(`the recording link's bytes hash to ${sha256}, archived ${link.sha256}`);
  } else problems.push('no archived recording to link to');

  const logged = new Set<string>();
  const byOutcome: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const page: z.infer<typeof deliveryLog> = await getJson(
      `${route(readApiUrl, READ_API_ROUTES.meetingEvents, botId)}${cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`}`,
      deliveryLog,
    );
    for (const delivery of page.events) {
      logged.add(delivery.idempotency_key);
      byOutcome[delivery.outcome] = (byOutcome[delivery.outcome] ?? 0) + 1;
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
  const missing = [...sources.acceptedKeys].filter((key) => !logged.has(key));
  if (missing.length > 0) problems.push(`${missing.length} accepted webhooks missing from the delivery log`);
  for (const outcome of ['failed', 'pending'])
    if ((byOutcome[outcome] ?? 0) > 0) problems.push(`${byOutcome[outcome]} deliveries ${outcome}`);

  const events = botEvents(sources.eventsFile, botId);
  for (const required of recorded ? [DETAIL_TYPES.ended, DETAIL_TYPES.archived] : [DETAIL_TYPES.ended])
    if (!events.includes(required)) problems.push(`no ${required} event in ${sources.eventsFile}`);

  return { botId, transcripts, recording, deliveries: { webhooks: logged.size, byOutcome }, events, problems };
}

/** The bot's domain events in the events file (PutEvents entries, one JSON line each). */
function botEvents(file: string, botId: string): string[] {
  return readEventLog(file)
    .filter((entry) => (JSON.parse(entry.Detail) as { bot_id?: string }).bot_id === botId)
    .map((entry) => entry.DetailType);
}
