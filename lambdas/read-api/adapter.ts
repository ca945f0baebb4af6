import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiError, failureDetails, internalErrorResponse } from '../core/api-error';
import { meetingDeliveryLog, objectDeliveryLog } from '../core/read/delivery-log';
import { getMeeting } from '../core/read/get-meeting';
import { listMeetings } from '../core/read/list-meetings';
import { transcriptFormat } from '../core/read/query-params';
import { READ_API_ROUTES, TRANSCRIPT_CONTENT_TYPES } from '../core/read/read-api-contract';
import type { ReadDependencies } from '../core/read/read-dependencies';
import { ReadApiError } from '../core/read/read-errors';
import { readParticipants } from '../core/read/read-participants';
import { readTranscript } from '../core/read/read-transcript';
import { recordingLinkOf } from '../core/read/recording-link';
import { toPlainText, toSrt, toWebVtt } from '../core/read/transcript-formats';
import type { Telemetry } from '../core/telemetry';
import { s3ReadObjects } from '../shared/s3-read-objects';
import type { ReadApiEnvironment } from './environment';

export type ReadApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** Wires the read core to its clients; the Lambda, local mode and tests all build it this way. */
export function readApiDependencies(
  env: ReadApiEnvironment,
  clients: { db: DynamoDBDocumentClient; s3: S3Client },
  now: () => Date = () => new Date(),
): ReadDependencies {
  return {
    table: { db: clients.db, tableName: env.TABLE_NAME },
    objects: s3ReadObjects(clients.s3),
    recordingLinkSeconds: env.RECORDING_LINK_SECONDS,
    now,
  };
}

type Answer = { body: unknown } | { text: string; contentType: string };
type Params = Readonly<Record<string, string | undefined>>;
type Route = (botId: string, params: Params, deps: ReadDependencies) => Promise<Answer>;

const json = (body: unknown): Answer => ({ body });

const ROUTES: Record<string, Route> = {
  [READ_API_ROUTES.listMeetings]: async (_bot, params, deps) => json(await listMeetings(params, deps)),
  [READ_API_ROUTES.getMeeting]: async (bot, _params, deps) => json(await getMeeting(bot, deps)),
  [READ_API_ROUTES.transcript]: async (bot, params, deps) => {
    const format = transcriptFormat(params);
    const transcript = await readTranscript(bot, deps.table);
    if (format === 'json') return json(transcript);
    const render = { text: toPlainText, vtt: toWebVtt, srt: toSrt }[format];
    return { text: render(transcript.utterances), contentType: TRANSCRIPT_CONTENT_TYPES[format] };
  },
  [READ_API_ROUTES.participants]: async (bot, _params, deps) => json(await readParticipants(bot, deps.table)),
  [READ_API_ROUTES.recording]: async (bot, _params, deps) => json(await recordingLinkOf(bot, deps)),
  [READ_API_ROUTES.meetingEvents]: async (bot, params, deps) => json(await meetingDeliveryLog(bot, params, deps.table)),
  [READ_API_ROUTES.objectEvents]: async (_bot, params, deps) => json(await objectDeliveryLog(params, deps.table)),
};

function respond(status: number, answer: Answer): APIGatewayProxyStructuredResultV2 {
  const headers = { 'cache-control': 'no-store' };
  return 'text' in answer
    ? { statusCode: status, headers: { ...headers, 'content-type': answer.contentType }, body: answer.text }
    : {
        statusCode: status,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(answer.body),
      };
}

const error = (status: number, code: string, message: string) => respond(status, json(apiError(code, message)));

/**
 * Every read route (API Gateway payload format 2.0), dispatched by route key. A bad request or an
 * unknown bot is a 400 or 404 with its code and reason; anything else is logged with its stack and answered
 * with a bare 500, so no internals reach the caller.
 */
export function createReadApiHandler(deps: ReadDependencies, telemetry: Telemetry): ReadApiHandler {
  return async (event) => {
    const route = ROUTES[event.routeKey];
    if (route === undefined) return error(404, 'no-route', `no read route ${event.routeKey}`);
    try {
      return respond(200, await route(event.pathParameters?.bot_id ?? '', event.queryStringParameters ?? {}, deps));
    } catch (failure) {
      if (failure instanceof ReadApiError) return error(failure.status, failure.code, failure.message);
      telemetry.log.error('read request failed', {
        route: event.routeKey,
        request_id: event.requestContext.requestId,
        ...failureDetails(failure),
      });
      return internalErrorResponse(event.requestContext.requestId);
    }
  };
}
