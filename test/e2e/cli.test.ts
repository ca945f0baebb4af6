/**
 * The CLI as a user runs it against local mode (the whole local stack, its endpoints file
 * written as `npm run dev` writes it), answers parsed with the read API contract's schemas.
 * The bin runs as a child process for one case of each thing seen through the process (the
 * exit status, the lines on stdout and stderr, a folder's endpoints file, variables it is
 * given); the other variations run `main` in this process (`inProcess`), each child costing
 * seconds of start-up on a busy machine.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { EXIT } from '../../cli/exit-codes';
import {
  deliveryLog,
  meetingList,
  meetingView,
  recordingLink,
  transcriptJson,
} from '../../lambdas/core/read/read-api-contract';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { type LocalStack, newSigningSecret } from '../../local/local-stack';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { cliInProcess as inProcess } from '../fixtures/cli-in-process';
import {
  BIN,
  CLI_ENTRY,
  type CliLocalStack,
  cli,
  type Run,
  run,
  startCliLocalStack,
} from '../fixtures/cli-local-stack';
import { transcriptEnvelope } from '../fixtures/webhooks';

function parsed<S extends $ZodType>(result: Run, schema: S): z.output<S> {
  expect(result.stderr.replace(/^.*nodedir.*\n/gm, '')).not.toMatch(/error/i);
  expect(result.code).toBe(0);
  return z.parse(schema, JSON.parse(result.stdout));
}

let local: CliLocalStack | undefined;
let stack: LocalStack | undefined;
let dir = '';
let endpointsFile = '';
let endpoint = '';
/** Queues of this test's own, named in the endpoints file as the events queue and its DLQ. */
let sourceQueueUrl = '';
let deadLetterQueueUrl = '';
const sqs = () => sqsClient();

