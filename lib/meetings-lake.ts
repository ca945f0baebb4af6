/**
 * The meetings lake: Parquet under `lake/` in the stack's recordings bucket (written by the archive
 * function, compacted daily), catalogued by Glue and queried by Athena.
 *
 *  - Glue: for each lake table a `recent` and a `compacted` storage table, partitioned by `day` with
 *    partition projection (Athena computes each day's location from a template: no crawler, no
 *    `MSCK REPAIR`, no partition to add when a day starts), the one-row `lake_state` table, and the
 *    views users query (`meetings`, `utterances`, `participants`: lake-layout.ts says why).
 *  - Athena: a workgroup that enforces its result location (encrypted, under `lake-results/`, expiring)
 *    and a per-query bytes-scanned cutoff, whoever runs the query; the common questions as named queries.
 *  - The search function behind the read API's lake routes (IAM-authorized), which may run queries in
 *    this workgroup and read the lake and nothing else; the daily compaction function.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  COMPACTED_THROUGH_COLUMN,
  LAKE_PREFIX,
  LAKE_RESULTS_PREFIX,
  LAKE_STATE_TABLE,
  type LakeTier,
  lakeKeys,
  lakeViewSql,
  storageTableName,
} from '../lambdas/core/lake/lake-layout';
import { LAKE_SEARCH_ROUTES } from '../lambdas/core/lake/lake-search-routes';
import {
  LAKE_COLUMNS,
  LAKE_PARTITION_COLUMN,
  LAKE_TABLE_NAMES,
  type LakeColumnType,
  type LakeTableName,
} from '../lambdas/core/lake/lake-tables';
import { LAKE_NAMED_QUERIES } from '../lambdas/core/lake/named-queries';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import type { LakeErasureEnvironment } from '../lambdas/erase/environment';
import type { LakeSearchEnvironment } from '../lambdas/lake-search/environment';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, wildcardResourceId } from './nag';

/** The tiers of storage tables (lake-layout.ts). */
const TIERS: readonly LakeTier[] = ['recent', 'compacted'];

/** Parquet as Glue and Athena name it. */
const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
} as const;

/** The lake's types in a view's Presto (Trino) definition; Glue's own column types are the lake's names. */
const PRESTO_TYPES: Record<LakeColumnType, string> = { string: 'varchar', bigint: 'bigint', boolean: 'boolean' };

/** Athena's placeholder for the projected partition value in `storage.location.template`. */
const DAY_PLACEHOLDER = ['$', '{', LAKE_PARTITION_COLUMN, '}'].join('');

/** Compaction reads and rewrites one closed day per table: up to ~1.2 M utterances for 2,000 meetings. */
const COMPACTION_TIMEOUT = Duration.minutes(15);

/** The search routes must answer inside the HTTP API's 30 s (the route waits ~25 s, then answers 202). */
const SEARCH_TIMEOUT = Duration.seconds(29);

export interface MeetingsLakeProps {
  /** The stack's recordings bucket: the lake lives under `lake/`, query results under `lake-results/`. */
  bucket: Bucket;
  table: ITableV2;
  api: PipelineHttpApi;
  /** The first day partition projection enumerates (`yyyy-MM-dd`). */
  firstDay: string;
  bytesScannedCutoffBytes: number;
  resultsExpireDays: number;
  compactAfterHours: number;
  functions: FunctionSettings;
}

/** A Glue column from a lake column. */
const glueColumn = (column: { name: string; type: LakeColumnType; comment: string }) => ({
  name: column.name,
  type: column.type,
  comment: column.comment,
});

/**
 * Athena's view format, as Glue must hold it for Athena to read the table as a view: table type
 * VIRTUAL_VIEW with the parameter `presto_view=true`, `ViewExpandedText` exactly `/* Presto View *\/`,
 * and `ViewOriginalText` `/* Presto View: <base64> *\/` where base64 encodes JSON naming the SQL
 * (`originalSql`), the catalog and schema its unqualified names resolve in, and its output columns
 * with Trino types (a mismatch with the SQL's columns makes Athena refuse the view as stale).
 */
export function prestoViewText(sql: string, database: string, columns: Array<{ name: string; type: string }>): string {
  const definition = {
    originalSql: sql,
    catalog: 'awsdatacatalog',
    schema: database,
    columns,
    owner: 'meeting-pipeline',
    runAsInvoker: false,
  };
  return `/* Presto View: ${Buffer.from(JSON.stringify(definition)).toString('base64')} */`;
}

/** Every column of a lake table as a view shows it: the file's columns, then the partition column. */
export function viewColumns(table: LakeTableName): Array<{ name: string; type: LakeColumnType; comment: string }> {
  return [
    ...LAKE_COLUMNS[table],
    { name: LAKE_PARTITION_COLUMN, type: 'string', comment: 'UTC day (yyyy-MM-dd) the meeting is listed under' },
  ];
}

