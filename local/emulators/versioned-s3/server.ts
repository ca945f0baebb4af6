/**
 * The HTTP side: path-style addressing (/bucket/key), the authentication S3 insists on (a SigV4
 * Authorization header or a presigned URL; signatures are not checked, their presence and expiry
 * are), and every error written as S3 writes it: `<Error>` XML, or the bare status for HEAD.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { S3Error } from './errors';
import { hoistedHeaders, isPresigned, joinedHeaders, type S3Request, type S3Response } from './http';
import { route } from './router';
import type { Store } from './store';
import { el, parent, xmlDocument } from './xml';

function requireAuthentication(request: IncomingMessage, query: URLSearchParams): void {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    if (!/^AWS4-HMAC-SHA256 Credential=[^,]+,\s*SignedHeaders=[^,]+,\s*Signature=[0-9a-f]+$/.test(authorization)) {
      throw new S3Error('AuthorizationHeaderMalformed', 400, 'The authorization header is malformed.');
    }
    if (request.headers['x-amz-content-sha256'] === undefined) {
      throw new S3Error('InvalidRequest', 400, 'Missing required header for this request: x-amz-content-sha256');
    }
    if (request.headers['x-amz-date'] === undefined && request.headers.date === undefined) {
      throw new S3Error('AccessDenied', 403, 'AWS authentication requires a valid Date or x-amz-date header');
    }
    return;
  }
  if (query.has('X-Amz-Signature')) {
    const algorithm = query.get('X-Amz-Algorithm');
    const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(query.get('X-Amz-Date') ?? '');
    const expires = Number(query.get('X-Amz-Expires'));
    if (algorithm !== 'AWS4-HMAC-SHA256' || !query.has('X-Amz-Credential') || date === null || !(expires > 0)) {
      throw new S3Error(
        'AuthorizationQueryParametersError',
        400,
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    }
    const [, y, mo, d, h, mi, s] = date;
    const signedAt = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (Date.now() > signedAt + expires * 1000) throw new S3Error('AccessDenied', 403, 'Request has expired');
    return;
  }
  throw new S3Error('AccessDenied', 403, 'Access Denied');
}

function parse(request: IncomingMessage): S3Request {
  const url = new URL(request.url ?? '/', 'http://localhost');
  requireAuthentication(request, url.searchParams);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname.slice(1));
  } catch {
    throw new S3Error('InvalidURI', 400, "Couldn't parse the specified URI.");
  }
  const slash = path.indexOf('/');
  const query = url.searchParams;
  // A header sent as a header stands; one a presigned URL hoisted into its query fills in for it.
  const hoisted = isPresigned(query) ? hoistedHeaders(query) : {};
  return {
    method: request.method ?? 'GET',
    bucket: slash < 0 ? path : path.slice(0, slash),
    key: slash < 0 ? '' : path.slice(slash + 1),
    query,
    headers: { ...hoisted, ...joinedHeaders(request) },
    raw: request,
  };
}

function errorResponse(error: S3Error, requestId: string, resource: string): S3Response {
  const body = xmlDocument(
    parent('Error', [
      el('Code', error.code),
      el('Message', error.message),
      ...Object.entries(error.fields).map(([name, value]) => el(name, value)),
      el('Resource', resource),
      el('RequestId', requestId),
    ]),
  );
  return { status: error.status, headers: { 'content-type': 'application/xml', ...error.headers }, body };
}

/** The request listener: every request answered, every failure as an S3 error. */
export function handler(store: Store) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    let answer: S3Response;
    try {
      answer = await route(store, parse(request));
    } catch (error) {
      // Anything but an S3Error is a bug in the emulator: answered as S3's InternalError, with its message to find it.
      const s3Error =
        error instanceof S3Error ? error : new S3Error('InternalError', 500, `emulator failure: ${String(error)}`);
      answer = errorResponse(s3Error, requestId, new URL(request.url ?? '/', 'http://localhost').pathname);
    }
    const body = request.method === 'HEAD' ? undefined : answer.body;
    const headers: Record<string, string> = {
      'x-amz-request-id': requestId,
      'x-amz-id-2': requestId,
      server: 'AmazonS3',
      ...answer.headers,
    };
    // HEAD answers describe the body a GET would have sent; other answers carry their own length.
    if (request.method !== 'HEAD' || headers['content-length'] === undefined) {
      headers['content-length'] = String(body === undefined ? 0 : Buffer.byteLength(body));
    }
    response.writeHead(answer.status, headers);
    response.end(body);
  };
}
