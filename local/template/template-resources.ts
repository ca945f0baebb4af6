/**
 * The template's stateful resources made real on the local emulators (its table, every queue
 * with its dead-letter redrive, every bucket), and a physical id for every other resource a
 * function's environment can name (event buses, the state machine, keys, secrets, the HTTP
 * API). Each function's environment is then resolved from the template exactly as
 * CloudFormation would resolve it, and parsed by the handler's own schema by its caller.
 */
import { createHash } from 'node:crypto';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { required } from '../../lambdas/core/required';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../emulators/fauxqs';
import { type PhysicalIds, resolveTree, resolveValue } from './intrinsics';
import type { CfnResource, CfnTemplate, SynthesizedFunction } from './synthesized-app';

export interface TemplateResourceOptions {
  /** Prefixes every local name, so runs on one emulator keep apart (`dev` in local mode). */
  prefix: string;
  stackName: string;
  /**
   * Local mode retries in seconds, not the deployed minutes: every queue's visibility timeout
   * when given (the only queue attribute not taken from the template).
   */
  visibilityTimeoutSeconds?: number;
  /** Keep a table that exists (dynalite's data on disk, `--resume`). */
  reuseTable?: boolean;
}

/**
 * A logical id without the 8-hex-digit hash CDK appends, in lower case words, valid as a table,
 * queue and bucket name alike: `WebhookIngressEventsQueue0785EE9F` → `webhook-ingress-events-queue`.
 */
