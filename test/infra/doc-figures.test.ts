/**
 * Figures in the README and docs/ that the code can compute, each checked against where it
 * comes from, so none drifts: the stack's size from the synthesized template (synthesized once
 * per run, shared), the idle cost from the capacity model over that template, what `npm run
 * load` sends from the load tool's own workload, and the CLI's commands and the MCP server's
 * tools as docs/cli.md lists them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { calendarReport, PROVIDER_QUOTAS } from '../../capacity/calendar-load';
import { limitsOf } from '../../capacity/deployed';
import { fixedMonthlyCost } from '../../capacity/fixed-cost';
import { type LakeProfile, lakeAssumptionsFor, lakeReport } from '../../capacity/lake-load';
import type { MeasuredProfile } from '../../capacity/measure';
import { capacityReport, DEFAULT_ASSUMPTIONS } from '../../capacity/model';
import {
  DEFAULT_UTTERANCES_PER_HOUR,
  isRedeliveredInLoad,
  LOAD_DEFAULTS,
  meetingWebhookPayloads,
} from '../../capacity/workload';
import { COMMANDS } from '../../cli/main';
import type { MeetingLake } from '../../cli/mcp/lake-calls';
import type { MeetingReader } from '../../cli/mcp/meeting-reader';
import { createMeetingServer } from '../../cli/mcp/server';
import { cdkJsonContext, parseConfig } from '../../lib/config';
import { sharedTemplate, TEST_CONFIG_INPUT } from './synth';

const ROOT = join(import.meta.dirname, '../..');
const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = doc('README.md');
const CAPACITY = doc('docs/capacity.md');
const CLI_DOC = doc('docs/cli.md');
const thousands = (n: number) => n.toLocaleString('en-US');

/** Every match of a pattern in a text, its first group as a number (commas removed). */
const figures = (text: string, pattern: RegExp): number[] =>
  [...text.matchAll(pattern)].map((match) => Number((match[1] ?? '').replaceAll(',', '')));

describe('figures from the synthesized template', () => {
  const template = sharedTemplate().toJSON() as { Resources: Record<string, { Type: string }> };
  const count = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type).length;

  it("the README's size of the stack", () => {
    const stated = README.match(
      /has (\d+) resources\s+\((\d+) functions,\s+(a|\d+) tables?,\s+(\d+) buckets,\s+(\d+) queues,\s+(a|\d+) state machines?,\s+(\d+) alarms/,
    );
    expect(stated, 'the sentence with the stack size').not.toBeNull();
    const [, resources, functions, tables, buckets, queues, machines, alarms] = (stated ?? []).map((word) =>
      word === 'a' ? 1 : Number(word),
    );
    expect({ resources, functions, tables, buckets, queues, machines, alarms }).toEqual({
      resources: Object.keys(template.Resources).length,
      functions: count('AWS::Lambda::Function'),
      tables: count('AWS::DynamoDB::GlobalTable') + count('AWS::DynamoDB::Table'),
      buckets: count('AWS::S3::Bucket'),
      queues: count('AWS::SQS::Queue'),
      machines: count('AWS::StepFunctions::StateMachine'),
      alarms: count('AWS::CloudWatch::Alarm'),
    });
  });

  it('the idle monthly cost, wherever it is given, is the capacity model over this template', () => {
    const config = parseConfig({ ...cdkJsonContext(), ...TEST_CONFIG_INPUT });
    const limits = limitsOf(template);
    const total = fixedMonthlyCost(limits, config).reduce((sum, line) => sum + line.dollars, 0);
    // Everything billed by the month that the stack creates is counted: both KMS keys, its own secret.
    expect(limits.kmsKeys).toBe(count('AWS::KMS::Key'));
    expect(limits.secrets.stack).toBe(count('AWS::SecretsManager::Secret'));
    const pattern = /about \$(\d+) a month idle/g;
    const stated = [...figures(README, pattern), ...figures(CAPACITY, pattern)];
    expect(stated.length).toBeGreaterThanOrEqual(3);
    for (const dollars of stated) expect(dollars).toBe(Math.round(total));
  });
});

