/**
 * The meetings lake as synthesized: the Glue tables' partition projection and locations, the views
 * Athena reads (their text decodes to lakeViewSql), the workgroup's enforced settings, the lifecycle
 * of `lake/` and `lake-results/`, the search routes and least-privilege grants of every function
 * that touches the lake.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LAKE_SETTINGS } from '../../lambdas/core/lake/lake-contract';
import { lakeViewSql } from '../../lambdas/core/lake/lake-layout';
import { LAKE_SEARCH_ROUTES } from '../../lambdas/core/lake/lake-search-routes';
import { LAKE_COLUMNS, LAKE_TABLE_NAMES } from '../../lambdas/core/lake/lake-tables';
import { LAKE_NAMED_QUERIES } from '../../lambdas/core/lake/named-queries';
import { STACK_OUTPUTS } from '../../lambdas/core/stack-outputs';
import { METRICS, METRICS_NAMESPACE, SERVICES } from '../../lambdas/core/telemetry';
import { eraseEnvironmentSchema } from '../../lambdas/erase/environment';
import { parseConfig } from '../../lib/config';
import { viewColumns } from '../../lib/meetings-lake';
import { functionStatements, type Statement } from './iam';
import { sharedTemplate, TEST_CONFIG_INPUT } from './synth';

let template: Template;
// Synthesizing bundles every function: on a busy machine that outlasts the default minute.
beforeAll(() => {
  template = sharedTemplate();
}, 300_000);

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = () => template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources()).filter(([, r]) => r.Type === type);

/** A CloudFormation value as text: Fn::Join flattened, `{Ref: X}` and `{Fn::GetAtt: [X, a]}` shown as `<X>` / `<X.a>`. */
function rendered(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object.Ref)}>`;
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(rendered).join(separator);
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** The recordings bucket's logical id: the lake lives in it. */
function recordingsBucket(): string {
  const found = ofType('AWS::S3::Bucket').filter(([id]) => id.startsWith('RecordingArchiveRecordingsBucket'));
  expect(found).toHaveLength(1);
  return found[0]![0];
}

type TableInput = {
  Name: string;
  TableType: string;
  Parameters: Record<string, unknown>;
  PartitionKeys?: Array<{ Name: string; Type: string }>;
  StorageDescriptor: {
    Location?: unknown;
    Columns: Array<{ Name: string; Type: string }>;
    SerdeInfo?: { SerializationLibrary?: string };
    InputFormat?: string;
  };
  ViewOriginalText?: string;
  ViewExpandedText?: string;
};
const glueTables = () =>
  ofType('AWS::Glue::Table').map(([, r]) => r.Properties as { DatabaseName: string; TableInput: TableInput });
const glueTable = (name: string): TableInput => {
  const found = glueTables().filter((t) => t.TableInput.Name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!.TableInput;
};
const databaseName = () => {
  const databases = ofType('AWS::Glue::Database');
  expect(databases).toHaveLength(1);
  return (databases[0]![1].Properties.DatabaseInput as { Name: string }).Name;
};

describe('the lake catalogue', () => {
  it('has a recent and a compacted Parquet table per lake table, with day partitions projected from their keys', () => {
    const bucket = recordingsBucket();
    const config = parseConfig(TEST_CONFIG_INPUT);
    for (const table of LAKE_TABLE_NAMES) {
      for (const tier of ['recent', 'compacted']) {
        const input = glueTable(`${table}_${tier}`);
        expect(input.TableType).toBe('EXTERNAL_TABLE');
        expect(input.PartitionKeys).toEqual([expect.objectContaining({ Name: 'day', Type: 'string' })]);
        expect(input.StorageDescriptor.SerdeInfo?.SerializationLibrary).toBe(
          'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
        );
        expect(input.StorageDescriptor.Columns.map((c) => [c.Name, c.Type])).toEqual(
          LAKE_COLUMNS[table].map((c) => [c.name, c.type]),
        );
        const { 'storage.location.template': template, ...projection } = input.Parameters;
        expect(projection).toEqual({
          classification: 'parquet',
          EXTERNAL: 'TRUE',
          'projection.enabled': 'true',
          'projection.day.type': 'date',
          'projection.day.format': 'yyyy-MM-dd',
          'projection.day.range': `${config.lakeFirstDay},NOW+1DAYS`,
          'projection.day.interval': '1',
          'projection.day.interval.unit': 'DAYS',
        });
        expect(rendered(template)).toBe(`s3://<${bucket}>/lake/${tier}/${table}/day=\${day}/`);
        expect(rendered(input.StorageDescriptor.Location)).toBe(`s3://<${bucket}>/lake/${tier}/${table}/`);
      }
    }
    expect(rendered(glueTable('lake_state').StorageDescriptor.Location)).toBe(`s3://<${bucket}>/lake/state/`);
    expect(glueTable('lake_state').PartitionKeys).toBeUndefined();
    // No crawler and no partition to repair: projection is the only way partitions are found.
    expect(ofType('AWS::Glue::Crawler')).toHaveLength(0);
    expect(ofType('AWS::Glue::Partition')).toHaveLength(0);
  });

  it('defines the three views in the format Athena reads, each decoding to lakeViewSql', () => {
    const database = databaseName();
    for (const table of LAKE_TABLE_NAMES) {
      const input = glueTable(table);
      expect(input.TableType).toBe('VIRTUAL_VIEW');
      expect(input.Parameters).toMatchObject({ presto_view: 'true' });
      expect(input.ViewExpandedText).toBe('/* Presto View */');
      const encoded = /^\/\* Presto View: ([A-Za-z0-9+/=]+) \*\/$/.exec(input.ViewOriginalText ?? '')?.[1];
      expect(encoded, table).toBeDefined();
      const view = JSON.parse(Buffer.from(encoded!, 'base64').toString('utf8')) as {
        originalSql: string;
        catalog: string;
        schema: string;
        columns: Array<{ name: string; type: string }>;
      };
      expect(view.originalSql).toBe(lakeViewSql(table));
      expect(view.catalog).toBe('awsdatacatalog');
      expect(view.schema).toBe(database);
      const types = { string: 'varchar', bigint: 'bigint', boolean: 'boolean' };
      expect(view.columns).toEqual(viewColumns(table).map((c) => ({ name: c.name, type: types[c.type] })));
      expect(input.StorageDescriptor.Columns.map((c) => c.Name)).toEqual(view.columns.map((c) => c.name));
    }
    for (const t of glueTables()) expect(t.DatabaseName).toBe(database);
  });
});

