/**
 * Erasure in local mode, as a user meets it: `meeting-pipeline erase <bot>` asks on a terminal
 * (the bot id typed back), needs --yes elsewhere, prints the receipt and prints the same one again;
 * the meeting then answers 404 "erased"; a bot the pipeline never saw is not found (exit 3) unless
 * --force, whose receipt says so; and the service's own `data_deleted` (after
 * `POST bots/{id}/delete_data`) erases a meeting through the erasure queue, its receipt named
 * where its delivery log was. The bin runs as a child (on a pseudo-terminal where the terminal is
 * the point) for what is seen through the process: the exit status and stderr line of a bot never
 * seen and of a refusal off a terminal, the question on a terminal; the other runs are `main` in this
 * process (each child costs seconds of start-up on a busy machine).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit-codes';
import { erasureReceipt } from '../../lambdas/core/erase/erase-contract';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { cliInProcess } from '../fixtures/cli-in-process';
import {
  archivedMeeting,
  BIN,
  CLI_ENTRY,
  type CliLocalStack,
  childEnvironment,
  cli,
  ROOT,
  type Run,
  startCliLocalStack,
} from '../fixtures/cli-local-stack';

let local: CliLocalStack;
beforeAll(async () => {
  local = await startCliLocalStack('erase');
}, 120_000);
afterAll(() => local?.stop());

async function archived(scheduleId: string): Promise<string> {
  const botId = await archivedMeeting(local, scheduleId);
  expect(botId).not.toBe('');
  return botId;
}

/**
 * The CLI on a terminal: `script` runs it on a pseudo-terminal (stdin and stdout both a TTY) and
 * types `answer` into it. Its output is the terminal's: the question, the echo, then the command's.
 */
function onTerminal(args: string[], answer: string): Promise<Run> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [join(BIN, 'tsx'), CLI_ENTRY, ...args].map(quote).join(' ');
  return new Promise((done) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: ROOT, env: childEnvironment() },
      (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
    child.stdin?.end(`${answer}\n`);
  });
}

describe('meeting-pipeline erase', () => {
  it('answers 404 (exit 3) for a bot the pipeline never saw, and with --force erases it ahead of its webhooks, saying so', {
    timeout: 120_000,
  }, async () => {
    const e = ['--endpoint', local.endpoint];
    const unknown = await cli(['erase', 'bot_never_seen', '--yes', ...e]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('never saw bot bot_never_seen');
    expect(unknown.stderr).toContain('--force');
    // The route's error in the API's one shape.
    const answer = await fetch(`${local.endpoint}/meetings/bot_never_seen`, { method: 'DELETE' });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({
      error: { code: 'not-found', message: expect.stringContaining('force=true') },
    });

    // On a terminal, confirmed by typing the bot id back.
    const forced = await onTerminal(['erase', 'bot_never_seen', '--force', ...e], 'bot_never_seen');
    expect(forced.code, forced.stdout).toBe(EXIT.ok);
    expect(forced.stdout).toContain('Type the bot id to confirm');
    expect(forced.stdout).toContain('the pipeline had never seen this bot');
    // Erased now: asked again, without --force, it is the same receipt.
    const again = await cliInProcess(['erase', 'bot_never_seen', '--yes', '--json', ...e]);
    expect(again.code).toBe(EXIT.ok);
    const receipt = erasureReceipt.parse(JSON.parse(again.stdout));
    expect(receipt).toMatchObject({ bot_id: 'bot_never_seen', never_seen: true });
    expect(Object.values(receipt.counts).every((count) => count === 0)).toBe(true);
    expect(forced.stdout).toMatch(new RegExp(`receipt\\s+${receipt.receipt_id}`));
  });

  it('refuses without --yes off a terminal, erases nothing when the answer is not the bot id, then erases with --yes, prints the receipt, the same one again, and the meeting answers 404 erased', {
    timeout: 180_000,
  }, async () => {
    const botId = await archived('erase-me');
    const e = ['--endpoint', local.endpoint];
    const piped = await cli(['erase', botId, ...e]);
    expect(piped.code).toBe(EXIT.usage);
    expect(piped.stderr.trim().split('\n')).toHaveLength(1);
    expect(piped.stderr).toContain('pass --yes');
    const declined = await onTerminal(['erase', botId, ...e], 'yes');
    expect(declined.stdout).toContain(`Erase ${botId} everywhere`);
    expect(declined.stdout).toContain(`not erased: the answer was not ${botId}`);
    expect(declined.code).toBe(EXIT.error);
    expect((await cliInProcess(['meetings', 'show', botId, ...e])).code).toBe(EXIT.ok);

    const first = await cliInProcess(['erase', botId, '--yes', '--json', '--endpoint', local.endpoint]);
    expect(first.code, first.stderr).toBe(0);
    const receipt = erasureReceipt.parse(JSON.parse(first.stdout));
    console.log('local-mode erasure receipt', JSON.stringify(receipt, null, 2));
    expect(receipt).toMatchObject({ bot_id: botId, reason: 'request', upstream: 'not-requested' });
    expect(receipt.counts.meeting_items).toBeGreaterThan(0);
    expect(receipt.counts.ledger_records).toBeGreaterThan(0);
    expect(receipt.counts.recording_objects).toBeGreaterThan(0);

    const again = await cliInProcess(['erase', botId, '--yes', '--endpoint', local.endpoint]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`receipt\\s+${receipt.receipt_id}`));
    expect(again.stdout).toContain('point-in-time-backups');

    const shown = await cliInProcess(['meetings', 'show', botId, '--endpoint', local.endpoint]);
    expect(shown.code).toBe(EXIT.notFound);
    expect(shown.stderr).toContain(`erased at ${receipt.erased_at}, receipt ${receipt.receipt_id}`);
  });

  it('erases a meeting whose data the service deleted (data_deleted), through the erasure queue', {
    timeout: 120_000,
  }, async () => {
    const botId = await archived('deleted-upstream');
    const service = new UpstreamClient({ baseUrl: local.stack.apiBaseUrl, apiKey: async () => 'local-dev-key' });
    await service.deleteBotData(botId);

    // A 404 comes first while the erasure runs ("erasure in progress"), then the finished erasure's receipt.
    const finished = (run: { code: number; stderr: string }) =>
      run.code === EXIT.notFound && /erased at /.test(run.stderr);
    let events = await cliInProcess(['events', botId, '--endpoint', local.endpoint]);
    for (let i = 0; i < 300 && !finished(events); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = await cliInProcess(['events', botId, '--endpoint', local.endpoint]);
    }
    // The delivery log of the meeting names the receipt the erasure left.
    expect(events.code).toBe(EXIT.notFound);
    expect(events.stderr).toMatch(/erased at .*, receipt er_/);
    const receipt = erasureReceipt.parse(
      JSON.parse((await cliInProcess(['erase', botId, '--yes', '--json', '--endpoint', local.endpoint])).stdout),
    );
    expect(receipt).toMatchObject({ bot_id: botId, reason: 'upstream-data-deleted' });
    expect(events.stderr).toContain(receipt.receipt_id);
  });
});
