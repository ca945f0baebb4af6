/**
 * The payload-format-2.0 event (local/http-api-event.ts) as an HTTP API builds it: headers
 * lower-cased and joined, cookies apart, query parameters joined, text bodies as text and other
 * bodies as base64, the IAM caller on IAM routes.
 */
import { describe, expect, it } from 'vitest';
import { httpApiEvent, requestTime } from '../../local/http-api-event';

describe('the HTTP API event', () => {
  it('carries the route, path, headers, cookies and query as API Gateway gives them', () => {
    const event = httpApiEvent({
      routeKey: 'GET /meetings/{bot_id}',
      method: 'GET',
      rawPath: '/meetings/bot%201',
      rawQueryString: 'limit=5&tag=a&tag=b',
      headers: { 'X-Trace': ['one', 'two'], Cookie: 'a=1; b=2', Host: 'api.example' },
      pathParameters: { bot_id: 'bot 1' },
      sourceIp: '203.0.113.9',
    });
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /meetings/{bot_id}',
      rawPath: '/meetings/bot%201',
      headers: { 'x-trace': 'one,two', host: 'api.example' },
      cookies: ['a=1', 'b=2'],
      queryStringParameters: { limit: '5', tag: 'a,b' },
      pathParameters: { bot_id: 'bot 1' },
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'GET', path: '/meetings/bot%201', sourceIp: '203.0.113.9' },
        routeKey: 'GET /meetings/{bot_id}',
        stage: '$default',
      },
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.body).toBeUndefined();
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.requestContext.authorizer).toBeUndefined();
  });

  it('passes a JSON body as text and a binary one as base64', () => {
    const json = httpApiEvent({
      routeKey: 'POST /webhooks',
      method: 'POST',
      rawPath: '/webhooks',
      headers: { 'content-type': 'application/json' },
      body: '{"word":"café"}',
    });
    expect(json).toMatchObject({ body: '{"word":"café"}', isBase64Encoded: false });
    const binary = Buffer.from([0xff, 0x00, 0x10]);
    expect(
      httpApiEvent({
        routeKey: 'POST /webhooks',
        method: 'POST',
        rawPath: '/webhooks',
        headers: { 'content-type': 'application/octet-stream' },
        body: binary,
      }),
    ).toMatchObject({ body: binary.toString('base64'), isBase64Encoded: true });
    const notUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(
      httpApiEvent({
        routeKey: 'POST /webhooks',
        method: 'POST',
        rawPath: '/webhooks',
        headers: { 'content-type': 'application/json' },
        body: notUtf8,
      }),
    ).toMatchObject({ body: notUtf8.toString('base64'), isBase64Encoded: true });
  });

  it('names the IAM caller of an IAM-authorized route', () => {
    const event = httpApiEvent({
      routeKey: 'DELETE /meetings/{bot_id}',
      method: 'DELETE',
      rawPath: '/meetings/bot_1',
      iam: { accountId: '111111111111', userArn: 'arn:aws:iam::111111111111:user/ops' },
    });
    expect(event.requestContext.accountId).toBe('111111111111');
    expect(event.requestContext.authorizer?.iam).toMatchObject({
      accountId: '111111111111',
      userArn: 'arn:aws:iam::111111111111:user/ops',
      userId: 'ops',
      principalOrgId: null,
    });
  });

  it('writes the request time as API Gateway does', () => {
    expect(requestTime(Date.UTC(2026, 10, 27, 8, 5, 9))).toBe('27/Nov/2026:08:05:09 +0000');
  });
});