describe('the lake workgroup', () => {
  it('enforces an encrypted result location in the bucket, the bytes-scanned cutoff and engine version 3', () => {
    const workGroups = ofType('AWS::Athena::WorkGroup');
    expect(workGroups).toHaveLength(1);
    const props = workGroups[0]![1].Properties as {
      RecursiveDeleteOption: boolean;
      WorkGroupConfiguration: Record<string, unknown> & {
        ResultConfiguration: { OutputLocation: unknown; ExpectedBucketOwner: string; EncryptionConfiguration: unknown };
      };
    };
    const configuration = props.WorkGroupConfiguration;
    expect(configuration).toMatchObject({
      EnforceWorkGroupConfiguration: true,
      PublishCloudWatchMetricsEnabled: true,
      BytesScannedCutoffPerQuery: DEFAULT_LAKE_SETTINGS.bytesScannedCutoffBytes,
      EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
    });
    expect(configuration.BytesScannedCutoffPerQuery).toBe(10 * 1024 ** 3);
    expect(rendered(configuration.ResultConfiguration.OutputLocation)).toBe(
      `s3://<${recordingsBucket()}>/lake-results/`,
    );
    expect(configuration.ResultConfiguration.ExpectedBucketOwner).toBe('111111111111');
    expect(configuration.ResultConfiguration.EncryptionConfiguration).toEqual({ EncryptionOption: 'SSE_S3' });
    expect(props.RecursiveDeleteOption).toBe(false);
  });

  it('holds the common questions as named queries in its database', () => {
    const named = ofType('AWS::Athena::NamedQuery').map(([, r]) => r.Properties);
    expect(named.map((q) => q.Name).sort()).toEqual(LAKE_NAMED_QUERIES.map((q) => q.name).sort());
    for (const query of LAKE_NAMED_QUERIES) {
      expect(named.find((q) => q.Name === query.name)).toMatchObject({
        QueryString: query.sql,
        Database: databaseName(),
        WorkGroup: { Ref: ofType('AWS::Athena::WorkGroup')[0]![0] },
      });
    }
  });

  it('is named in the outputs the CLI reads', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[STACK_OUTPUTS.lakeDatabase]?.Value).toBe(databaseName());
    expect(outputs[STACK_OUTPUTS.lakeWorkGroup]?.Value).toBe(
      (ofType('AWS::Athena::WorkGroup')[0]![1].Properties as { Name: string }).Name,
    );
    expect(rendered(outputs[STACK_OUTPUTS.lakeResultsLocation]?.Value)).toBe(
      `s3://<${recordingsBucket()}>/lake-results/`,
    );
  });
});

type LifecycleRule = {
  Id: string;
  Prefix?: string;
  ExpirationInDays?: number;
  NoncurrentVersionExpiration?: { NoncurrentDays: number };
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation: number };
  Transitions?: unknown[];
};

