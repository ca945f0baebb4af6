/**
 * The read API: meetings, transcripts (JSON, text, WebVTT, SRT), participants,
 * recording links and the delivery log, as routes on the stack's HTTP API, every
 * one IAM-authorized (SigV4): who may read meetings is decided by IAM policy on
 * `execute-api:Invoke`, as for the schedule API.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { SUMMARY_PREFIX } from '../lambdas/core/apply/summary';
import { READ_API_ROUTES } from '../lambdas/core/read/read-api-contract';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import type { ReadApiEnvironment } from '../lambdas/read-api/environment';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, wildcardResourceId } from './nag';
import { MEETINGS_PREFIX } from './recording-archive';

export interface ReadApiProps {
  api: PipelineHttpApi;
  table: ITableV2;
  recordingsBucket: IBucket;
  payloadBucket: IBucket;
  recordingLinkMinutes: number;
  functions: FunctionSettings;
}

export class ReadApi extends Construct {
  readonly function: PipelineFunction;
  /** The API base the read routes hang off (no trailing slash). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ReadApiProps) {
    super(scope, id);
    const environment: { [K in keyof ReadApiEnvironment]: string } = {
      TABLE_NAME: props.table.tableName,
      RECORDINGS_BUCKET: props.recordingsBucket.bucketName,
      PAYLOAD_BUCKET: props.payloadBucket.bucketName,
      RECORDING_LINK_SECONDS: String(props.recordingLinkMinutes * 60),
    };
    this.function = new PipelineFunction(this, 'ReadApiFunction', {
      entry: 'lambdas/read-api/handler.ts',
      description: 'Read API: meetings, transcripts, participants, recording links and delivery logs',
      serviceName: SERVICES.readApi,
      // A long transcript is a few pages of one partition; answering well inside the HTTP API's 30 s.
      timeout: Duration.seconds(20),
      // Formatting a long transcript is string work on a few MB at most.
      memorySize: 512,
      settings: props.functions,
      environment,
      failureHandling:
        'Invoked synchronously by the HTTP API: a failure is a 500 with a reason, logged with its cause.',
    });
    // Reads only: items, a meeting's partition, a day's listing, a delivery log; no index.
    grantTableItems(this.function, props.table, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']);
    // The recording link is presigned with this role: it may read archived objects, nothing else.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.recordingsBucket.arnForObjects(`${MEETINGS_PREFIX}*`)],
      }),
    );
    // A summary too long for its item is kept in the payload bucket.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.payloadBucket.arnForObjects(`${SUMMARY_PREFIX}*`)],
      }),
    );
    const role = required(this.function.role, 'the read API function role');
    acknowledge(
      role,
      wildcardResourceId(props.recordingsBucket, `/${MEETINGS_PREFIX}*`),
      'GetObject under meetings/ only: the archived objects a recording link points to.',
    );
    acknowledge(
      role,
      wildcardResourceId(props.payloadBucket, `/${SUMMARY_PREFIX}*`),
      'GetObject on the summaries prefix only: long summaries kept out of their item.',
    );

    const integration = new HttpLambdaIntegration('ReadApiIntegration', this.function);
    const authorizer = new HttpIamAuthorizer();
    for (const routeKey of Object.values(READ_API_ROUTES)) {
      const [method, path] = routeKey.split(' ') as [string, string];
      props.api.addRoutes({ path, methods: [method as HttpMethod], integration, authorizer });
    }
    this.url = props.api.url;
  }
}