describe("the README's deploy section, against the template", () => {
  type Resource = { Type: string; DeletionPolicy?: string; Properties?: Record<string, unknown> };
  const resources = Object.values((sharedTemplate().toJSON() as { Resources: Record<string, Resource> }).Resources);
  const deploy = README.slice(README.indexOf('## Deploy to your account'), README.indexOf('## Connect your calendars'));
  const retained = (type: string) => resources.filter((r) => r.Type === type && r.DeletionPolicy === 'Retain');
  const described = (r: Resource) => String(r.Properties?.Description ?? '');

  it('tearing down names what cdk destroy keeps: the table, the buckets (the versioned ones), the KMS key', () => {
    const stated = deploy.match(/keeps the table, (\d+) buckets \((\d+) of them versioned\) and (\d+) KMS key/);
    expect(stated, 'the sentence with what is kept').not.toBeNull();
    const versioned = retained('AWS::S3::Bucket').filter(
      (bucket) => (bucket.Properties?.VersioningConfiguration as { Status?: string } | undefined)?.Status === 'Enabled',
    );
    expect(retained('AWS::DynamoDB::GlobalTable')).toHaveLength(1);
    expect(stated?.slice(1).map(Number)).toEqual([
      retained('AWS::S3::Bucket').length,
      versioned.length,
      retained('AWS::KMS::Key').length,
    ]);
    // Each kept key and each secret the stack creates is named by its description.
    for (const resource of [
      ...retained('AWS::KMS::Key'),
      ...resources.filter((r) => r.Type === 'AWS::SecretsManager::Secret'),
    ])
      expect(deploy.replace(/\s+/g, ' ')).toContain(`"${described(resource).split(' (')[0]}`);
  });

  it('the routes without IAM auth are the webhook route and the calendar push routes it counts', () => {
    const open = resources
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties?.AuthorizationType === 'NONE')
      .map((r) => String(r.Properties?.RouteKey));
    const push = open.filter((route) => route.startsWith('POST /calendars/push/'));
    expect(open.filter((route) => !push.includes(route))).toEqual(['POST /webhooks']);
    const stated = deploy.match(/only other routes without IAM auth are the\s+(\d+) calendar push\s+routes/);
    expect(Number(stated?.[1])).toBe(push.length);
  });
});

describe('figures from the capacity model at 2,000 aligned meetings, on the reviewed profile', () => {
  // capacity/profile.json is what test/integration/capacity.test.ts measures on the real code.
  const profile = JSON.parse(readFileSync(join(ROOT, 'capacity/profile.json'), 'utf8')) as MeasuredProfile;
  const report = capacityReport({
    meetings: 2000,
    aligned: true,
    utterancesPerHour: DEFAULT_UTTERANCES_PER_HOUR,
    config: parseConfig({ ...cdkJsonContext(), ...TEST_CONFIG_INPUT }),
    limits: limitsOf(sharedTemplate().toJSON() as Parameters<typeof limitsOf>[0]),
    profile,
    assumptions: DEFAULT_ASSUMPTIONS,
  });
  const share = (name: string) => {
    const line = report.costPerMeetingHour.find((l) => l.service.startsWith(name));
    return line === undefined ? Number.NaN : Math.round((line.dollars / report.totalPerMeetingHour) * 100);
  };

  it.each([
    ['README.md', README],
    ['docs/capacity.md', CAPACITY],
  ])('%s: the cost of a meeting-hour and its shares by service', (_, text) => {
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain(`a meeting-hour costs about $${report.totalPerMeetingHour.toFixed(4)} without storage`);
    const shares = flat.match(/without storage \(([^)]*)\)/)?.[1] ?? '';
    const stated = [...shares.matchAll(/([A-Za-z0-9 ]+?) (\d+) ?%/g)].map((m) => [m[1]?.trim() ?? '', Number(m[2])]);
    expect(stated.length).toBeGreaterThanOrEqual(5);
    // Within a point: the shared template is another region's than npm run capacity's, and a share
    // on a rounding boundary (22.5 %) may round either way between the two.
    for (const [name, percent] of stated)
      expect(Math.abs(Number(percent) - share(String(name))), String(name)).toBeLessThanOrEqual(1);
  });

  it("docs/capacity.md's narrowest limits", () => {
    const headroom = (prefix: string) => {
      const check = report.checks.find((c) => c.limit.startsWith(prefix));
      return check === undefined ? '' : (check.capacity / check.demand).toFixed(1);
    };
    expect(CAPACITY.replace(/\s+/g, ' ')).toContain(
      `the events consumer at ${headroom('events consumer')}× and the launch function at ${headroom('launch function')}×`,
    );
  });
});

