/**
 * The event an API Gateway HTTP API (payload format 2.0) gives a function for one request: the
 * route key and raw path, headers lower-cased with repeated ones joined by commas, cookies apart,
 * query parameters likewise joined, the request context (request id, method, path, source ip),
 * and the body as text or, when it is not text, base64. An IAM-authorized route adds the caller
 * under `requestContext.authorizer.iam`. The local HTTP API server and the tests that invoke the
 * deployed bundles both build their events here.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface IamCaller {
  accountId: string;
  /** The caller's ARN, e.g. `arn:aws:iam::111111111111:user/ops`. */
  userArn: string;
  accessKey?: string;
}

/** `requestContext.authorizer.iam` as API Gateway sends it (null where the caller has no such thing). */
export interface IamAuthorizerContext {
  accessKey: string;
  accountId: string;
  callerId: string;
  cognitoIdentity: null;
  principalOrgId: string | null;
  userArn: string;
  userId: string;
}

/** The event, with the IAM caller when the route is IAM-authorized. */
export type HttpApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & { authorizer?: { iam: IamAuthorizerContext } };
};

export interface HttpApiRequest {
  /** The matched route, `POST /webhooks`, `GET /meetings/{bot_id}`… */
  routeKey: string;
  method: string;
  /** The path as sent, still percent-encoded. */
  rawPath: string;
  /** Without the leading `?`. */
  rawQueryString?: string;
  headers?: Record<string, string | string[] | undefined>;
  pathParameters?: Record<string, string>;
  body?: Buffer | string;
  sourceIp?: string;
  /** The caller of an IAM-authorized route. */
  iam?: IamCaller;
  /** Base64 whatever the content type (the local server's choice: the bytes stay exact). */
  alwaysBase64?: boolean;
}

/** Content types API Gateway passes as text; any other body arrives base64-encoded. */
const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml)\b)/i;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The request time as API Gateway writes it: `27/Nov/2026:18:12:05 +0000`. */
export function requestTime(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString))
    params[name] = name in params ? `${params[name]},${value}` : value;
  return Object.keys(params).length === 0 ? undefined : params;
}

function bodyOf(request: HttpApiRequest, contentType: string): { body?: string; isBase64Encoded: boolean } {
  if (request.body === undefined || request.body.length === 0) return { isBase64Encoded: false };
  const bytes = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const text = bytes.toString('utf8');
  const isText = TEXT_TYPE.test(contentType) && Buffer.from(text, 'utf8').equals(bytes);
  return !request.alwaysBase64 && isText
    ? { body: text, isBase64Encoded: false }
    : { body: bytes.toString('base64'), isBase64Encoded: true };
}

export function httpApiEvent(request: HttpApiRequest): HttpApiEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  const cookies = headers.cookie?.split(/;\s*/).filter((cookie) => cookie !== '');
  delete headers.cookie;
  const rawQueryString = request.rawQueryString ?? '';
  const query = queryParameters(rawQueryString);
  const now = Date.now();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath: request.rawPath,
    rawQueryString,
    ...(cookies !== undefined && cookies.length > 0 && { cookies }),
    headers,
    ...(query !== undefined && { queryStringParameters: query }),
    ...(request.pathParameters !== undefined && { pathParameters: request.pathParameters }),
    requestContext: {
      accountId: request.iam?.accountId ?? '000000000000',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: request.method,
        path: request.rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: request.routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now,
    },
    ...bodyOf(request, headers['content-type'] ?? ''),
  };
  if (request.iam === undefined) return event;
  const userId = request.iam.userArn.split('/').pop() ?? '';
  return {
    ...event,
    requestContext: {
      ...event.requestContext,
      authorizer: {
        iam: {
          accessKey: request.iam.accessKey ?? 'ASIALOCALCALLER00000',
          accountId: request.iam.accountId,
          callerId: userId,
          cognitoIdentity: null,
          principalOrgId: null,
          userArn: request.iam.userArn,
          userId,
        },
      },
    },
  };
}