const shortName = (logicalId: string): string =>
  logicalId
    .replace(/[0-9A-F]{8}$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

/** A stable stand-in for what AWS would generate, from the logical id. */
const digest = (text: string, length: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/** The resources of a synthesized template on the local emulators. */
export class TemplateResources implements PhysicalIds {
  readonly pseudo: Record<string, string>;
  private readonly refs = new Map<string, string>();
  private readonly attributes = new Map<string, string>();

  private constructor(
    readonly template: CfnTemplate,
    private readonly options: TemplateResourceOptions,
  ) {
    this.pseudo = {
      'AWS::Region': LOCAL_REGION,
      'AWS::AccountId': LOCAL_ACCOUNT,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': options.stackName,
    };
  }

  /** Creates the template's table, queues and buckets; the rest are named. */
  static async create(
    template: CfnTemplate,
    clients: { dynamo: DynamoDBClient; sqs: SQSClient; s3: S3Client },
    options: TemplateResourceOptions,
  ): Promise<TemplateResources> {
    const resources = new TemplateResources(template, options);
    for (const [id, resource] of resources.tables()) await resources.createTable(clients.dynamo, id, resource);
    for (const [id, resource] of resources.queues()) await resources.createQueue(clients.sqs, id, resource);
    for (const [id, resource] of resources.byType('AWS::S3::Bucket'))
      await resources.createBucket(clients.s3, id, resource);
    resources.nameTheRest();
    return resources;
  }

  /**
   * Every resource named as `create` names it, with nothing created: what a test of the template
   * alone resolves environments with. Queue URLs take the form SQS gives them in AWS.
   */
  static named(template: CfnTemplate, options: TemplateResourceOptions): TemplateResources {
    const resources = new TemplateResources(template, options);
    for (const [id, resource] of resources.tables()) resources.setTable(id, resources.tableName(id, resource));
    for (const [id, resource] of resources.queues()) {
      const name = resources.queueName(id, resource);
      resources.setQueue(
        id,
        name,
        `https://sqs.${LOCAL_REGION}.amazonaws.com/${LOCAL_ACCOUNT}/${name}`,
        resources.arn('sqs', name),
      );
    }
    for (const [id, resource] of resources.byType('AWS::S3::Bucket'))
      resources.setBucket(id, resources.bucketName(id, resource));
    resources.nameTheRest();
    return resources;
  }

  private byType(type: string): Array<[string, CfnResource]> {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }

  private tables(): Array<[string, CfnResource]> {
    return [...this.byType('AWS::DynamoDB::GlobalTable'), ...this.byType('AWS::DynamoDB::Table')];
  }

  /** Dead-letter queues first: a queue's redrive policy names its DLQ's ARN. */
  private queues(): Array<[string, CfnResource]> {
    return this.byType('AWS::SQS::Queue').sort(([, a], [, b]) =>
      a.Properties?.RedrivePolicy === undefined ? (b.Properties?.RedrivePolicy === undefined ? 0 : -1) : 1,
    );
  }

  private nameTheRest() {
    for (const [id, resource] of Object.entries(this.template.Resources)) this.name(id, resource);
  }

  ref(logicalId: string): string {
    const ref = this.refs.get(logicalId);
    if (ref === undefined) throw new Error(this.unknown(logicalId, 'Ref'));
    return ref;
  }

  getAtt(logicalId: string, attribute: string): string {
    const value = this.attributes.get(`${logicalId}.${attribute}`);
    if (value === undefined) throw new Error(this.unknown(logicalId, `Fn::GetAtt ${attribute}`));
    return value;
  }

  /** The properties of the one resource of this type, resolved (an error when there are none or several). */
  propertiesOfOnly(type: string): Record<string, unknown> {
    const found = Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
    const [only] = found;
    if (only === undefined || found.length > 1) throw new Error(`the template has ${found.length} ${type}, not one`);
    return resolveTree(only[1].Properties ?? {}, this, only[0]) as Record<string, unknown>;
  }

  /** How the one event source mapping of a function polls: messages per invocation, invocations at once (1 unless capped). */
  eventSourceOf(fn: SynthesizedFunction): { batchSize: number; maxConcurrency: number } {
    const found = Object.values(this.template.Resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        (r.Properties?.FunctionName as { Ref?: unknown } | undefined)?.Ref === fn.logicalId,
    );
    const [only] = found;
    if (only === undefined || found.length > 1)
      throw new Error(`${fn.entry} has ${found.length} event source mappings in the template, not one`);
    const properties = only.Properties ?? {};
    const scaling = properties.ScalingConfig as { MaximumConcurrency?: unknown } | undefined;
    return {
      batchSize: Number(properties.BatchSize ?? 10),
      maxConcurrency: Number(scaling?.MaximumConcurrency ?? 1),
    };
  }

  /** A stack output's value (its name as STACK_OUTPUTS gives it). */
  output(name: string): string {
    const output = this.template.Outputs?.[name];
    if (output === undefined) throw new Error(`the template has no output ${name}`);
    return resolveValue(output.Value, this, `Outputs.${name}`);
  }

  /**
   * A function's environment as deployed, resolved for here. `local` replaces values that name
   * the world outside the stack (the service's address, the providers', the public URL) or
   * pace it for a machine (retry delays); it may only replace variables the template sets.
   */
  environmentOf(fn: SynthesizedFunction, local: Record<string, string> = {}): Record<string, string> {
    for (const key of Object.keys(local))
      if (!(key in fn.environment))
        throw new Error(
          `${fn.entry}: the template gives no ${key} to replace locally; its variables: ${Object.keys(fn.environment).join(', ')}`,
        );
    return Object.fromEntries(
      Object.entries(fn.environment).map(([key, value]) => [
        key,
        local[key] ?? resolveValue(value, this, `${fn.logicalId}.Environment.${key}`),
      ]),
    );
  }

  private unknown(logicalId: string, what: string): string {
    const resource = this.template.Resources[logicalId];
    return resource === undefined
      ? `the template has no resource ${logicalId} (${what})`
      : `${what} of ${resource.Type} ${logicalId} has no local value`;
  }

  private set(logicalId: string, ref: string, attributes: Record<string, string> = {}) {
    this.refs.set(logicalId, ref);
    for (const [name, value] of Object.entries(attributes)) this.attributes.set(`${logicalId}.${name}`, value);
  }

  private arn(service: string, resource: string, region = LOCAL_REGION): string {
    return `arn:aws:${service}:${region}:${region === '' ? '' : LOCAL_ACCOUNT}:${resource}`;
  }

  private localName(logicalId: string, given: unknown): string {
    return given === undefined ? `${this.options.prefix}-${shortName(logicalId)}` : resolveValue(given, this);
  }

  private tableName(logicalId: string, resource: CfnResource): string {
    return this.localName(logicalId, resource.Properties?.TableName);
  }

  private setTable(logicalId: string, tableName: string) {
    this.set(logicalId, tableName, { Arn: this.arn('dynamodb', `table/${tableName}`) });
  }

  private async createTable(dynamo: DynamoDBClient, logicalId: string, resource: CfnResource) {
    const p = resource.Properties ?? {};
    const tableName = this.tableName(logicalId, resource);
    const input: CreateTableCommandInput = {
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: p.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
      KeySchema: p.KeySchema as CreateTableCommandInput['KeySchema'],
      ...(p.GlobalSecondaryIndexes !== undefined && {
        GlobalSecondaryIndexes: (p.GlobalSecondaryIndexes as Record<string, unknown>[]).map((index) => ({
          IndexName: index.IndexName as string,
          KeySchema: index.KeySchema as NonNullable<CreateTableCommandInput['KeySchema']>,
          Projection: index.Projection as { ProjectionType: 'ALL' },
        })),
      }),
    };
    try {
      await dynamo.send(new CreateTableCommand(input));
    } catch (error) {
      if (!(this.options.reuseTable === true && error instanceof ResourceInUseException)) throw error;
    }
    this.setTable(logicalId, tableName);
  }

  private static isFifo(resource: CfnResource): boolean {
    const fifo = resource.Properties?.FifoQueue;
    return fifo === true || fifo === 'true';
  }

  private queueName(logicalId: string, resource: CfnResource): string {
    const given = resource.Properties?.QueueName;
    if (given !== undefined) return resolveValue(given, this);
    return `${this.localName(logicalId, undefined)}${TemplateResources.isFifo(resource) ? '.fifo' : ''}`;
  }

  private setQueue(logicalId: string, queueName: string, url: string, arn: string) {
    this.set(logicalId, url, { Arn: arn, QueueName: queueName, QueueUrl: url });
  }

  private async createQueue(sqs: SQSClient, logicalId: string, resource: CfnResource) {
    const p = resource.Properties ?? {};
    const fifo = TemplateResources.isFifo(resource);
    const queueName = this.queueName(logicalId, resource);
    const attribute = (name: string) => (p[name] === undefined ? {} : { [name]: resolveValue(p[name], this) });
    const redrive = p.RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: unknown } | undefined;
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: queueName,
        Attributes: {
          ...(fifo && { FifoQueue: 'true' }),
          ...attribute('ContentBasedDeduplication'),
          ...attribute('MessageRetentionPeriod'),
          ...attribute('MaximumMessageSize'),
          ...attribute('DelaySeconds'),
          ...attribute('VisibilityTimeout'),
          ...(this.options.visibilityTimeoutSeconds !== undefined && {
            VisibilityTimeout: String(this.options.visibilityTimeoutSeconds),
          }),
          ...(redrive !== undefined && {
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: resolveValue(redrive.deadLetterTargetArn, this),
              maxReceiveCount: Number(redrive.maxReceiveCount),
            }),
          }),
        },
      }),
    );
    const url = required(created.QueueUrl, 'CreateQueue QueueUrl');
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    this.setQueue(logicalId, queueName, url, required(Attributes?.QueueArn, 'QueueArn'));
  }

  private bucketName(logicalId: string, resource: CfnResource): string {
    return this.localName(logicalId, resource.Properties?.BucketName).slice(0, 63);
  }

  private async createBucket(s3: S3Client, logicalId: string, resource: CfnResource) {
    const bucket = this.bucketName(logicalId, resource);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    this.setBucket(logicalId, bucket);
  }

  private setBucket(logicalId: string, bucket: string) {
    this.set(logicalId, bucket, {
      Arn: `arn:aws:s3:::${bucket}`,
      DomainName: `${bucket}.s3.amazonaws.com`,
      RegionalDomainName: `${bucket}.s3.${LOCAL_REGION}.amazonaws.com`,
    });
  }

  /** Ids for what has no local emulator (stand-ins answer them by these names), as AWS forms them. */
  private name(logicalId: string, resource: CfnResource) {
    if (this.refs.has(logicalId)) return;
    const p = resource.Properties ?? {};
    const local = this.localName(logicalId, undefined);
    switch (resource.Type) {
      case 'AWS::Events::EventBus': {
        const name = this.localName(logicalId, p.Name);
        return this.set(logicalId, name, { Arn: this.arn('events', `event-bus/${name}`), Name: name });
      }
      case 'AWS::StepFunctions::StateMachine': {
        const arn = this.arn('states', `stateMachine:${local}`);
        return this.set(logicalId, arn, { Arn: arn, Name: local });
      }
      case 'AWS::KMS::Key': {
        const h = digest(logicalId, 32);
        const keyId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
        return this.set(logicalId, keyId, { Arn: this.arn('kms', `key/${keyId}`), KeyId: keyId });
      }
      case 'AWS::SecretsManager::Secret': {
        // CloudFormation names an unnamed secret `<logical id>-<12 characters>`; Secrets Manager adds `-<6>` to the ARN.
        const name = p.Name === undefined ? `${logicalId}-${digest(logicalId, 12)}` : resolveValue(p.Name, this);
        const arn = this.arn('secretsmanager', `secret:${name}-${digest(name, 6)}`);
        return this.set(logicalId, arn, { Id: arn });
      }
      case 'AWS::ApiGatewayV2::Api': {
        const apiId = digest(logicalId, 10);
        return this.set(logicalId, apiId, {
          ApiEndpoint: `https://${apiId}.execute-api.${LOCAL_REGION}.amazonaws.com`,
        });
      }
      case 'AWS::Lambda::Function':
        return this.set(logicalId, local, { Arn: this.arn('lambda', `function:${local}`) });
      case 'AWS::SNS::Topic': {
        const arn = this.arn('sns', local);
        return this.set(logicalId, arn, { TopicArn: arn, TopicName: local });
      }
      case 'AWS::Athena::WorkGroup':
        return this.set(logicalId, resolveValue(p.Name, this));
      case 'AWS::Glue::Database':
        return this.set(logicalId, resolveValue((p.DatabaseInput as { Name: unknown }).Name, this));
      case 'AWS::Logs::LogGroup': {
        const name = this.localName(logicalId, p.LogGroupName);
        return this.set(logicalId, name, { Arn: this.arn('logs', `log-group:${name}:*`) });
      }
      case 'AWS::IAM::Role':
        return this.set(logicalId, local, { Arn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/${local}` });
      default:
      // Not named by anything a function runs with (alarms, routes, policies…): asking for it fails.
    }
  }
}