describe('figures from the calendar load model', () => {
  const report = calendarReport(parseConfig({ ...cdkJsonContext(), ...TEST_CONFIG_INPUT }));
  const [google, microsoft] = report.loads;
  const hundreds = (n: number) => thousands(Math.round(n / 100) * 100);
  const text = README.replace(/\s+/g, ' ');

  it("the README's provider quota paragraph", () => {
    if (google === undefined || microsoft === undefined) throw new Error('the model has no Google or Microsoft load');
    const googleShare = Math.round((google.peakPerMinute / PROVIDER_QUOTAS.google.perMinutePerProject) * 100);
    for (const phrase of [
      `Google receives about ${hundreds(google.perHour.total)} requests an hour (${thousands(google.perHour.polling)} listings, ${thousands(google.perHour.tokens)} tokens,`,
      `at most ${thousands(google.peakPerMinute)} a minute at the consumer's peak: ${googleShare} % of the Calendar API's ${thousands(PROVIDER_QUOTAS.google.perMinutePerProject)} per minute`,
      `a user's ${Math.round(google.perUserPerHour)} an hour is far from ${PROVIDER_QUOTAS.google.perMinutePerUser} a minute per user`,
      `Microsoft receives about ${hundreds(microsoft.perHour.total)} an hour: ${Math.round(microsoft.perUserPerHour)} per mailbox an hour`,
      `and ${microsoft.perHour.tokens} tokens an hour for the whole tenant`,
      `on AWS it is about $${Math.round(report.totalPerMonth)} a month`,
    ])
      expect(text).toContain(phrase);
  });

  it("docs/capacity.md's calendar paragraph", () => {
    if (google === undefined || microsoft === undefined) throw new Error('the model has no Google or Microsoft load');
    const capacity = CAPACITY.replace(/\s+/g, ' ');
    const whole = (n: number) => thousands(Math.round(n));
    for (const phrase of [
      `Google receives ${whole(google.perHour.total)} requests an hour (${whole(google.perHour.polling)} listings, ${whole(google.perHour.push)} push-triggered syncs, ${whole(google.perHour.tokens)} tokens, ${whole(google.perHour.renewals)} channel renewals, ${whole(google.perHour.groups)} group reads), at most ${whole(google.peakPerMinute)} a minute`,
      `Microsoft ${whole(microsoft.perHour.total)} (${whole(microsoft.perHour.tokens)} tokens an hour`,
      `AWS cost: about $${Math.round(report.totalPerMonth)} a month`,
      ...report.costPerMonth.map((line) => `${line.service.split(' (')[0]} $${line.dollars.toFixed(2)}`),
    ])
      expect(capacity).toContain(phrase);
  });
});

