/**
 * Local mode end to end (what `npm run dev -- --meetings 5 --chaos --once` does):
 * five scheduled meetings played by the simulated service with duplicated,
 * reordered and dropped webhooks, and two the bot never joins (left in a Teams
 * lobby until the timeout, denied from a Zoom waiting room); every stored meeting
 * must equal what was played, and a meeting never joined has no recording.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LAKE_PREFIX } from '../../lambdas/core/lake/lake-layout';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import { LOCAL_EVENT_BUS_NAME, readEventLog } from '../../local/event-log-publisher';
import { type LocalStack, newSigningSecret, startLocalStack } from '../../local/local-stack';
import { readBack } from '../../local/read-back';
import { DEFAULT_CHAOS } from '../../local/simulator/webhook-sender';
import { scratchEventsFile } from '../fixtures/event-log';
import { entryProblems } from '../fixtures/event-schemas';

let stack: LocalStack | undefined;
afterAll(async () => stack?.stop());

describe('local mode', () => {
  it('schedules, plays, stores and archives 5 meetings exactly, and 2 never joined, with chaos on', {
    timeout: 180_000,
  }, async () => {
    const lines: string[] = [];
    const logs: string[] = [];
    const signingSecret = newSigningSecret();
    const eventsFile = scratchEventsFile();
    stack = await startLocalStack({
      signingSecret,
      eventsFile,
      onLog: (level, message, attributes) => logs.push(JSON.stringify({ level, message, ...attributes })),
      chaos: { ...DEFAULT_CHAOS, drop: 0.2 },
      stepMs: 250,
      recordingBytes: 1024 * 1024,
      reconcileEveryMs: 1_000,
      staleAfterMs: 3_000,
      seed: 20261122,
      print: (line) => lines.push(line),
    });
    const ids = Array.from({ length: 5 }, (_, i) => `e2e-${i + 1}`);
    for (const [i, id] of ids.entries()) {
      expect(await stack.scheduleMeeting(id, new Date(Date.now() + 3_000 + i * 500))).toMatchObject({ status: 201 });
    }
    const neverJoined = [
      {
        id: 'e2e-lobby',
        url: 'https://teams.microsoft.com/meet/2345678901234?p=AbCdEf',
        scenario: 'waiting_room_timeout_exceeded',
      },
      { id: 'e2e-denied', url: 'https://zoom.us/j/81234567890', scenario: 'request_to_join_denied' },
    ] as const;
    for (const { id, url, scenario } of neverJoined)
      expect(await stack.scheduleMeeting(id, new Date(Date.now() + 3_000), url, scenario)).toMatchObject({
        status: 201,
      });
    const all = [...ids, ...neverJoined.map(({ id }) => id)];
    expect(await stack.waitUntilArchived(all, 120_000)).toBe(true);
    await stack.sender.drain();

    const everyCheck = await stack.check(all);
    expect(everyCheck.flatMap((c) => c.problems.map((p) => `${c.scheduleId}: ${p}`))).toEqual([]);
    const checks = everyCheck.filter((c) => ids.includes(c.scheduleId));
    expect(checks.every((c) => c.state === 'ended' && c.recording !== undefined && c.utterances >= 3)).toBe(true);
    // Never joined: the state the service ended in, nothing recorded or said, and what a customer reads says so.
    const unjoined = everyCheck.filter((c) => !ids.includes(c.scheduleId));
    expect(unjoined.map((c) => [c.state, c.recording, c.utterances, c.participants, c.summary])).toEqual([
      ['fatal_error', undefined, 0, 0, undefined],
      ['fatal_error', undefined, 0, 0, undefined],
    ]);
    for (const check of unjoined) {
      const back = await readBack(check.botId, {
        readApiUrl: stack.readApiUrl,
        eventsFile,
        acceptedKeys: stack.sender.acceptedKeys.get(check.botId) ?? new Set(),
        recorded: false,
      });
      expect(back.problems, check.botId).toEqual([]);
      expect(back.recording, check.botId).toBeUndefined();
    }

    // `npm run dev` writes the lake into the local S3: each meeting's three recent files under `lake/`.
    const lakeFiles = await s3Recordings(s3Client(), stack.recordingsBucket).list(LAKE_PREFIX);
    for (const check of checks)
      expect(lakeFiles.filter((file) => file.key.endsWith(`/${check.botId}.parquet`)).length, check.botId).toBe(3);

    const { stats } = stack.sender;
    const count = (name: string) => stack!.counts.get(name) ?? 0;
    expect(stats.duplicated).toBeGreaterThan(0);
    expect(stats.dropped).toBeGreaterThan(0);
    // Every accepted delivery, and every state the reconciler read from the service (healed, or applied just after
    // the webhook that made it moot), was processed once: applied or skipped as a duplicate. The pipeline is still live: a late copy accepted just before the drain may be on the queue, and a
    // heal or an acceptance counts after its effect, so the two sides settle within moments (bounded wait).
    const processed = () => count('EventApplied') + count('EventDuplicate');
    const owed = () => count('WebhookAccepted') + count('ReconcilerObserved');
    for (const deadline = Date.now() + 30_000; processed() !== owed() && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processed()).toBe(owed());
    expect(count('WebhookAccepted')).toBe(stats.delivered);
    expect(count('MeetingArchived')).toBeGreaterThanOrEqual(5);
    expect(lines.some((line) => line.includes('archived: recording archived'))).toBe(true);

    // Every domain event published, as its PutEvents entry, matches its JSON Schema (an independent validator).
    const entries = readEventLog(eventsFile);
    expect(entries.flatMap(entryProblems)).toEqual([]);
    const perType = (type: string) =>
      new Set(entries.filter((e) => e.DetailType === type).map((e) => JSON.parse(e.Detail).event_id)).size;
    // Deduplicated by event_id: one launch and one end per meeting, one archive per recorded one, whatever chaos did.
    expect([perType('schedule.launched'), perType('meeting.ended')]).toEqual([7, 7]);
    const archiveOf = new Map(
      entries
        .filter((e) => e.DetailType === 'meeting.archived')
        .map((e) => [JSON.parse(e.Detail).event_id as string, JSON.parse(e.Detail).bot_id as string]),
    );
    for (const check of checks)
      expect(
        [...archiveOf.values()].filter((bot) => bot === check.botId),
        check.botId,
      ).toHaveLength(1);
    // Dropped webhooks publish nothing until the reconciler heals the state: every meeting has some.
    const changedBots = new Set(
      entries.filter((e) => e.DetailType === 'meeting.state_changed').map((e) => JSON.parse(e.Detail).bot_id),
    );
    expect(changedBots.size).toBe(7);
    expect(entries.every((e) => e.Source === 'meeting-pipeline' && e.EventBusName === LOCAL_EVENT_BUS_NAME)).toBe(true);
    expect(lines.some((line) => line.includes('event meeting.archived'))).toBe(true);

    // What the customer gets back (as `npm run dev` reports it): four transcript formats, a recording
    // link whose bytes match the archive, every accepted webhook in the delivery log, ended and archived events.
    for (const check of checks) {
      const back = await readBack(check.botId, {
        readApiUrl: stack.readApiUrl,
        eventsFile,
        acceptedKeys: stack.sender.acceptedKeys.get(check.botId) ?? new Set(),
      });
      expect(back.problems, check.botId).toEqual([]);
      expect(back.recording?.matchesArchive, check.botId).toBe(true);
      // Also states the reconciler observed (recorded in the ledger under their own keys).
      expect(back.deliveries.webhooks, check.botId).toBeGreaterThanOrEqual(
        stack.sender.acceptedKeys.get(check.botId)?.size ?? Number.POSITIVE_INFINITY,
      );
    }

    // Secrets never reach the logs: not the signing secret, not the API key, not a signature.
    expect(logs.length).toBeGreaterThan(100);
    const everything = logs.join('\n');
    expect(everything).toContain('webhook accepted');
    for (const secret of [signingSecret, Buffer.from(signingSecret, 'base64').toString('hex'), 'local-dev-key'])
      expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/x-webhook-signature|"signature"|Token local/i);
  });

  it('serves the schedule API over HTTP on loopback, as API Gateway routes it in AWS', async () => {
    if (stack === undefined) throw new Error('the stack did not start');
    const url = `${stack.scheduleApiUrl}/http-demo`;
    const joinAt = new Date(Date.now() + 3 * 3_600_000).toISOString();
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ meeting_url: 'https://meet.google.com/abc-defg-hij', join_at: joinAt }),
    });
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ schedule_id: 'http-demo', status: 'scheduled', join_at: joinAt });
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ schedule_id: 'http-demo', status: 'scheduled' });
    const deleted = await fetch(url, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ status: 'cancelled' });
    expect((await fetch(`${stack.scheduleApiUrl}/a/b`)).status).toBe(404);
    const refused = await fetch(`${stack.scheduleApiUrl}/bad-body`, { method: 'PUT', body: 'not json' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid-json' } });
  });
});
