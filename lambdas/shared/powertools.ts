/** One Powertools logger and metrics instance per function, the core's metric sink over them, and the handler wrapper. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE, type MetricSink, type Telemetry } from '../core/telemetry';

/** Points with dimensions go out at once as a single metric so they cannot leak onto other points. */
export function powertoolsMetricSink(metrics: Metrics): MetricSink {
  return {
    emit(metric, value, ...dimensions) {
      const values = dimensions[0];
      if (values === undefined || metric.dimensions.length === 0) {
        metrics.addMetric(metric.name, metric.unit, value);
        return;
      }
      const single = metrics.singleMetric();
      single.addDimensions(values);
      single.addMetric(metric.name, metric.unit, value);
    },
  };
}

export interface PowertoolsTelemetry extends Telemetry {
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
export const metrics = shared.powertoolsMetrics;
export const telemetry: Telemetry = shared;

/**
 * Wraps a handler the same way for every function: each log line carries the
 * invocation's request id and function name, and the invocation's metrics are
 * published when it ends, even when it throws (an empty set publishes nothing).
 */
export function withPowertools<Event, Result>(
  handle: (event: Event) => Promise<Result>,
  tools: Pick<PowertoolsTelemetry, 'logger' | 'powertoolsMetrics'> = shared,
): (event: Event, context: Context) => Promise<Result> {
  return async (event, context) => {
    tools.logger.addContext(context);
    try {
      return await handle(event);
    } finally {
      if (tools.powertoolsMetrics.hasStoredMetrics()) tools.powertoolsMetrics.publishStoredMetrics();
    }
  };
}
