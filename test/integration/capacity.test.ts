/**
 * The capacity tool on the real code: what each webhook costs is measured by
 * running the ingress and the consumer against the emulators, and must equal the
 * reviewed profile (capacity/profile.json). A change on the hot path that adds a
 * write, a read, a request or a log line fails here until the profile is written
 * again (`npm run capacity -- --write-profile capacity/profile.json`) and its cost
 * is looked at; the shipped defaults must hold 2,000 aligned meetings within
 * $0.003 per meeting-hour.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { configFor, type DeployedLimits, deployedLimits } from '../../capacity/deployed';
import { type MeasuredProfile, measureWebhookCosts } from '../../capacity/measure';
import { capacityReport, DEFAULT_ASSUMPTIONS } from '../../capacity/model';
import { formatReport } from '../../capacity/report';
import { DEFAULT_UTTERANCES_PER_HOUR, WEBHOOK_KINDS } from '../../capacity/workload';
import { SERVICES } from '../../lambdas/core/telemetry';

const reviewed = JSON.parse(
  readFileSync(new URL('../../capacity/profile.json', import.meta.url), 'utf8'),
) as MeasuredProfile;
const config = configFor({});
let limits: DeployedLimits;
let measured: MeasuredProfile;

beforeAll(async () => {
  limits = deployedLimits(config);
  measured = await measureWebhookCosts({
    batchSize: limits.functions[SERVICES.processEvents]?.eventSource?.batchSize ?? 10,
    logLevel: String((config as Record<string, unknown>).logLevel ?? 'INFO'),
  });
}, 180_000);

const report = (meetings: number, profile = measured) =>
  capacityReport({
    meetings,
    aligned: true,
    utterancesPerHour: DEFAULT_UTTERANCES_PER_HOUR,
    config,
    limits,
    profile,
    assumptions: DEFAULT_ASSUMPTIONS,
  });

describe('capacity, measured on the real code', () => {
  it.each(WEBHOOK_KINDS)('a %s costs what the reviewed profile says: requests, units and log lines', (kind) => {
    const now = measured.kinds[kind];
    const then = reviewed.kinds[kind];
    expect({
      dynamo: now.dynamo,
      sqsRequests: now.sqsRequests,
      s3Requests: now.s3Requests,
      consumerInvocations: now.consumerInvocations,
      ingressLogLines: now.ingressLogs.lines,
      ingressEmf: now.ingressLogs.emfDocuments,
      consumerLogLines: now.consumerLogs.lines,
      consumerEmf: now.consumerLogs.emfDocuments,
    }).toEqual({
      dynamo: then.dynamo,
      sqsRequests: then.sqsRequests,
      s3Requests: then.s3Requests,
      consumerInvocations: then.consumerInvocations,
      ingressLogLines: then.ingressLogs.lines,
      ingressEmf: then.ingressLogs.emfDocuments,
      consumerLogLines: then.consumerLogs.lines,
      consumerEmf: then.consumerLogs.emfDocuments,
    });
    // Bytes vary a little with ids and times; a new field on every line does not.
    for (const logs of ['ingressLogs', 'consumerLogs'] as const)
      expect(now[logs].bytes + now[logs].emfBytes).toBeLessThanOrEqual(
        (then[logs].bytes + then[logs].emfBytes) * 1.1 + 8,
      );
  });

  it('finds no index partition that meetings share without shards', () => {
    expect(measured.sharedIndexPartitions.every((p) => p.partitions > 1)).toBe(true);
    expect(measured.sharedIndexPartitions.map((p) => `${p.index} ${p.template}`).sort()).toEqual(
      reviewed.sharedIndexPartitions.map((p) => `${p.index} ${p.template}`).sort(),
    );
  });

  it('holds 2,000 meetings aligned on the hour with the shipped defaults, within $0.003 per meeting-hour', () => {
    const at2000 = report(2000);
    expect(at2000.checks.filter((c) => !c.holds)).toEqual([]);
    expect(at2000.holds).toBe(true);
    expect(at2000.totalPerMeetingHour).toBeLessThanOrEqual(0.003);
    expect(formatReport(at2000).at(-1)).toBe('the configuration holds this load.');
  });

  it('does not hold 20,000 with the defaults, and says which keys and quotas to raise', () => {
    const at20000 = report(20_000);
    expect(at20000.holds).toBe(false);
    const failing = at20000.checks.filter((c) => !c.holds);
    expect(failing.map((c) => c.limit)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^HTTP API throttle/), expect.stringMatching(/^account Lambda/)]),
    );
    expect(failing.every((c) => (c.fix ?? '').length > 0)).toBe(true);
    expect(formatReport(at20000).join('\n')).toMatch(/-c webhookRateLimit=\d+/);
  });

  it('would notice one more write per transcript line: the cost goes up by its units', () => {
    const heavier = structuredClone(measured);
    heavier.kinds['transcript.update'].dynamo.writeUnits += 1;
    expect(report(2000, heavier).totalPerMeetingHour).toBeGreaterThan(report(2000).totalPerMeetingHour);
  });
});