describe("the lake's figures in the README, from the lake model on the reviewed lake profile", () => {
  const profile = JSON.parse(readFileSync(join(ROOT, 'capacity/lake-profile.json'), 'utf8')) as LakeProfile;
  const lake = lakeReport(lakeAssumptionsFor(parseConfig({ ...cdkJsonContext(), ...TEST_CONFIG_INPUT })), profile);
  const text = README.replace(/\s+/g, ' ');
  const GiB = 1024 ** 3;
  const [search, , talkTime, perDay] = lake.queries;

  it('what each of the three questions reads and costs', () => {
    if (search === undefined || talkTime === undefined || perDay === undefined)
      throw new Error('the model asks fewer questions');
    expect(text).toContain(
      `of ${lake.assumptions.searchDays} days: about ${(search.bytes / GiB).toFixed(1)} GiB, $${search.dollars.toFixed(2)}`,
    );
    expect(text).toContain(`about ${(talkTime.bytes / GiB).toFixed(1)} GiB, $${talkTime.dollars.toFixed(3)}`);
    expect(text).toContain(`${(perDay.bytes / 1024 ** 2).toFixed(1)} MiB a year ($${perDay.dollars.toFixed(4)})`);
  });

  it("what the lake adds to S3, and the workgroup's cutoff", () => {
    const dollars = lake.costPerMonth.reduce((sum, line) => sum + line.dollars, 0);
    expect(text).toContain(
      `about ${(lake.bytesPerMonth / GiB).toFixed(1)} GiB of S3 a month at ${thousands(lake.assumptions.meetingsPerDay)} meetings a day (${Math.round(lake.bytesAfter / GiB)} GiB after a year, under $${Math.ceil(dollars)} a month`,
    );
    expect(text).toContain(`(${lake.cutoff.bytes / GiB} GiB, about $${lake.cutoff.dollars.toFixed(2)})`);
  });
});

describe("figures from the load tool's workload", () => {
  const perMeeting = meetingWebhookPayloads('bot_figures', LOAD_DEFAULTS.utterances, 0);
  const sent =
    LOAD_DEFAULTS.meetings * (perMeeting.start.length + perMeeting.transcript.length + perMeeting.end.length);
  const again = Array.from({ length: sent }, (_, i) => i).filter(isRedeliveredInLoad).length;

  it('what npm run load sends by default, in the README and docs/capacity.md', () => {
    expect(README).toContain(`npm run load        # ${thousands(sent)} webhooks and ${thousands(again)} repeats`);
    expect(CAPACITY).toContain(`(${thousands(sent)} webhooks and ${thousands(again)} redeliveries)`);
  });
});

describe('docs/cli.md lists what the CLI and the MCP server have', () => {
  it('every CLI command, and no command the CLI lacks', () => {
    const block = CLI_DOC.slice(CLI_DOC.indexOf('```\n') + 4, CLI_DOC.indexOf('\n```', CLI_DOC.indexOf('```\n')));
    const shown = block
      .split('\n')
      .flatMap((line) => line.split(/\s+#/)[0]?.split(' | ') ?? [])
      .map((usage) => usage.trim())
      .filter((usage) => usage !== '');
    const named = COMMANDS.map((command) => command.words.join(' '));
    const startsWith = (usage: string, words: string) => usage === words || usage.startsWith(`${words} `);
    expect(named.filter((words) => !shown.some((usage) => startsWith(usage, words)))).toEqual([]);
    expect(shown.filter((usage) => !named.some((words) => startsWith(usage, words)))).toEqual([]);
  });

  it('every MCP tool the server registers with the lake, and no other', async () => {
    const unused = () => Promise.reject(new Error('not read: only the tool list is'));
    const reader: MeetingReader = {
      listDay: unused,
      meeting: unused,
      transcript: unused,
      participants: unused,
      recording: unused,
    };
    // Registering the lake's tools reads nothing of it.
    const lake = {} as MeetingLake;
    const client = new Client({ name: 'doc-figures', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMeetingServer(reader, { lake }).connect(serverSide);
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      const mcpSection = CLI_DOC.slice(CLI_DOC.indexOf('## MCP server'));
      const documented = [...mcpSection.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
      expect(documented.sort()).toEqual(tools.map((tool) => tool.name).sort());
    } finally {
      await client.close();
    }
  });
});
