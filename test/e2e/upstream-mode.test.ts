/**
 * Local mode against an external service (what `npm run dev -- --serve --upstream`
 * does), here the standalone simulator (`npm run simulator`) in its own server:
 * nothing is simulated inside the pipeline; the service starts the bot, plays the
 * meeting and sends its webhooks to the pipeline's URL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiveRecord } from '../../lambdas/core/archive/archive-meeting';
import { type LocalStack, newSigningSecret, startLocalStack } from '../../local/local-stack';
import { recordingSha256 } from '../../local/simulator/api-server';
import { type StandaloneSimulator, startStandaloneSimulator } from '../../local/simulator/standalone';
import { NO_CHAOS } from '../../local/simulator/webhook-sender';
import { scratchEventsFile } from '../fixtures/event-log';
import { meetingItem } from '../fixtures/store-reader';

let simulator: StandaloneSimulator | undefined;
let stack: LocalStack | undefined;
afterAll(async () => {
  await stack?.stop();
  await simulator?.stop();
});

describe('local mode with --upstream', () => {
  it('runs a meeting end to end against the standalone simulator', { timeout: 120_000 }, async () => {
    const signingSecret = newSigningSecret();
    const lines: string[] = [];
    simulator = await startStandaloneSimulator({ signingSecret, stepMs: 200, recordingBytes: 1024 * 1024 });
    stack = await startLocalStack({
      eventsFile: scratchEventsFile(),
      signingSecret,
      upstream: { baseUrl: simulator.apiBaseUrl, apiKey: simulator.apiKey },
      chaos: NO_CHAOS,
      stepMs: 200,
      recordingBytes: 1024 * 1024,
      reconcileEveryMs: 1_000,
      staleAfterMs: 30_000,
      seed: 7,
      print: (line) => lines.push(line),
    });
    expect(stack.apiBaseUrl).toBe(simulator.apiBaseUrl);
    simulator.setWebhookUrl(stack.webhookUrl);

    // Through the local schedule API, as a user would.
    const response = await fetch(`${stack.scheduleApiUrl}/upstream-1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        meeting_url: 'https://meet.google.com/xyz-abcd-efg',
        join_at: new Date(Date.now() + 3_000).toISOString(),
      }),
    });
    expect(response.status).toBe(201);
    expect(await stack.waitUntilArchived(['upstream-1'], 60_000)).toBe(true);

    const [botId] = [...simulator.service.bots.keys()];
    const bot = simulator.service.bots.get(botId ?? '');
    expect(bot?.metadata).toMatchObject({ schedule_id: 'upstream-1', schedule_version: '1' });
    const meeting = await meetingItem(stack.resources.tableName, botId ?? '');
    expect(meeting?.state).toBe('ended');
    const archive = meeting?.archive as ArchiveRecord;
    expect(archive.recording?.sha256).toBe(recordingSha256(bot?.recording?.seed ?? -1, bot?.recording?.size ?? -1));
    expect(simulator.sender.stats.delivered).toBeGreaterThan(5);
    expect(lines.join('\n')).toContain('archived: recording archived');
  });
});
