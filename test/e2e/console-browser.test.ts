/**
 * The operator console in a real Chromium, against local mode with the simulated service, started
 * as a user starts it (`meeting-pipeline console`, a child process): the launch token becomes an
 * HttpOnly cookie and leaves the address bar; a missed-or-recorded meeting is followed from the
 * overview to its timeline; a transcript line plays the recording from its moment (Range requests);
 * names and transcript text an outsider controls show as text and run nothing; erasure asks for the
 * bot id and shows the receipt; requests without the cookie, with a foreign Host or without the CSRF
 * token are refused; axe-core finds no serious violation on any page. Screenshots go to
 * .scratch/screenshots/console.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeetingView } from '../../lambdas/core/read/read-api-contract';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { newSigningSecret } from '../../local/local-stack';
import { listenOnLoopback } from '../../local/loopback-host';
import { participantJoinLeave, transcriptUpdate } from '../../local/simulator/payloads';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { launchChromium, seriousAccessibilityViolations } from '../fixtures/browser';
import {
  archivedMeeting,
  BIN,
  CLI_ENTRY,
  type CliLocalStack,
  childEnvironment,
  ROOT,
  startCliLocalStack,
} from '../fixtures/cli-local-stack';

const SCREENSHOTS = join(ROOT, '.scratch/screenshots/console');
const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
const HOSTILE_LINE = '<script>window.__pwned = 1</script> and <b>bold</b>';
const HOSTILE_TITLE = '<img src=x onerror=alert(2)> Planning';
const CALENDAR_ID = 'team-feed';

/** An ICS feed with one meeting tomorrow whose title an outsider chose. */
function feed(): string {
  const start = new Date(Date.now() + 86_400_000);
  start.setUTCHours(10, 0, 0, 0);
  const stamp = (date: Date) =>
    date
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//console test//EN',
    'BEGIN:VEVENT',
    'UID:console-planning@test',
    `DTSTAMP:${stamp(new Date())}`,
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(new Date(start.getTime() + 1_800_000))}`,
    `SUMMARY:${HOSTILE_TITLE}`,
    'LOCATION:https://meet.google.com/abc-defg-hij',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

let local: CliLocalStack;
let botId: string;
/** A meeting known only from webhooks an outsider's words reached (after archiving, a transcript is final). */
const hostileBot = `bot_hostile${randomUUID().slice(0, 8)}`;
let consoleProcess: ChildProcess;
let launchUrl: string;
let origin: string;
let feedServer: Awaited<ReturnType<typeof listenOnLoopback>> | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];

async function sendWebhook(payload: ReturnType<typeof transcriptUpdate>): Promise<void> {
  const { body, signature } = signWebhook(payload, local.signingSecret);
  const answer = await fetch(local.stack.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    body,
  });
  expect(answer.status).toBe(202);
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The console as a user starts it; resolves with the address it printed. */
function startConsole(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  // As npm run dev writes it: the endpoints and the signing secret (a quarantine re-drive verifies with it).
  const endpointsFile = join(local.dir, 'endpoints-with-secret.json');
  writeFileSync(
    endpointsFile,
    JSON.stringify({ ...JSON.parse(readFileSync(local.endpointsFile, 'utf8')), signingSecret: local.signingSecret }),
  );
  const child = spawn(join(BIN, 'tsx'), [CLI_ENTRY, 'console', '--endpoints-file', endpointsFile, ...args], {
    cwd: ROOT,
    env: childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`console exited (${code}): ${err}${out}`)));
  });
}

/** A raw request to the console, Host and all as given (fetch would set its own Host). */
function rawRequest(
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: Number(port), path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function screenshot(name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  local = await startCliLocalStack('console');
  botId = await archivedMeeting(local, `console-${randomUUID().slice(0, 8)}`);
  expect(botId).not.toBe('');
  // What an outsider controls: a participant's name and what they say.
  await sendWebhook(
    participantJoinLeave(hostileBot, {
      id: randomUUID(),
      name: HOSTILE_NAME,
      uuid: 'hostile-1',
      isHost: false,
      eventType: 'join',
      timestampMs: Date.now(),
    }),
  );
  await sendWebhook(
    transcriptUpdate(hostileBot, {
      speakerName: HOSTILE_NAME,
      speakerUuid: 'hostile-1',
      isHost: false,
      timestampMs: Date.now(),
      durationMs: 1_000,
      text: HOSTILE_LINE,
    }),
  );
  await until('the hostile line in the read API', async () => {
    const answer = await fetch(`${local.endpoint}/meetings/${hostileBot}/transcript`);
    const text = answer.ok ? await answer.text() : '';
    return text.includes('__pwned') ? true : undefined;
  });
  feedServer = await listenOnLoopback((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/calendar' }).end(feed());
  });
  const registered = await fetch(`${local.endpoint}/calendars/${CALENDAR_ID}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ics_url: `http://127.0.0.1:${feedServer.port}/feed.ics`, rules: { join: 'all' } }),
  });
  expect(registered.status).toBeLessThan(300);
  const started = await startConsole([]);
  consoleProcess = started.child;
  launchUrl = started.url;
  origin = new URL(launchUrl).origin;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  feedServer?.server.close();
  consoleProcess?.kill('SIGINT');
  await local?.stop();
});

