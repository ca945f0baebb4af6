/**
 * The stack's one HTTP API: its default stage (throttling, access log) and the
 * 429 count from that log. Each capability adds its own routes (webhooks,
 * schedules, the read API) through `addRoutes`.
 *
 * The API, its stage, its log and the routes that shipped before this construct
 * existed keep their logical IDs: a new ID would replace the API (a new webhook
 * URL to register with the service), and a replaced route is created before the
 * old one is deleted, which the API refuses for the same route key.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type AddRoutesOptions,
  type CfnApi,
  type CfnRoute,
  type CfnStage,
  HttpApi,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { type CfnLogGroup, type CfnMetricFilter, FilterPattern, LogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../lambdas/core/telemetry';
import type { FunctionSettings } from './function';

/**
 * Requests the HTTP API refused with 429 (throttled), counted from its access log:
 * HTTP APIs publish no metric of their own for 429s (the 4xx one mixes them with
 * refused signatures), and the service gives up on a webhook after ~3 attempts.
 */
export const THROTTLED_REQUESTS_METRIC = { namespace: METRICS_NAMESPACE, name: 'ApiRequestsThrottled' } as const;

/** Logical IDs the API's resources had when the webhook ingress owned them; deployed stacks hold these. */
export const SHIPPED_LOGICAL_IDS = {
  api: 'WebhookIngressApi8A044B88',
  stage: 'WebhookIngressDefaultStage305EEFA3',
  accessLogs: 'WebhookIngressAccessLogs502F1286',
  throttledRequests: 'WebhookIngressThrottledRequestsD3EF8C1C',
  routes: {
    'POST /webhooks': 'WebhookIngressApiPOSTwebhooks62B6FDE2',
    'PUT /schedules/{id}': 'WebhookIngressApiPUTschedulesid5409C5FE',
    'GET /schedules/{id}': 'WebhookIngressApiGETschedulesid010F2FC5',
    'DELETE /schedules/{id}': 'WebhookIngressApiDELETEschedulesidA587B7CC',
  } as Record<string, string>,
} as const;

export interface PipelineHttpApiProps {
  throttle: { rateLimit: number; burstLimit: number };
  functions: FunctionSettings;
}

export class PipelineHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The stage's base URL, without a trailing slash. */
  readonly url: string;
  /** Requests answered 429, per 5 minutes (THROTTLED_REQUESTS_METRIC). */
  readonly throttledRequests: Metric;

  constructor(scope: Construct, id: string, props: PipelineHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      description: 'Meeting pipeline: webhooks, schedules and the read API',
      createDefaultStage: false,
    });
    (this.api.node.defaultChild as CfnApi).overrideLogicalId(SHIPPED_LOGICAL_IDS.api);

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.functions.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    (accessLogs.node.defaultChild as CfnLogGroup).overrideLogicalId(SHIPPED_LOGICAL_IDS.accessLogs);
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            error: '$context.error.message',
            caller: '$context.identity.userArn',
          }),
        ),
      },
    });
    (this.stage.node.defaultChild as CfnStage).overrideLogicalId(SHIPPED_LOGICAL_IDS.stage);
    this.url = this.stage.url.replace(/\/$/, '');

    // Reads the `status` field of the access-log format above (a string there, as the format quotes it).
    const throttled = new MetricFilter(this, 'ThrottledRequests', {
      logGroup: accessLogs,
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: THROTTLED_REQUESTS_METRIC.namespace,
      metricName: THROTTLED_REQUESTS_METRIC.name,
      metricValue: '1',
    });
    (throttled.node.defaultChild as CfnMetricFilter).overrideLogicalId(SHIPPED_LOGICAL_IDS.throttledRequests);
    this.throttledRequests = throttled.metric({ statistic: 'Sum', period: Duration.minutes(5) });
  }

  /** Adds a capability's routes; a route that shipped before keeps its logical ID. */
  addRoutes(options: AddRoutesOptions): HttpRoute[] {
    const routes = this.api.addRoutes(options);
    for (const route of routes) {
      const resource = route.node.defaultChild as CfnRoute;
      const shipped = SHIPPED_LOGICAL_IDS.routes[resource.routeKey];
      if (shipped !== undefined) resource.overrideLogicalId(shipped);
    }
    return routes;
  }
}
