/**
 * POST /webhooks: the route on the stack's HTTP API in front of the ingress function, which verifies
 * each webhook and puts it on the events queue (with a DLQ), claim-checking large
 * bodies into the payload bucket.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  QUARANTINE_BOTS_PREFIX,
  QUARANTINE_PREFIX,
  QUARANTINE_UNBOUND_PREFIX,
  type QuarantineLimits,
} from '../lambdas/core/ingress/quarantine';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { CLAIM_CHECK_PREFIX, SQS_MAX_MESSAGE_BYTES } from '../lambdas/core/queue/queued-event';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import { WEBHOOK_RESPONSE_DEADLINE_MS } from '../lambdas/core/upstream/webhook-contract';
import type { IngressEnvironment } from '../lambdas/ingress/environment';
import { S3_PAYLOAD_PUT_MODULE } from '../lambdas/shared/s3-payloads-on-demand';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantClaimChecks, grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, wildcardResourceId } from './nag';
import { dataBucket, encryptedQueue } from './secure-defaults';

export const WEBHOOK_PATH = '/webhooks';

/** Where the ingress files refused bodies: per bot, or unbound. */
const QUARANTINE_WRITE_PREFIXES = [QUARANTINE_BOTS_PREFIX, QUARANTINE_UNBOUND_PREFIX];

export interface WebhookIngressProps {
  /** Where the payload bucket's server access logs go. */
  accessLogs: IBucket;
  signingSecret: ISecret;
  maxBodyBytes: number;
  secretCacheSeconds: number;
  /** How long claim-checked bodies are kept; longer than any message can live. */
  payloadRetention: Duration;
  /** How long bodies refused for their signature are kept for a re-drive. */
  quarantineRetention: Duration;
  /** What all ingress instances together keep of refused bodies (the counters live in the table). */
  quarantineLimits: Omit<QuarantineLimits, 'maxBodyBytes'>;
  functions: FunctionSettings;
  /** Concurrency held for the ingress function (and its ceiling): webhooks must never wait behind other work. */
  reservedConcurrency: number;
  /** Timeout of the function that will consume the events queue; sets the visibility timeout. */
  consumerTimeout: Duration;
  /** The stack's HTTP API, where the webhook route goes. */
  api: PipelineHttpApi;
  removalPolicy: RemovalPolicy;
  /** Where the ingress records each event on its first acceptance: the ledger (EVENTS# items only). */
  table: ITableV2;
  dedupRetentionDays: number;
}

export class WebhookIngress extends Construct {
  readonly function: PipelineFunction;
  readonly eventsQueue: Queue;
  readonly eventsDeadLetterQueue: Queue;
  readonly payloadBucket: Bucket;
  /** The URL to register with the meeting assistant service. */
  readonly webhookUrl: string;

  constructor(scope: Construct, id: string, props: WebhookIngressProps) {
    super(scope, id);

    this.payloadBucket = dataBucket(this, 'PayloadBucket', {
      removalPolicy: props.removalPolicy,
      accessLogs: props.accessLogs,
      accessLogsPrefix: 'payloads/',
      lifecycleRules: [
        {
          id: 'expire-claim-checks',
          prefix: CLAIM_CHECK_PREFIX,
          expiration: props.payloadRetention,
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          id: 'expire-quarantine',
          prefix: QUARANTINE_PREFIX,
          expiration: props.quarantineRetention,
          noncurrentVersionExpiration: Duration.days(1),
        },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    this.eventsDeadLetterQueue = encryptedQueue(this, 'EventsDeadLetterQueue');
    this.eventsQueue = encryptedQueue(this, 'EventsQueue', {
      maxMessageSizeBytes: SQS_MAX_MESSAGE_BYTES,
      // AWS's guidance for Lambda consumers: six times the function timeout.
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.eventsDeadLetterQueue, maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount },
    });

    const environment: { [K in keyof IngressEnvironment]: string } = {
      EVENTS_QUEUE_URL: this.eventsQueue.queueUrl,
      PAYLOAD_BUCKET: this.payloadBucket.bucketName,
      SIGNING_SECRET_ID: props.signingSecret.secretName,
      MAX_BODY_BYTES: String(props.maxBodyBytes),
      INLINE_MESSAGE_LIMIT_BYTES: String(SQS_MAX_MESSAGE_BYTES),
      SECRET_CACHE_SECONDS: String(props.secretCacheSeconds),
      TABLE_NAME: props.table.tableName,
      DEDUP_RETENTION_DAYS: String(props.dedupRetentionDays),
      QUARANTINE_MAX_PER_MINUTE: String(props.quarantineLimits.maxEntriesPerMinute),
      QUARANTINE_MAX_BYTES_PER_MINUTE: String(props.quarantineLimits.maxBytesPerMinute),
      QUARANTINE_MAX_PER_BOT_PER_DAY: String(props.quarantineLimits.maxEntriesPerBotPerDay),
    };
    this.function = new PipelineFunction(this, 'IngressFunction', {
      entry: 'lambdas/ingress/handler.ts',
      description: 'Verifies signed meeting assistant webhooks and queues them',
      serviceName: SERVICES.ingress,
      // The service gives up on a delivery after its deadline; answer well inside it.
      timeout: Duration.millis(WEBHOOK_RESPONSE_DEADLINE_MS - 2_000),
      // I/O-bound (a table put and an SQS send); 512 MB still checks a 1 MiB hostile body well inside the timeout.
      memorySize: 512,
      settings: props.functions,
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment,
      onDemandModules: [S3_PAYLOAD_PUT_MODULE],
      failureHandling:
        'Invoked synchronously by API Gateway: a failure is a 5xx to the service, which retries the delivery.',
    });
    this.eventsQueue.grantSendMessages(this.function);
    grantClaimChecks(this.function, this.payloadBucket, 'put');
    grantTableItems(this.function, props.table);
    // The quarantine's counters (global per minute, per bot per day): updates of their items only.
    grantTableItems(this.function, props.table, ['dynamodb:UpdateItem'], ['quarantineCap']);
    // Bodies refused for their signature, kept for a re-drive after a secret rotation: filed under
    // the bot they name or with the unbound ones, never in the first layout's day folders.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: QUARANTINE_WRITE_PREFIXES.map((prefix) => this.payloadBucket.arnForObjects(`${prefix}*`)),
      }),
    );
    props.signingSecret.grantRead(this.function);

    const [webhookRoute] = props.api.addRoutes({
      path: WEBHOOK_PATH,
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('IngressIntegration', this.function),
    });
    acknowledge(
      required(webhookRoute, 'the webhook route'),
      'AwsSolutions-APIG4',
      'The meeting assistant service cannot sign requests for IAM; every webhook is authenticated by its HMAC-SHA256 signature, checked before anything is queued.',
    );
    for (const prefix of QUARANTINE_WRITE_PREFIXES) {
      acknowledge(
        required(this.function.role, 'the ingress function role'),
        wildcardResourceId(this.payloadBucket, `/${prefix}*`),
        `PutObject under ${prefix} only: each refused body gets its own content-addressed key.`,
      );
    }
    acknowledge(
      this.eventsDeadLetterQueue,
      'Serverless-SQSRedrivePolicy',
      'This is the dead-letter queue; its messages are re-driven by hand once the cause is fixed (runbook: docs/operating.md).',
    );
    this.webhookUrl = `${props.api.url}${WEBHOOK_PATH}`;
  }
}