export class MeetingsLake extends Construct {
  readonly databaseName: string;
  readonly workGroupName: string;
  /** `s3://<bucket>/lake-results/`, where the workgroup puts every query's results. */
  readonly resultsLocation: string;
  readonly searchFunction: PipelineFunction;
  readonly compactionFunction: PipelineFunction;
  private readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: MeetingsLakeProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.bucket = props.bucket;
    // Athena folds names to lower case; Glue allows letters, digits and underscores.
    this.databaseName = `${stack.stackName.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_lake`;
    this.workGroupName = `${stack.stackName}-lake`;
    this.resultsLocation = `s3://${props.bucket.bucketName}/${LAKE_RESULTS_PREFIX}`;
    const location = (prefix: string) => `s3://${props.bucket.bucketName}/${prefix}`;

    this.lifecycle(props);

    const database = new CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: {
        name: this.databaseName,
        description: 'meeting-pipeline lake: query the views meetings, utterances and participants',
      },
    });

    const storageTables: CfnTable[] = [];
    for (const table of LAKE_TABLE_NAMES) {
      for (const tier of TIERS) {
        const name = storageTableName(table, tier);
        const created = new CfnTable(this, `Table-${name}`, {
          catalogId: stack.account,
          databaseName: this.databaseName,
          tableInput: {
            name,
            description: `The ${tier} tier of ${table}: query the ${table} view instead`,
            tableType: 'EXTERNAL_TABLE',
            partitionKeys: [{ name: LAKE_PARTITION_COLUMN, type: 'string', comment: 'UTC day, yyyy-MM-dd' }],
            parameters: {
              classification: 'parquet',
              EXTERNAL: 'TRUE',
              'projection.enabled': 'true',
              [`projection.${LAKE_PARTITION_COLUMN}.type`]: 'date',
              [`projection.${LAKE_PARTITION_COLUMN}.format`]: 'yyyy-MM-dd',
              [`projection.${LAKE_PARTITION_COLUMN}.range`]: `${props.firstDay},NOW+1DAYS`,
              [`projection.${LAKE_PARTITION_COLUMN}.interval`]: '1',
              [`projection.${LAKE_PARTITION_COLUMN}.interval.unit`]: 'DAYS',
              'storage.location.template': location(lakeKeys.dayPrefix(tier, table, DAY_PLACEHOLDER)),
            },
            storageDescriptor: {
              ...PARQUET,
              location: location(lakeKeys.tablePrefix(tier, table)),
              columns: LAKE_COLUMNS[table].map(glueColumn),
            },
          },
        });
        created.addResourceDependency(database);
        storageTables.push(created);
      }
    }
    const stateTable = new CfnTable(this, 'Table-state', {
      catalogId: stack.account,
      databaseName: this.databaseName,
      tableInput: {
        name: LAKE_STATE_TABLE,
        description: 'One row: the last day read from the compacted tier',
        tableType: 'EXTERNAL_TABLE',
        parameters: { classification: 'parquet', EXTERNAL: 'TRUE' },
        storageDescriptor: {
          ...PARQUET,
          location: location(lakeKeys.statePrefix()),
          columns: [{ name: COMPACTED_THROUGH_COLUMN, type: 'string', comment: 'yyyy-MM-dd' }],
        },
      },
    });
    stateTable.addResourceDependency(database);

    const tableNames = [
      ...LAKE_TABLE_NAMES.flatMap((table) => TIERS.map((tier) => storageTableName(table, tier))),
      LAKE_STATE_TABLE,
      ...LAKE_TABLE_NAMES,
    ];
    for (const table of LAKE_TABLE_NAMES) {
      const columns = viewColumns(table);
      const view = new CfnTable(this, `View-${table}`, {
        catalogId: stack.account,
        databaseName: this.databaseName,
        tableInput: {
          name: table,
          description: `${table}: each row once, whichever tier holds its day`,
          tableType: 'VIRTUAL_VIEW',
          parameters: { presto_view: 'true', comment: 'Presto View' },
          viewOriginalText: prestoViewText(
            lakeViewSql(table),
            this.databaseName,
            columns.map((c) => ({ name: c.name, type: PRESTO_TYPES[c.type] })),
          ),
          viewExpandedText: '/* Presto View */',
          storageDescriptor: { columns: columns.map(glueColumn), serdeInfo: {} },
        },
      });
      for (const dependency of [...storageTables, stateTable]) view.addResourceDependency(dependency);
    }

    const encryptionKey = props.bucket.encryptionKey;
    const workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: 'meeting-pipeline lake queries: results encrypted under lake-results/, scan cutoff enforced',
      state: 'ENABLED',
      // Deleting the stack never deletes query history or results with it.
      recursiveDeleteOption: false,
      workGroupConfiguration: {
        // Every query in this workgroup, from any client, takes these settings: none can lift the cutoff.
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffBytes,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: this.resultsLocation,
          expectedBucketOwner: stack.account,
          encryptionConfiguration:
            encryptionKey === undefined
              ? { encryptionOption: 'SSE_S3' }
              : { encryptionOption: 'SSE_KMS', kmsKey: encryptionKey.keyArn },
        },
      },
    });
    for (const query of LAKE_NAMED_QUERIES) {
      const named = new CfnNamedQuery(this, `NamedQuery-${query.name}`, {
        name: query.name,
        description: query.description,
        database: this.databaseName,
        workGroup: workGroup.ref,
        queryString: query.sql,
      });
      named.addResourceDependency(database);
    }

    this.searchFunction = this.searchRoutes(props, tableNames);
    this.compactionFunction = this.compaction(props);
  }

  /**
   * `lake/` lives by the bucket's own rules (replaced versions expire, incomplete uploads abort) and is
   * never transitioned: the archive class rule names `meetings/` only, and Glacier classes would make
   * Athena fail on every file. Query results hold transcript text: they expire, their versions too.
   */
  private lifecycle(props: MeetingsLakeProps): void {
    props.bucket.addLifecycleRule({
      id: 'expire-lake-results',
      prefix: LAKE_RESULTS_PREFIX,
      expiration: Duration.days(props.resultsExpireDays),
      noncurrentVersionExpiration: Duration.days(props.resultsExpireDays),
      abortIncompleteMultipartUploadAfter: Duration.days(1),
    });
  }

  private searchRoutes(props: MeetingsLakeProps, tableNames: readonly string[]): PipelineFunction {
    const stack = Stack.of(this);
    const environment: { [K in keyof LakeSearchEnvironment]: string } = {
      LAKE_WORKGROUP: this.workGroupName,
      LAKE_DATABASE: this.databaseName,
      QUERY_WAIT_MS: String(SEARCH_TIMEOUT.toMilliseconds() - 4_000),
    };
    const fn = new PipelineFunction(this, 'SearchFunction', {
      entry: 'lambdas/lake-search/handler.ts',
      description: 'Read API lake routes: transcript search and stats over every meeting, through Athena',
      serviceName: SERVICES.lakeSearch,
      timeout: SEARCH_TIMEOUT,
      // Waits on Athena and shapes at most a page of rows.
      memorySize: 512,
      settings: props.functions,
      environment,
      failureHandling:
        'Invoked synchronously by the HTTP API: a failure is a 500 with a reason, logged with its cause.',
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'athena:StartQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:StopQueryExecution',
        ],
        resources: [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workGroupName })],
      }),
    );
    // Athena reads the catalogue as the caller: the database and its tables, named one by one.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartition', 'glue:GetPartitions'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
          ...tableNames.map((name) =>
            stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${this.databaseName}/${name}` }),
          ),
        ],
      }),
    );
    // Athena reads the lake's files and writes and reads results as the caller too.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.bucket.arnForObjects(`${LAKE_PREFIX}*`)],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [props.bucket.arnForObjects(`${LAKE_RESULTS_PREFIX}*`)],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${LAKE_PREFIX}*`, `${LAKE_RESULTS_PREFIX}*`] } },
      }),
    );
    // Athena asks where the bucket is before reading or writing it (a bucket action, no object).
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [props.bucket.bucketArn] }));
    props.bucket.encryptionKey?.grantEncryptDecrypt(fn);
    const role = required(fn.role, 'the lake search function role');
    acknowledge(
      role,
      wildcardResourceId(props.bucket, `/${LAKE_PREFIX}*`),
      'GetObject under lake/ only: the Parquet files Athena reads for this function.',
    );
    acknowledge(
      role,
      wildcardResourceId(props.bucket, `/${LAKE_RESULTS_PREFIX}*`),
      'Get and put under lake-results/ only: where the workgroup writes query results (expiring).',
    );

    const integration = new HttpLambdaIntegration('LakeSearchIntegration', fn);
    const authorizer = new HttpIamAuthorizer();
    for (const routeKey of Object.values(LAKE_SEARCH_ROUTES)) {
      const [method, path] = routeKey.split(' ') as [string, string];
      props.api.addRoutes({ path, methods: [method as HttpMethod], integration, authorizer });
    }
    return fn;
  }

  private compaction(props: MeetingsLakeProps): PipelineFunction {
    const fn = new PipelineFunction(this, 'CompactionFunction', {
      entry: 'lambdas/lake-compaction/handler.ts',
      description: "Compacts each closed lake day's per-meeting files into one file per table",
      serviceName: SERVICES.lakeCompaction,
      timeout: COMPACTION_TIMEOUT,
      // A day's rows are decoded and encoded in memory: ~1.2 M utterances at 2,000 meetings a day,
      // ~1.1 GiB in the bench; the second fold holds the compacted rows and the recent ones at once.
      memorySize: 3008,
      settings: props.functions,
      environment: {
        TABLE_NAME: props.table.tableName,
        LAKE_BUCKET: props.bucket.bucketName,
        COMPACT_AFTER_HOURS: String(props.compactAfterHours),
      },
      failureHandling:
        'Run daily by a schedule: a failed run leaves its days to the next run, and LakeDaysAwaitingCompaction alarms when they pile up.',
    });
    // The day lease only: conditional put, renewal, release.
    grantTableItems(fn, props.table, [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ]);
    this.grantLakeObjects(fn, { [LAKE_PREFIX]: ['s3:GetObject', 's3:PutObject', 's3:DeleteObjectVersion'] });
    const rule = new Rule(this, 'CompactionSchedule', {
      description: 'Compacts closed lake days',
      // Early morning UTC: the day before yesterday has closed (compactAfterHours) for every time zone's late archive.
      schedule: Schedule.cron({ minute: '15', hour: '6' }),
      targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
    });
    acknowledge(
      rule,
      'Serverless-EventBusDLQ',
      "A missed run carries nothing to keep: the next day's run compacts the same days.",
    );
    acknowledge(
      required(fn.role, 'the lake compaction function role'),
      wildcardResourceId(props.bucket, `/${LAKE_PREFIX}*`),
      'Reads, writes and deletes versions under lake/ only: the files it compacts.',
    );
    return fn;
  }

  /** Object actions under each prefix named, and listing (versions too) of those prefixes only. */
  private grantLakeObjects(fn: IGrantable, actionsByPrefix: Record<string, readonly string[]>): void {
    for (const [prefix, actions] of Object.entries(actionsByPrefix)) {
      fn.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({ actions: [...actions], resources: [this.bucket.arnForObjects(`${prefix}*`)] }),
      );
    }
    fn.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket', 's3:ListBucketVersions'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': Object.keys(actionsByPrefix).map((prefix) => `${prefix}*`) } },
      }),
    );
    this.bucket.encryptionKey?.grantEncryptDecrypt(fn);
  }

  /**
   * The archive function writes a meeting's rows into its recent files and, for a day already compacted,
   * folds them into the day's compacted files (deleting the recent versions it merged).
   */
  grantLakeWrites(fn: PipelineFunction, table: ITableV2): void {
    this.grantLakeObjects(fn, { [LAKE_PREFIX]: ['s3:GetObject', 's3:PutObject', 's3:DeleteObjectVersion'] });
    // The rows are built with the read core's transcript reader, whose unknown-bot check looks for the
    // bot's webhook ledger records when there is no meeting item: a Query there, never a write.
    grantTableItems(fn, table, ['dynamodb:Query'], ['events']);
    // Folding into a compacted day happens under the day's lease (TABLE_PARTITIONS), released by a delete.
    grantTableItems(fn, table, ['dynamodb:DeleteItem'], ['lakeDay']);
    acknowledge(
      required(fn.role, `the ${fn.serviceName} function role`),
      wildcardResourceId(this.bucket, `/${LAKE_PREFIX}*`),
      "Writes and folds a meeting's lake files under lake/ only.",
    );
  }

  /**
   * The erase function (erasure and retention) rewrites compacted files without a meeting's rows, deletes
   * its recent files and every version holding its rows, and every query result; its LAKE_BUCKET is set here.
   */
  grantLakeErasure(fn: PipelineFunction): void {
    // Named here, with the grant, so an erase function that may reach the lake always knows where it is.
    const environment: LakeErasureEnvironment = { LAKE_BUCKET: this.bucket.bucketName };
    for (const [name, value] of Object.entries(environment)) fn.addEnvironment(name, value);
    this.grantLakeObjects(fn, {
      [LAKE_PREFIX]: ['s3:GetObject', 's3:PutObject', 's3:DeleteObjectVersion'],
      // Results are listed and every version deleted (lake-erasure.ts says why); never written.
      [LAKE_RESULTS_PREFIX]: ['s3:GetObject', 's3:DeleteObjectVersion'],
    });
    const role = required(fn.role, `the ${fn.serviceName} function role`);
    acknowledge(
      role,
      wildcardResourceId(this.bucket, `/${LAKE_PREFIX}*`),
      "Rewrites and deletes versions under lake/ only: a meeting's rows, or whole days past retention.",
    );
    acknowledge(
      role,
      wildcardResourceId(this.bucket, `/${LAKE_RESULTS_PREFIX}*`),
      'Reads and deletes versions under lake-results/ only: query results that name an erased meeting.',
    );
  }
}
