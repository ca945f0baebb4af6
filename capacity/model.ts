/**
 * The capacity and cost model: the measured cost of each webhook (measure.ts),
 * the limits the configuration deploys (deployed.ts) and the load model
 * (workload.ts) give every limit on the path its demand and headroom, what to
 * change where one does not hold, and the cost per meeting-hour by service.
 * Pure: the same inputs give the same report.
 */

import { SERVICES } from '../lambdas/core/telemetry';
import type { PipelineConfig } from '../lib/config';
import type { DeployedFunction, DeployedLimits } from './deployed';
import { type CostLine, fixedMonthlyCost } from './fixed-cost';
import type { MeasuredProfile } from './measure';

export type { CostLine } from './fixed-cost';

import { PRICES } from './prices';
import {
  ALIGNED_WINDOW_SECONDS,
  meetingDomainEvents,
  meetingWebhooks,
  WEBHOOK_KINDS,
  type WebhookRates,
  webhookRates,
} from './workload';

/** What cannot be measured on this machine: durations in AWS and AWS's own quotas. Each can be set on the command line. */
export interface Assumptions {
  /** Ingress duration in AWS, p99 and average (verify, one DynamoDB put, one SQS send). */
  ingressP99Ms: number;
  ingressAverageMs: number;
  /** One consumer invocation (a batch) in AWS, on average. */
  batchMs: number;
  /** Recording size per meeting-hour, and the archive's copy speed. */
  recordingMbPerHour: number;
  archiveMbPerSecond: number;
  /** The account's Lambda concurrency quota (default 1,000) and the unreserved share AWS keeps (100). */
  accountConcurrency: number;
  /** Share of meetings per hour whose state webhooks the service gave up on: the reconciler must check them. */
  reconcileShare: number;
  /** The regional HTTP API quota shared by every API in the account (requests/s). */
  accountApiRate: number;
  /** DynamoDB: an on-demand table's default throughput quota, and one partition's write ceiling (units/s). */
  tableWriteQuota: number;
  partitionWriteLimit: number;
  /** Standard Step Functions state transitions per second (refill rate outside the largest regions). */
  stateTransitionsPerSecond: number;
  /** Lambda's START/END/REPORT lines per invocation. */
  platformLogBytesPerInvocation: number;
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  ingressP99Ms: 120,
  ingressAverageMs: 45,
  batchMs: 250,
  recordingMbPerHour: 300,
  archiveMbPerSecond: 60,
  accountConcurrency: 1000,
  reconcileShare: 0.05,
  accountApiRate: 10_000,
  tableWriteQuota: 40_000,
  partitionWriteLimit: 1_000,
  stateTransitionsPerSecond: 800,
  platformLogBytesPerInvocation: 330,
};

export interface LimitCheck {
  limit: string;
  demand: number;
  capacity: number;
  unit: string;
  holds: boolean;
  /** What to change when it does not hold. */
  fix?: string;
}

export interface CapacityReport {
  meetings: number;
  aligned: boolean;
  rates: WebhookRates;
  checks: LimitCheck[];
  holds: boolean;
  costPerMeetingHour: CostLine[];
  totalPerMeetingHour: number;
  fixedPerMonth: CostLine[];
  totalFixedPerMonth: number;
  /** Write units per webhook by kind, index copies included. */
  writeUnitsByKind: Record<string, number>;
}

export interface CapacityInput {
  meetings: number;
  aligned: boolean;
  utterancesPerHour: number;
  config: PipelineConfig;
  limits: DeployedLimits;
  profile: MeasuredProfile;
  assumptions: Assumptions;
}

const fn = (limits: DeployedLimits, service: string): DeployedFunction => {
  const found = limits.functions[service];
  if (found === undefined) throw new Error(`the template has no ${service} function`);
  return found;
};