describe('meeting-pipeline console in Chromium', () => {
  it('exchanges the launch token for an HttpOnly, SameSite=Strict cookie and drops it from the address', async () => {
    await page.goto(launchUrl);
    expect(page.url()).toBe(`${origin}/`);
    const cookies = await context.cookies(origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Overview');
  });

  it('follows a meeting from the overview to its timeline and outcome sentence', async () => {
    await page.goto(`${origin}/`);
    const recorded = page.getByRole('link', { name: /Recorded/ });
    await recorded.waitFor();
    expect(Number(await recorded.locator('.count').textContent())).toBeGreaterThanOrEqual(1);
    // The 30-day chart: a bar a day, today's holding this run's meetings.
    await page.locator('figure.chart').waitFor();
    expect(await page.locator('figure.chart svg g').count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator('figure.chart svg g title').last().textContent()).toMatch(new RegExp(`^${today}: [1-9]`));
    await page.getByRole('link', { name: /in the events dead-letter queue/ }).waitFor();
    await page.getByRole('link', { name: /quarantined for their signature/ }).waitFor();
    expect(await page.locator('.alarms').textContent()).toBe('local mode has no CloudWatch alarms.');
    await screenshot('overview');
    await recorded.click();
    await page.getByRole('link', { name: botId }).click();
    expect(page.url()).toBe(`${origin}/meetings/${botId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const sentence = await page.locator('.sentence').textContent();
    expect(sentence).not.toBe('');
    expect(await page.locator('table.list').first().textContent()).toContain('joined_meeting');
    // The address alone reopens it.
    await page.reload();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await screenshot('meeting');
    await screenshot('meeting-first-screen', false);
  });

  it('shows what outsiders wrote as text and runs none of it', async () => {
    await page.goto(`${origin}/meetings/${hostileBot}`);
    await page.locator('.participant-name', { hasText: HOSTILE_NAME }).first().waitFor();
    await page.locator('.transcript .text', { hasText: HOSTILE_LINE }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script, main b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await screenshot('hostile-text');
  });

  it("sets the recording to a transcript line's moment; the recording streams through Range requests", async () => {
    const media: Array<{ status: number; range: string | undefined }> = [];
    const listener = (response: import('playwright-core').Response) => {
      if (response.url().includes('/recording/media'))
        media.push({ status: response.status(), range: response.request().headers().range });
    };
    page.on('response', listener);
    await page.goto(`${origin}/meetings/${botId}`);
    const lines = page.locator('.transcript li');
    await lines.first().waitFor();
    const last = lines.nth((await lines.count()) - 1);
    const offsetMs = Number(await last.getAttribute('data-offset-ms'));
    expect(offsetMs).toBeGreaterThan(0);
    await last.getByRole('button').click();
    const position = await page
      .locator('video')
      .evaluate((video) => (video as unknown as { currentTime: number }).currentTime);
    expect(position).toBeCloseTo(offsetMs / 1000, 1);
    await expect.poll(() => media.length).toBeGreaterThan(0);
    page.off('response', listener);
    // The browser asks for the media by Range, and the archive answers with the part asked for.
    expect(media[0]).toMatchObject({ status: 206 });
    expect(media[0]?.range).toMatch(/^bytes=/);
    const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    const part = await rawRequest(`/api/meetings/${botId}/recording/media`, {
      headers: { cookie, range: 'bytes=0-99', host: new URL(origin).host },
    });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toMatch(/^bytes 0-99\//);
    expect(part.headers['content-length']).toBe('100');
  });

  it('refuses requests without the cookie, with a foreign Host, without the CSRF token or with a wrong token', async () => {
    const host = new URL(origin).host;
    expect((await rawRequest('/api/meetings', { headers: { host } })).status).toBe(401);
    expect((await rawRequest('/meetings', { headers: { host } })).status).toBe(401);
    expect((await rawRequest('/?token=not-the-token', { headers: { host } })).status).toBe(403);
    const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await rawRequest('/api/meetings', { headers: { cookie, host } })).status).toBe(200);
    expect((await rawRequest('/api/meetings', { headers: { cookie, host: 'evil.example:80' } })).status).toBe(421);
    const unsigned = await rawRequest(`/api/meetings/${botId}`, { method: 'DELETE', headers: { cookie, host } });
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toContain('csrf');
    // A route the CLI does not call is not reachable through the console.
    expect((await rawRequest('/api/schedules/x', { method: 'GET', headers: { cookie, host } })).status).toBe(404);
    const headers = (await rawRequest('/', { headers: { cookie, host } })).headers;
    expect(headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('has no serious accessibility violation on any page', async () => {
    for (const path of [
      '/',
      '/meetings',
      `/meetings/${botId}`,
      '/deliveries',
      '/search?words=runbook',
      '/no-such-page',
    ]) {
      await page.goto(`${origin}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      expect({ path, violations: await seriousAccessibilityViolations(page) }).toEqual({ path, violations: [] });
    }
  });

  it('shows a dead letter as text, and re-drives it after a confirmation', async () => {
    const body = `{"poison": "${HOSTILE_NAME}"}`;
    await sqsClient().send(new SendMessageCommand({ QueueUrl: local.deadLetterQueueUrl, MessageBody: body }));
    await page.goto(`${origin}/deliveries`);
    const row = page.locator('tr[data-queue="events"]');
    await expect.poll(() => row.locator('.count').textContent()).toBe('1');
    await row.getByText(/^Peek at/).click();
    expect(await row.locator('.peek').textContent()).toBe(body);
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot('deliveries');
    await row.getByRole('button', { name: 'Re-drive events' }).click();
    await row.getByRole('button', { name: 'Confirm re-drive of events' }).click();
    await page.getByText('events: 1 moved back to the events queue').waitFor();
    await expect.poll(() => row.locator('.count').textContent()).toBe('0');
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: local.sourceQueueUrl, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }),
    );
    expect(Messages.map((m) => m.Body)).toContain(body);
  });

  it('lists a webhook refused for its signature and re-drives the quarantine after a dry run', async () => {
    // Signed with a secret the stack does not hold, as after a rotation the service made first.
    const { body, signature } = signWebhook(
      transcriptUpdate(botId, {
        speakerName: 'Eve',
        speakerUuid: 'eve-1',
        isHost: false,
        timestampMs: Date.now(),
        durationMs: 500,
        text: 'forged',
      }),
      newSigningSecret(),
    );
    const forged = await fetch(local.stack.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
      body,
    });
    expect(forged.status).toBe(401);
    await page.goto(`${origin}/deliveries`);
    await page.locator('table.quarantine tbody tr').first().waitFor();
    const rows = await page.locator('table.quarantine tbody tr').count();
    expect(rows).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'Check what a re-drive would do' }).click();
    await page
      .getByText(new RegExp(`^Dry run: ${rows} checked: 0 would be re-driven, ${rows} still refused, 0 failed`))
      .waitFor();
    await page.getByRole('button', { name: 'Re-drive what verifies now' }).click();
    await page.getByText(new RegExp(`^Done: ${rows} checked: 0 re-driven, ${rows} still refused`)).waitFor();
    // Still refused: kept (the list reloads after the re-drive).
    await expect.poll(() => page.locator('table.quarantine tbody tr').count()).toBe(rows);
  });

  it("searches every meeting's words and opens a hit at its moment", async () => {
    await page.goto(`${origin}/search`);
    await page.getByLabel('Words').fill('runbook');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(new URL(page.url()).search).toBe('?words=runbook');
    const hit = page.locator('.hits li').first();
    await hit.waitFor();
    await screenshot('search');
    await hit.getByRole('link').click();
    expect(page.url()).toMatch(/\/meetings\/[^/?]+\?t=\d+$/);
    await page.locator('.transcript li.focused').waitFor();
    expect(await page.locator('.transcript li.focused .text').textContent()).toMatch(/runbook/i);
  });

  it("shows a calendar's decisions with outsiders' titles as text, syncs it, and cancels an upcoming bot", async () => {
    await page.goto(`${origin}/calendars`);
    await page.getByRole('link', { name: CALENDAR_ID }).click();
    expect(page.url()).toBe(`${origin}/calendars/${CALENDAR_ID}`);
    await page.locator('td.title', { hasText: HOSTILE_TITLE }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText(/^Synced: \d+ created, \d+ moved, \d+ cancelled, \d+ unchanged/).waitFor();
    const row = page.locator('tr[data-schedule]').first();
    await row.waitFor();
    expect(await row.textContent()).toContain('scheduled');
    await screenshot('calendar');
    await row.getByRole('button', { name: 'Cancel bot' }).click();
    await row.getByRole('button', { name: 'Confirm cancel' }).click();
    await expect.poll(async () => page.locator('tr[data-schedule]').first().textContent()).toContain('cancelled');
  });

  it('is usable on a narrow window', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${origin}/meetings/${botId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const overflow = await page.evaluate(() => {
      const view = globalThis as unknown as {
        document: { documentElement: { scrollWidth: number } };
        innerWidth: number;
      };
      return view.document.documentElement.scrollWidth - view.innerWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot('meeting-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('with --read-only, hides every change and refuses it', async () => {
    const readOnly = await startConsole(['--read-only']);
    try {
      const other = await browser.newContext();
      const view = await other.newPage();
      await view.goto(readOnly.url);
      await view.goto(`${new URL(readOnly.url).origin}/meetings/${botId}`);
      await view.getByRole('heading', { name: 'Timeline' }).waitFor();
      await view.getByRole('heading', { name: 'Deliveries' }).waitFor();
      expect(await view.getByRole('button', { name: 'Erase meeting' }).count()).toBe(0);
      // A replay's dry run changes nothing and is allowed; the replay itself is not offered.
      await view.getByRole('button', { name: 'Check what a replay would do' }).click();
      await view.getByText(/^Dry run:/).waitFor();
      expect(await view.getByRole('button', { name: /^Re-apply/ }).count()).toBe(0);
      const refused = await view.evaluate(async (id) => {
        const session = (await (await fetch('/api/session')).json()) as { csrf_token: string };
        const answer = await fetch(`/api/meetings/${id}`, {
          method: 'DELETE',
          headers: { 'x-csrf-token': session.csrf_token },
        });
        return { status: answer.status, body: await answer.text() };
      }, botId);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('read-only');
      await other.close();
    } finally {
      readOnly.child.kill('SIGINT');
    }
  });

  it("replays a meeting's stored webhooks after a dry run, doubling nothing", async () => {
    const before = (await (await fetch(`${local.endpoint}/meetings/${botId}`)).json()) as MeetingView;
    await page.goto(`${origin}/meetings/${botId}`);
    await page.getByRole('button', { name: 'Check what a replay would do' }).click();
    const dryRun = page.getByText(/^Dry run: \d+ stored webhook\(s\) would be re-applied/);
    await dryRun.waitFor();
    const stored = Number(/(\d+) stored/.exec((await dryRun.textContent()) ?? '')?.[1]);
    expect(stored).toBeGreaterThan(5);
    await page.getByRole('button', { name: `Re-apply ${stored} webhook(s)` }).click();
    await page.getByText(`Re-applied ${stored} of ${stored} webhook(s).`).waitFor();
    const after = (await (await fetch(`${local.endpoint}/meetings/${botId}`)).json()) as MeetingView;
    expect({ ...after, timeline: after.timeline.length }).toEqual({ ...before, timeline: before.timeline.length });
  });

  it('erases a meeting once its bot id is typed, and shows the receipt', async () => {
    await page.goto(`${origin}/meetings/${botId}`);
    const button = page.getByRole('button', { name: 'Erase meeting' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel('Type the bot id to confirm').fill(botId.slice(0, -1));
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel('Type the bot id to confirm').fill(botId);
    await button.click();
    await page.getByText('Erased. Receipt').waitFor();
    await screenshot('erased');
    const after = await fetch(`${local.endpoint}/meetings/${botId}`);
    expect(after.status).toBe(404);
  });
});