describe('the lake lifecycle', () => {
  const rules = () =>
    (resources()[recordingsBucket()]!.Properties.LifecycleConfiguration as { Rules: LifecycleRule[] }).Rules;
  const covers = (rule: LifecycleRule, key: string) => key.startsWith(rule.Prefix ?? '');

  it('keeps lake/ in a class Athena reads, with replaced versions expiring and incomplete uploads aborted', () => {
    const key = 'lake/recent/utterances/day=2026-11-24/bot_1.parquet';
    const applying = rules().filter((rule) => covers(rule, key));
    expect(applying.some((r) => r.AbortIncompleteMultipartUpload !== undefined)).toBe(true);
    expect(applying.some((r) => r.NoncurrentVersionExpiration !== undefined)).toBe(true);
    expect(applying.filter((r) => r.Transitions !== undefined)).toEqual([]);
    // The lake's current files never expire by age: retention drops whole days itself.
    expect(applying.filter((r) => r.ExpirationInDays !== undefined)).toEqual([]);
  });

  it('expires query results and their versions after lakeResultsExpireDays', () => {
    const results = rules().filter((rule) => covers(rule, 'lake-results/0b1c.csv') && rule.Prefix === 'lake-results/');
    expect(results).toEqual([
      expect.objectContaining({
        ExpirationInDays: DEFAULT_LAKE_SETTINGS.resultsExpireDays,
        NoncurrentVersionExpiration: { NoncurrentDays: DEFAULT_LAKE_SETTINGS.resultsExpireDays },
      }),
    ]);
  });
});

/** Every S3 object (non-bucket) resource each statement's actions reach, rendered, per action. */
function s3ObjectGrants(statements: Statement[]): Array<[string, string]> {
  return statements.flatMap((s) => {
    const actions = [s.Action].flat().filter((a) => a.startsWith('s3:'));
    const resourcesOf = [s.Resource].flat().map(rendered);
    return actions.flatMap((action) => resourcesOf.map((resource) => [action, resource] as [string, string]));
  });
}

describe('the lake search function', () => {
  const statements = () => functionStatements(template, SERVICES.lakeSearch);

  it('reads lake/ and reads and writes lake-results/ only, never another prefix or the whole bucket', () => {
    const bucket = `<${recordingsBucket()}.Arn>`;
    const grants = s3ObjectGrants(statements()).filter(([, resource]) => resource !== bucket);
    expect(grants.sort()).toEqual(
      [
        ['s3:GetObject', `${bucket}/lake/*`],
        ['s3:GetObject', `${bucket}/lake-results/*`],
        ['s3:PutObject', `${bucket}/lake-results/*`],
      ].sort(),
    );
    const onBucket = statements().filter((s) => [s.Resource].flat().map(rendered).includes(bucket));
    expect(onBucket.flatMap((s) => [s.Action].flat()).sort()).toEqual(['s3:GetBucketLocation', 's3:ListBucket']);
    const list = onBucket.find((s) => [s.Action].flat().includes('s3:ListBucket')) as Statement & {
      Condition: unknown;
    };
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['lake/*', 'lake-results/*'] } });
  });

  it('runs queries in the lake workgroup and reads the lake database only, with no table access', () => {
    const athena = statements().filter((s) => [s.Action].flat().some((a) => a.startsWith('athena:')));
    expect(athena.map((s) => [s.Resource].flat().map(rendered))).toEqual([
      [`arn:aws:athena:eu-west-1:111111111111:workgroup/TestPipeline-lake`],
    ]);
    const glue = statements().filter((s) => [s.Action].flat().some((a) => a.startsWith('glue:')));
    const database = databaseName();
    for (const resource of glue.flatMap((s) => [s.Resource].flat().map(rendered))) {
      expect(resource).toMatch(
        new RegExp(`^arn:aws:glue:eu-west-1:111111111111:(catalog|database/${database}|table/${database}/\\w+)$`),
      );
    }
    expect(glue.flatMap((s) => [s.Action].flat()).every((a) => a.startsWith('glue:Get'))).toBe(true);
    const actions = statements().flatMap((s) => [s.Action].flat());
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('serves the lake routes, IAM-authorized, waiting less than the HTTP API allows', () => {
    const [functionId, fn] = ofType('AWS::Lambda::Function').find(
      ([, r]) =>
        (r.Properties.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME ===
        SERVICES.lakeSearch,
    )!;
    const integrations = ofType('AWS::ApiGatewayV2::Integration').filter(([, r]) =>
      JSON.stringify(r.Properties).includes(functionId),
    );
    expect(integrations).toHaveLength(1);
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    for (const routeKey of Object.values(LAKE_SEARCH_ROUTES)) {
      const route = routes.find((r) => r.RouteKey === routeKey);
      expect(route, routeKey).toMatchObject({ AuthorizationType: 'AWS_IAM' });
      expect(JSON.stringify(route?.Target)).toContain(integrations[0]![0]);
    }
    const wait = Number((fn.Properties.Environment as { Variables: Record<string, string> }).Variables.QUERY_WAIT_MS);
    expect(wait).toBeLessThan((fn.Properties.Timeout as number) * 1000);
    expect(fn.Properties.Timeout).toBeLessThan(30);
  });
});

describe('the lake compaction function', () => {
  it('runs daily, holds the day lease items only, and reads, writes and deletes versions under lake/ only', () => {
    const [functionId, fn] = ofType('AWS::Lambda::Function').find(
      ([, r]) =>
        (r.Properties.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME ===
        SERVICES.lakeCompaction,
    )!;
    expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      COMPACT_AFTER_HOURS: String(DEFAULT_LAKE_SETTINGS.compactAfterHours),
      LAKE_BUCKET: { Ref: recordingsBucket() },
      TABLE_NAME: expect.anything(),
    });
    const rules = ofType('AWS::Events::Rule').filter(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes(functionId),
    );
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['cron(15 6 * * ? *)']);
    const statements = functionStatements(template, SERVICES.lakeCompaction);
    const bucket = `<${recordingsBucket()}.Arn>`;
    const objectGrants = s3ObjectGrants(statements).filter(([, resource]) => resource !== bucket);
    expect(new Set(objectGrants.map(([, resource]) => resource))).toEqual(new Set([`${bucket}/lake/*`]));
    const table = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:'))) as Array<
      Statement & { Condition?: Record<string, Record<string, unknown>> }
    >;
    expect(table.map((s) => s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])).toEqual([['LAKE#*']]);
  });
});