export function capacityReport(input: CapacityInput): CapacityReport {
  const { meetings, aligned, config, limits, profile, assumptions: a } = input;
  const perMeeting = meetingWebhooks(input.utterancesPerHour);
  const rates = webhookRates(meetings, aligned, input.utterancesPerHour);
  const peak = rates.peakPerSecond;
  const ingress = fn(limits, SERVICES.ingress);
  const consumer = fn(limits, SERVICES.processEvents);
  const archive = fn(limits, SERVICES.archive);
  const launch = fn(limits, SERVICES.launchBot);
  const checks: LimitCheck[] = [];
  const check = (c: Omit<LimitCheck, 'holds'>) => {
    const holds = c.demand <= c.capacity;
    checks.push({ ...c, holds, ...(holds ? { fix: undefined } : {}) });
  };

  // Per webhook, weighted by the meeting's mix.
  const mix = WEBHOOK_KINDS.map((kind) => ({ kind, count: perMeeting[kind], cost: profile.kinds[kind] }));
  const perWebhook = (pick: (cost: MeasuredProfile['kinds'][keyof MeasuredProfile['kinds']]) => number) =>
    mix.reduce((sum, { count, cost }) => sum + count * pick(cost), 0) / rates.perMeetingHour;
  const writeUnitsPerWebhook = perWebhook((c) => c.dynamo.writeUnits);

  check({
    limit: 'HTTP API throttle (webhookRateLimit)',
    demand: peak,
    capacity: limits.api.rateLimit,
    unit: 'webhooks/s',
    fix: `-c webhookRateLimit=${Math.ceil(peak * 1.5)} -c webhookBurstLimit=${Math.ceil(peak * 3)}`,
  });
  check({
    limit: 'HTTP API regional quota (all APIs of the account)',
    demand: peak,
    capacity: a.accountApiRate,
    unit: 'requests/s',
    fix: 'ask AWS Support to raise the API Gateway "Throttle rate" quota of the region',
  });
  const ingressNeeded = peak * (a.ingressP99Ms / 1000);
  check({
    limit: 'ingress concurrency (reserved)',
    demand: ingressNeeded,
    capacity: ingress.reserved ?? 0,
    unit: 'instances',
    fix: `-c ingressReservedConcurrency=${Math.ceil(ingressNeeded * 1.5)}`,
  });
  const batchSize = consumer.eventSource?.batchSize ?? profile.batchSize;
  const consumerMax = consumer.eventSource?.maxConcurrency ?? 1000;
  check({
    limit: 'events consumer throughput (eventConcurrency × batch)',
    demand: peak,
    capacity: (consumerMax * batchSize) / (a.batchMs / 1000),
    unit: 'events/s',
    fix: `-c eventConcurrency=${Math.ceil(((peak * a.batchMs) / 1000 / batchSize) * 1.5)}`,
  });
  // What the load needs of the account's pool, each function at the larger of its reservation and its demand.
  const consumerNeeded = (peak * a.batchMs) / 1000 / batchSize;
  const launchesPerSecond = aligned ? meetings / 300 : meetings / 3600;
  const jobSeconds = a.recordingMbPerHour / a.archiveMbPerSecond + 5;
  const archiveNeeded = Math.min(archive.eventSource?.maxConcurrency ?? 1000, (meetings * jobSeconds) / 3600);
  const pool =
    Math.max(ingress.reserved ?? 0, ingressNeeded) +
    Math.max(consumerNeeded, 2) +
    archiveNeeded +
    Math.max(launch.reserved ?? 0, launchesPerSecond * 1.5) +
    Object.values(limits.functions)
      .filter((f) => ![ingress, consumer, archive, launch].includes(f))
      .reduce((sum, f) => sum + (f.reserved ?? 1), 0);
  check({
    limit: 'account Lambda concurrency (what the functions need + 100 AWS keeps unreserved)',
    demand: pool + 100,
    capacity: a.accountConcurrency,
    unit: 'instances',
    fix: `raise the "Concurrent executions" quota to ${Math.ceil((pool + 100) * 1.2)}, then set -c accountConcurrency and --account-concurrency to it`,
  });
  const archiveSlots = archive.eventSource?.maxConcurrency ?? archive.reserved ?? 1000;
  check({
    limit: 'archive backlog after the hour (hours to drain; alarm at 2)',
    demand: aligned ? (meetings / archiveSlots) * (jobSeconds / 3600) : (meetings / 3600 / archiveSlots) * jobSeconds,
    capacity: 1,
    unit: 'hours',
    fix: `-c archiveConcurrency=${Math.ceil((meetings * jobSeconds) / 3600)}`,
  });
  check({
    limit: 'archive FIFO queue sends (300/s per action)',
    demand: aligned ? meetings / ALIGNED_WINDOW_SECONDS : meetings / 3600,
    capacity: 300,
    unit: 'messages/s',
    fix: 'enable high-throughput FIFO on the archive queue',
  });
  const tableUnits = peak * writeUnitsPerWebhook;
  check({
    limit: 'DynamoDB table write throughput (on-demand quota)',
    demand: tableUnits,
    capacity: a.tableWriteQuota,
    unit: 'write units/s',
    fix: 'raise the "Table-level write throughput limit" quota, and set warm throughput on the table before the first aligned hour',
  });
  for (const shared of profile.sharedIndexPartitions) {
    const window = aligned ? ALIGNED_WINDOW_SECONDS : 3600;
    check({
      limit: `index partition ${shared.index} ${shared.template} (${shared.partitions} of them)`,
      demand: (meetings * shared.unitsPerMeeting) / window / shared.partitions,
      capacity: a.partitionWriteLimit,
      unit: 'write units/s per partition',
      fix: 'shard this index key further (lambdas/core/store/table-layout.ts)',
    });
  }
  check({
    limit: 'launch function (reserved concurrency)',
    demand: launchesPerSecond * 1.5,
    capacity: launch.reserved ?? 1000,
    unit: 'instances',
    fix: `-c launchReservedConcurrency=${Math.ceil(launchesPerSecond * 3)}`,
  });
  check({
    limit: 'Step Functions state transitions',
    demand: launchesPerSecond * 4,
    capacity: a.stateTransitionsPerSecond,
    unit: 'transitions/s',
    fix: 'raise the Step Functions "StateTransition" quota',
  });
  const checksPerHour = (config.reconcileMaxMeetings * 60) / config.reconcileEveryMinutes;
  check({
    limit: 'reconciler checks (reconcileMaxMeetings per run)',
    demand: meetings * a.reconcileShare,
    capacity: checksPerHour,
    unit: 'meetings/hour',
    fix: `-c reconcileMaxMeetings=${Math.min(1000, Math.ceil(((meetings * a.reconcileShare * config.reconcileEveryMinutes) / 60) * 1.5))}`,
  });

  // Cost of one meeting-hour, storage excluded.
  const webhooks = rates.perMeetingHour;
  const consumerInvocations = perWebhook((c) => c.consumerInvocations) * webhooks;
  const gbSeconds = (f: DeployedFunction, invocations: number, ms: number) =>
    invocations * (ms / 1000) * (f.memoryMb / 1024);
  const lambdaCost = (invocations: number, seconds: number) =>
    (invocations * PRICES.lambdaPerMillionRequests) / 1e6 + seconds * PRICES.lambdaPerGbSecondArm;
  const archiveParts = Math.ceil(a.recordingMbPerHour / partMiB(archive));
  // The archive's table work grows with the meeting's lines (it reads them and writes the final transcript).
  const archiveScale = input.utterancesPerHour / profile.archive.utterances;
  const logBytes =
    perWebhook((c) => c.ingressLogs.bytes + c.ingressLogs.emfBytes + c.consumerLogs.bytes + c.consumerLogs.emfBytes) *
      webhooks +
    (webhooks + consumerInvocations) * a.platformLogBytesPerInvocation;
  const traced = (f: DeployedFunction, invocations: number) => (f.tracing ? invocations * 0.05 : 0);
  const costPerMeetingHour: CostLine[] = [
    { service: 'API Gateway (HTTP API)', dollars: (webhooks * PRICES.httpApiPerMillionRequests) / 1e6 },
    {
      service: 'Lambda',
      dollars:
        lambdaCost(webhooks, gbSeconds(ingress, webhooks, a.ingressAverageMs)) +
        lambdaCost(consumerInvocations, gbSeconds(consumer, consumerInvocations, a.batchMs)) +
        lambdaCost(1, gbSeconds(archive, 1, jobSeconds * 1000)),
    },
    {
      service: 'DynamoDB',
      dollars:
        ((webhooks * writeUnitsPerWebhook + archiveScale * profile.archive.dynamo.writeUnits) *
          PRICES.dynamoPerMillionWriteUnits) /
          1e6 +
        ((webhooks * perWebhook((c) => c.dynamo.readUnits) + archiveScale * profile.archive.dynamo.readUnits) *
          PRICES.dynamoPerMillionReadUnits) /
          1e6,
    },
    {
      service: 'SQS',
      // Plus the archive job's receive and delete on its FIFO queue (its send is the consumer's).
      dollars:
        (webhooks * perWebhook((c) => c.sqsRequests) * PRICES.sqsStandardPerMillionRequests) / 1e6 +
        (2 * PRICES.sqsFifoPerMillionRequests) / 1e6,
    },
    {
      service: 'S3 requests',
      dollars:
        ((webhooks * perWebhook((c) => c.s3Requests) + archiveParts + profile.archive.s3Requests) *
          PRICES.s3PutPer1000Requests) /
        1000,
    },
    {
      service: 'EventBridge (domain events)',
      dollars: (meetingDomainEvents(perMeeting) * PRICES.eventBridgePerMillionEvents) / 1e6,
    },
    { service: 'CloudWatch Logs', dollars: (logBytes / 1024 ** 3) * PRICES.cloudwatchLogsIngestPerGb },
    {
      service: 'X-Ray',
      dollars:
        ((traced(ingress, webhooks) + traced(consumer, consumerInvocations)) * PRICES.xrayPerMillionTracesRecorded) /
        1e6,
    },
  ];
  const fixedPerMonth = fixedMonthlyCost(limits, config);
  const sum = (lines: CostLine[]) => lines.reduce((total, line) => total + line.dollars, 0);
  return {
    meetings,
    aligned,
    rates,
    checks,
    holds: checks.every((c) => c.holds),
    costPerMeetingHour,
    totalPerMeetingHour: sum(costPerMeetingHour),
    fixedPerMonth,
    totalFixedPerMonth: sum(fixedPerMonth),
    writeUnitsByKind: Object.fromEntries(WEBHOOK_KINDS.map((kind) => [kind, profile.kinds[kind].dynamo.writeUnits])),
  };
}

/** The archive's upload part size, from its environment (8 MiB when not set). */
function partMiB(archive: DeployedFunction): number {
  const configured = Number(archive.environment.RECORDING_UPLOAD_PART_MIB);
  return Number.isFinite(configured) && configured > 0 ? configured : 8;
}
