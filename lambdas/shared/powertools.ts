/** One Powertools logger and metrics instance per function, the core's metric sink over them, and the handler wrapper. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE, type MetricDefinition, type MetricSink, type Telemetry } from '../core/telemetry';

/** A metric sink that holds an invocation's points until `flush` writes them. */
export interface InvocationMetricSink extends MetricSink {
  /** Writes the points held: one EMF document per dimension set (and none when there are none). */
  flush(): void;
}

/**
 * Points without dimensions go into the function's one document; points with
 * dimensions are grouped by their dimension values, one document per group, since
 * an EMF document carries one value per dimension key (a batch of ten transcript
 * events is one document, not ten). Each point stays a value of its own in the
 * document's array, so Sum and SampleCount read as if each were sent alone.
 */
export function powertoolsMetricSink(metrics: Metrics): InvocationMetricSink {
  const groups = new Map<string, { dimensions: Record<string, string>; points: Array<[MetricDefinition, number]> }>();
  return {
    emit(metric, value, ...dimensions) {
      const values = dimensions[0];
      if (values === undefined || metric.dimensions.length === 0) {
        metrics.addMetric(metric.name, metric.unit, value);
        return;
      }
      const key = JSON.stringify(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
      const group = groups.get(key) ?? { dimensions: { ...values }, points: [] };
      group.points.push([metric, value]);
      groups.set(key, group);
    },
    flush() {
      try {
        if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
        for (const { dimensions, points } of groups.values()) {
          for (const [metric, value] of points) {
            // Publishing clears the dimensions: set at each group's start, and again after Powertools
            // published by itself (a metric reached 100 values), so no point goes out without them.
            if (!metrics.hasStoredMetrics()) {
              for (const [name, dimension] of Object.entries(dimensions)) metrics.addDimension(name, dimension);
            }
            metrics.addMetric(metric.name, metric.unit, value);
          }
          if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
        }
      } finally {
        groups.clear();
      }
    },
  };
}

export interface PowertoolsTelemetry extends Telemetry {
  metrics: InvocationMetricSink;
  logger: Logger;
  powertoolsMetrics: Metrics;
}

/** The telemetry one function uses; `serviceName` defaults to POWERTOOLS_SERVICE_NAME, as in Lambda. */
export function createTelemetry(serviceName?: string): PowertoolsTelemetry {
  const logger = new Logger(serviceName === undefined ? {} : { serviceName });
  const powertoolsMetrics = new Metrics({
    namespace: METRICS_NAMESPACE,
    ...(serviceName !== undefined && { serviceName }),
  });
  return { log: logger, metrics: powertoolsMetricSink(powertoolsMetrics), logger, powertoolsMetrics };
}

const shared = createTelemetry();
export const logger = shared.logger;
export const telemetry: Telemetry = shared;

/**
 * Wraps a handler the same way for every function: each log line carries the
 * invocation's request id and function name, and the invocation's metrics are
 * published when it ends, even when it throws (an empty set publishes nothing,
 * and logs no warning).
 */
export function withPowertools<Event, Result>(
  handle: (event: Event) => Promise<Result>,
  tools: Pick<PowertoolsTelemetry, 'logger' | 'metrics'> = shared,
): (event: Event, context: Context) => Promise<Result> {
  return async (event, context) => {
    tools.logger.addContext(context);
    try {
      return await handle(event);
    } finally {
      tools.metrics.flush();
    }
  };
}