describe('lake grants of the archive and erase functions', () => {
  it('let the archive write lake/ and the erasure clean lake/ and lake-results/, no other new prefix', () => {
    const bucket = `<${recordingsBucket()}.Arn>`;
    const lakeGrants = (service: string) =>
      s3ObjectGrants(functionStatements(template, service)).filter(([, r]) => r.startsWith(`${bucket}/lake`));
    expect(new Set(lakeGrants(SERVICES.archive).map(([, r]) => r))).toEqual(new Set([`${bucket}/lake/*`]));
    expect(lakeGrants(SERVICES.archive).map(([a]) => a)).toContain('s3:PutObject');
    const erase = lakeGrants(SERVICES.erase);
    expect(erase).toContainEqual(['s3:DeleteObjectVersion', `${bucket}/lake/*`]);
    expect(erase).toContainEqual(['s3:DeleteObjectVersion', `${bucket}/lake-results/*`]);
    expect(erase).not.toContainEqual(['s3:PutObject', `${bucket}/lake-results/*`]);
  });
});

describe('the lake every function names', () => {
  /** A function's environment by its service name, each `{Ref: X}` resolved to `<X>`. */
  const environmentOf = (service: string): Record<string, string> => {
    const found = ofType('AWS::Lambda::Function').filter(
      ([, r]) =>
        (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_SERVICE_NAME ===
        service,
    );
    expect(found, service).toHaveLength(1);
    const variables = (found[0]![1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    return Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, rendered(value)]));
  };

  it('is given to the erase function, whose environment parses, in the bucket compaction and the archive use', () => {
    const erase = eraseEnvironmentSchema.safeParse(environmentOf(SERVICES.erase));
    expect(erase.error?.issues ?? []).toEqual([]);
    const bucket = `<${recordingsBucket()}>`;
    expect(erase.data?.LAKE_BUCKET).toBe(bucket);
    expect(environmentOf(SERVICES.lakeCompaction).LAKE_BUCKET).toBe(bucket);
    // The archive writes the lake into its own recordings bucket (lambdas/archive/adapter.ts).
    expect(environmentOf(SERVICES.archive).RECORDINGS_BUCKET).toBe(bucket);
  });
});

describe('the lake alarm', () => {
  it('watches LakeDaysAwaitingCompaction as the compaction function emits it, above 2 days', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(
      ([, r]) => r.Properties.MetricName === METRICS.lakeDaysAwaitingCompaction.name,
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: SERVICES.lakeCompaction }],
      Statistic: 'Maximum',
      Threshold: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    // The metric carries no dimension of its own besides `service`.
    expect(METRICS.lakeDaysAwaitingCompaction.dimensions).toEqual([]);
  });
});
