/**
 * What the stack costs a month with no meeting at all: everything billed by the month that the
 * template creates (alarm metrics, dashboards, KMS keys, secrets, the operator's two included)
 * and what runs on a timer. Counted from the template (deployed.ts), priced from prices.ts.
 */
import { METRICS } from '../lambdas/core/telemetry';
import { KNOWN_TRIGGERS } from '../lambdas/core/upstream/webhook-contract';
import type { PipelineConfig } from '../lib/config';
import type { DeployedLimits } from './deployed';
import { PRICES } from './prices';

export interface CostLine {
  service: string;
  dollars: number;
}

const MINUTES_A_MONTH = 30 * 24 * 60;

export function fixedMonthlyCost(limits: DeployedLimits, config: PipelineConfig): CostLine[] {
  const secrets = limits.secrets.operator + limits.secrets.stack;
  const reconcilerRuns = MINUTES_A_MONTH / config.reconcileEveryMinutes;
  return [
    {
      service: `CloudWatch alarms (${limits.alarms}, ${limits.alarmMetrics} metrics)`,
      dollars: limits.alarmMetrics * PRICES.cloudwatchAlarmPerMonth,
    },
    { service: `dashboards (${limits.dashboards})`, dollars: limits.dashboards * PRICES.cloudwatchDashboardPerMonth },
    {
      service: `custom metrics (~${customMetricCount()})`,
      dollars: customMetricCount() * PRICES.cloudwatchCustomMetricPerMonth,
    },
    {
      service: `Secrets Manager (${limits.secrets.operator} yours, ${limits.secrets.stack} the stack's)`,
      dollars: secrets * PRICES.secretsManagerPerSecretMonth,
    },
    { service: `KMS keys (${limits.kmsKeys})`, dollars: limits.kmsKeys * PRICES.kmsKeyPerMonth },
    {
      // Event sources long-poll their queues even when idle (about 5 pollers, 3 receives a minute each).
      service: 'SQS polling of idle queues',
      dollars: (2 * 5 * 3 * MINUTES_A_MONTH * PRICES.sqsStandardPerMillionRequests) / 1e6,
    },
    {
      // A quarter of a GB-second a run.
      service: 'reconciler runs',
      dollars:
        (reconcilerRuns * PRICES.lambdaPerMillionRequests) / 1e6 + reconcilerRuns * 0.25 * PRICES.lambdaPerGbSecondArm,
    },
  ];
}

/** Metric names times the dimension values they take (per service, which Powertools adds). */
function customMetricCount(): number {
  const cardinality: Record<string, number> = { trigger: KNOWN_TRIGGERS.length, reason: 3, provider: 2 };
  return Object.values(METRICS).reduce(
    (sum, metric) => sum + metric.dimensions.reduce((n, d) => n * (cardinality[d] ?? 1), 1),
    0,
  );
}
