/** One Powertools logger and metrics instance per function, and the core's metric sink over them. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type MetricSink, type Telemetry } from '../core/telemetry';

export const logger = new Logger();
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE });

/** Points with dimensions go out at once as a single metric so they cannot leak onto other points. */
export const metricSink: MetricSink = {
  record(name, unit, value, dimensions) {
    if (dimensions === undefined) {
      metrics.addMetric(name, unit, value);
      return;
    }
    const single = metrics.singleMetric();
    single.addDimensions(dimensions);
    single.addMetric(name, unit, value);
  },
};

export const telemetry: Telemetry = { log: logger, metrics: metricSink };