beforeAll(async () => {
  local = await startCliLocalStack('cli');
  ({ stack, dir, endpointsFile, endpoint, sourceQueueUrl, deadLetterQueueUrl } = local);
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

describe('meeting-pipeline CLI', () => {
  it('explains itself with --help on every level, and npx finds it as the package bin', async () => {
    const top = await run('npx', ['--no-install', 'meeting-pipeline', '--help']);
    expect(top.code).toBe(0);
    for (const text of ['meetings list', 'transcript', 'recording', 'schedule put', 'dlq redrive', 'quarantine list'])
      expect(top.stdout).toContain(text);
    expect(top.stdout).toMatch(/exit codes:[\s\S]*3 {2}not found[\s\S]*5 {2}checksum mismatch/);
    const command = await inProcess(['recording', '--help']);
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/^usage: meeting-pipeline recording <bot> \[--download FILE\]/);
    expect(command.stdout).toContain('exit codes:');
    const group = await inProcess(['schedule', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('schedule cancel');
  });

  it('exits 2 with one line for a bad command, flag or value', async () => {
    const child = await cli(['nope']);
    expect(child.code).toBe(EXIT.usage);
    expect(child.stdout).toBe('');
    expect(child.stderr.trim().split('\n')).toHaveLength(1);
    for (const args of [
      ['nope'],
      ['meetings', 'list', '--bogus', '--endpoint', endpoint],
      ['meetings', 'list', '--limit', '0', '--endpoint', endpoint],
      ['meetings', 'show', '--endpoint', endpoint],
      ['transcript', 'bot_x', '--format', 'doc', '--endpoint', endpoint],
      ['dlq', 'list', '--endpoint', endpoint],
      ['meetings', 'list', '--endpoint', endpoint, '--local'],
    ]) {
      const result = await inProcess(args);
      expect({ args, code: result.code }).toEqual({ args, code: EXIT.usage });
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('takes the target flags, --json and --help anywhere on the line, before the command words too', async () => {
    // A project folder of its own, with local mode's endpoints where `npm run dev` writes them.
    const project = join(dir, 'project');
    mkdirSync(join(project, '.local'), { recursive: true });
    copyFileSync(endpointsFile, join(project, '.local/endpoints.json'));
    const lines = [
      ['--local', 'meetings', 'list', '--json'],
      ['meetings', '--local', 'list', '--json'],
      ['--json', '--endpoint', endpoint, 'meetings', 'list'],
      [`--endpoint=${endpoint}`, '--json', 'meetings', 'list'],
      ['--endpoints-file', endpointsFile, 'meetings', 'list', '--json'],
    ];
    // The first line as a child started in the project folder; the others in this process, one at a time.
    const [first = [], ...others] = lines;
    const results = [await run(join(BIN, 'tsx'), [CLI_ENTRY, ...first], {}, project)];
    for (const args of others) results.push(await inProcess(args, { cwd: project }));
    for (const [i, args] of lines.entries()) {
      const result = results[i] as Run;
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ args, code: 0 });
      meetingList.parse(JSON.parse(result.stdout));
    }
  });

  it('puts, gets and cancels a schedule', async () => {
    const joinAt = new Date(Date.now() + 3 * 3_600_000).toISOString();
    const put = await inProcess([
      'schedule',
      'put',
      'cli-later',
      '--meeting-url',
      'https://meet.google.com/abc-defg-hij',
      '--join-at',
      joinAt,
      '--bot-name',
      'CLI Bot',
      '--json',
      '--endpoint',
      endpoint,
    ]);
    expect(put.code).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ schedule_id: 'cli-later', status: 'scheduled', join_at: joinAt });
    const got = await inProcess(['schedule', 'get', 'cli-later', '--endpoint', endpoint]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/status\s+scheduled/);
    expect(got.stdout).toMatch(/bot name\s+CLI Bot/);
    const cancelled = await inProcess(['schedule', 'cancel', 'cli-later', '--json', '--endpoints-file', endpointsFile]);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'cancelled' });

    const missing = await inProcess(['schedule', 'get', 'no-such-schedule', '--endpoint', endpoint]);
    expect(missing.code).toBe(EXIT.notFound);
    expect(missing.stderr).toContain('No schedule no-such-schedule');
    const refused = await inProcess([
      ...['schedule', 'put', 'cli-bad', '--meeting-url', 'https://meet.google.com/abc-defg-hij'],
      ...['--join-at', 'tomorrow', '--endpoint', endpoint],
    ]);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('join_at');
  });

  it('reads a meeting it scheduled: list, show, transcript in 4 formats, recording with a checked download, events', {
    timeout: 120_000,
  }, async () => {
    const joinAt = new Date(Date.now() + 3_000).toISOString();
    const put = await inProcess([
      ...['schedule', 'put', 'cli-meeting', '--meeting-url', 'https://meet.google.com/cli-meet-ing'],
      ...['--join-at', joinAt, '--endpoint', endpoint],
    ]);
    expect(put.code).toBe(0);
    expect(await stack?.waitUntilArchived(['cli-meeting'], 90_000)).toBe(true);
    const schedule = JSON.parse(
      (await inProcess(['schedule', 'get', 'cli-meeting', '--json', '--endpoint', endpoint])).stdout,
    );
    const bot = String(schedule.bot_id);
    const e = ['--endpoint', endpoint];

    const list = parsed(await inProcess(['meetings', 'list', '--json', '--all', ...e]), meetingList);
    expect(list.meetings.map((m) => m.bot_id)).toContain(bot);
    const table = await inProcess(['meetings', 'list', '--state', 'ended', ...e]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^BOT\s+STATE/);
    expect(table.stdout).toContain(bot);

    const meeting = parsed(await inProcess(['meetings', 'show', bot, '--json', ...e]), meetingView);
    expect(meeting).toMatchObject({ bot_id: bot, state: 'ended', schedule_id: 'cli-meeting' });
    expect(meeting.recording?.status).toBe('archived');
    const shown = await inProcess(['meetings', 'show', bot, ...e]);
    expect(shown.stdout).toMatch(/state\s+ended/);

    const transcript = parsed(await inProcess(['transcript', bot, '--format', 'json', ...e]), transcriptJson);
    expect(transcript.utterances.length).toBeGreaterThan(0);
    const vtt = await inProcess(['transcript', bot, '--format', 'vtt', ...e]);
    expect(vtt.stdout).toMatch(/^WEBVTT\n/);
    expect(vtt.stdout).toMatch(/\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}/);
    const srt = await inProcess(['transcript', bot, '--format', 'srt', ...e]);
    expect(srt.stdout).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> /);
    const text = await inProcess(['transcript', bot, ...e]);
    expect(text.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] [^:]+: /);

    const link = parsed(await inProcess(['recording', bot, '--json', ...e]), recordingLink);
    expect(link.sha256).toBe(meeting.recording?.sha256);
    const file = join(dir, 'recording.mp4');
    const download = await inProcess(['recording', bot, '--download', file, ...e]);
    expect(download.code).toBe(0);
    expect(download.stdout).toContain('matches the archive');
    expect(download.stderr).toContain('downloaded');
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(link.sha256);

    const log = parsed(await inProcess(['events', bot, '--json', '--all', ...e]), deliveryLog);
    expect(log.events.length).toBeGreaterThan(3);
    expect(log.events.every((event) => event.outcome === 'applied' || event.outcome === 'duplicate')).toBe(true);
    const logTable = await inProcess(['events', bot, ...e]);
    expect(logTable.stdout).toMatch(/^RECEIVED\s+TRIGGER\s+OUTCOME/);

    // Not found, as the process's exit status, then as main's for each command.
    const nobody = await cli(['meetings', 'show', 'bot_nobody', ...e]);
    expect(nobody.code).toBe(EXIT.notFound);
    for (const args of [
      ['meetings', 'show', 'bot_nobody'],
      ['transcript', 'bot_nobody'],
      ['recording', 'bot_nobody'],
      ['events', 'bot_nobody'],
    ]) {
      const result = await inProcess([...args, ...e]);
      expect({ args, code: result.code }).toEqual({ args, code: EXIT.notFound });
    }
  });

  it('lists the DLQs and moves a message back to its queue, attributes and all', async () => {
    const f = ['--endpoints-file', endpointsFile];
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: deadLetterQueueUrl,
        MessageBody: '{"event":"bot.status_change","note":"failed 5 times"}',
        MessageAttributes: { trigger: { DataType: 'String', StringValue: 'bot.status_change' } },
      }),
    );
    const before = await cli(['dlq', 'list', '--json', ...f]);
    expect(before.code).toBe(0);
    const [events] = JSON.parse(before.stdout) as Array<{
      name: string;
      approximate_messages: number;
      sample: unknown;
    }>;
    expect(events).toMatchObject({
      name: 'events',
      approximate_messages: 1,
      sample: { body: expect.stringContaining('failed 5 times') },
    });
    const table = await inProcess(['dlq', 'list', ...f]);
    expect(table.stdout).toMatch(/^DLQ\s+MESSAGES/);
    expect(table.stdout).toMatch(/events\s+1/);

    const redrive = await inProcess(['dlq', 'redrive', 'events', ...f]);
    expect(redrive.stderr.replace(/^.*nodedir.*\n/gm, '')).toBe('');
    expect(redrive.code).toBe(0);
    expect(redrive.stdout).toContain('1 moved back from the events DLQ');
    const { Messages = [] } = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl: sourceQueueUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }),
    );
    expect(Messages.map((m) => [m.Body, m.MessageAttributes?.trigger?.StringValue])).toEqual([
      ['{"event":"bot.status_change","note":"failed 5 times"}', 'bot.status_change'],
    ]);
    const after = JSON.parse((await inProcess(['dlq', 'list', '--json', ...f])).stdout) as Array<{
      approximate_messages: number;
    }>;
    expect(after[0]?.approximate_messages).toBe(0);
    expect((await inProcess(['dlq', 'redrive', 'calendar', ...f])).code).toBe(EXIT.notFound);
  });

  it('lists the quarantine and re-drives a webhook once the secret that signed it is the current one', async () => {
    const f = ['--endpoints-file', endpointsFile];
    // Signed with a secret the stack does not hold yet, as after a rotation the service made first.
    const rotated = newSigningSecret();
    const signed = signWebhook(transcriptEnvelope(), rotated);
    const refused = await fetch(stack?.webhookUrl ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signed.signature },
      body: signed.body,
    });
    expect(refused.status).toBe(401);
    const listed = await cli(['quarantine', 'list', '--json', ...f]);
    expect(listed.code).toBe(0);
    const entries = JSON.parse(listed.stdout) as Array<{ key: string; reason: string }>;
    expect(entries).toEqual([expect.objectContaining({ reason: 'signature-mismatch' })]);
    expect((await inProcess(['quarantine', 'list', ...f])).stdout).toContain('1 quarantined');

    // An endpoints file without the secret (from before npm run dev wrote it) and no SIGNING_SECRET: one line asking.
    const withoutSecret = await inProcess(['quarantine', 'redrive', ...f]);
    expect(withoutSecret.code).toBe(EXIT.usage);
    expect(withoutSecret.stderr).toContain('SIGNING_SECRET');
    // As npm run dev writes it, the endpoints file holds the secret: the dry run reads it there, asking nothing.
    const withSecretFile = join(dir, 'endpoints-with-secret.json');
    writeFileSync(
      withSecretFile,
      JSON.stringify({ ...JSON.parse(readFileSync(endpointsFile, 'utf8')), signingSecret: rotated }),
    );
    const fromFile = await inProcess(['quarantine', 'redrive', '--dry-run', '--endpoints-file', withSecretFile]);
    expect(fromFile.stderr).toBe('');
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain('1 checked: 1 would be re-driven, 0 still refused, 0 failed');
    const dryRun = await inProcess(['quarantine', 'redrive', '--dry-run', ...f], { env: { SIGNING_SECRET: rotated } });
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain('1 checked: 1 would be re-driven, 0 still refused, 0 failed');
    const redriven = await cli(['quarantine', 'redrive', '--json', ...f], { SIGNING_SECRET: rotated });
    expect(redriven.code).toBe(0);
    expect(JSON.parse(redriven.stdout)).toMatchObject({ checked: 1, redriven: [entries[0]?.key] });
    expect((await inProcess(['quarantine', 'list', ...f])).stdout).toContain('0 quarantined');
  });
});
