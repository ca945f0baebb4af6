/**
 * The shapes handlers work with: a request already split into bucket, key and query (path-style,
 * as the SDK sends with forcePathStyle), and an answer the server writes. Also the checks every
 * handler shares: which query parameters and headers it understands, so anything else is refused
 * with 501 instead of being ignored.
 */
import type { IncomingMessage } from 'node:http';
import { invalidArgument, notImplemented } from './errors';
import { type XmlNode, xmlDocument } from './xml';

export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  /** The request's headers, with those a presigned URL carries in its query (hoistedHeaders). */
  headers: Record<string, string>;
  raw: IncomingMessage;
}

export interface S3Response {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export const OWNER = { ID: '75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a', DisplayName: 'local' };

export const xmlResponse = (root: XmlNode, status = 200, headers: Record<string, string> = {}): S3Response => ({
  status,
  headers: { 'content-type': 'application/xml', ...headers },
  body: xmlDocument(root),
});

export function header(request: S3Request, name: string): string | undefined {
  return request.headers[name];
}

/** The prefix of a header SigV4 presigning moved into the query: S3 reads it there by this lower-case name only. */
const HOISTED_HEADER_PREFIX = 'x-amz-';

/** Query-string authentication: only a presigned URL carries headers in its query. */
export const isPresigned = (query: URLSearchParams): boolean => query.has('X-Amz-Signature');

/**
 * The headers a presigned URL carries as query parameters (`x-amz-checksum-mode=ENABLED`, as the
 * SDK's presigner writes it), which S3 takes as those headers. Names are case-sensitive, as S3's
 * query parameters are: `X-Amz-Checksum-Mode` is not the header, and allowQuery refuses it.
 */
export function hoistedHeaders(query: URLSearchParams): Record<string, string> {
  const hoisted: Record<string, string> = {};
  for (const name of new Set(query.keys())) {
    if (name.startsWith(HOISTED_HEADER_PREFIX)) hoisted[name] = query.getAll(name).join(',');
  }
  return hoisted;
}

/** The request's headers as one value each, joined as HTTP joins repeated ones. */
export function joinedHeaders(raw: IncomingMessage): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return joined;
}

/**
 * Query parameters any request may carry without changing what it does: the SDK's operation
 * name (x-id) and a presigned URL's signature parameters, named exactly as SigV4 names them.
 */
const INERT_QUERY =
  /^(x-id|X-Amz-(Algorithm|Credential|Date|Expires|SignedHeaders|Signature|Security-Token|Content-Sha256))$/;

/**
 * Refuses (501) any query parameter the operation does not implement. A hoisted header (a
 * presigned URL's) is judged as the header it is, by the operation's header checks.
 */
export function allowQuery(request: S3Request, operation: string, allowed: readonly string[]): void {
  for (const name of request.query.keys()) {
    if (allowed.includes(name) || INERT_QUERY.test(name)) continue;
    if (isPresigned(request.query) && name.startsWith(HOISTED_HEADER_PREFIX)) continue;
    throw notImplemented(`${operation} with ?${name}`);
  }
}

/** Refuses (501) headers that would change the operation's meaning in a way this emulator does not model. */
export function refuseHeaders(request: S3Request, operation: string, names: readonly string[]): void {
  for (const name of Object.keys(request.headers)) {
    if (names.some((refused) => (refused.endsWith('*') ? name.startsWith(refused.slice(0, -1)) : name === refused))) {
      throw notImplemented(`${operation} with header ${name}`);
    }
  }
}

/** Headers that store an object under conditions, encryption, locks, tags or a storage class this emulator lacks. */
export const UNMODELLED_WRITE_HEADERS = [
  'x-amz-server-side-encryption*',
  'x-amz-object-lock-*',
  'x-amz-tagging',
  'x-amz-website-redirect-location',
  'x-amz-grant-*',
  'if-match',
  'if-none-match',
  'x-amz-write-offset-bytes',
];

/** S3 keeps no ACLs here; the default (private) is the only one accepted. */
export function refuseAcl(request: S3Request, operation: string): void {
  const acl = header(request, 'x-amz-acl');
  if (acl !== undefined && acl !== 'private') throw notImplemented(`${operation} with x-amz-acl: ${acl}`);
  const storageClass = header(request, 'x-amz-storage-class');
  if (storageClass !== undefined && storageClass !== 'STANDARD') {
    throw notImplemented(`${operation} with storage class ${storageClass}`);
  }
}

/**
 * Stored system headers beyond Content-Type are not kept, so an upload that sets them is refused;
 * aws-chunked is only the SDK's transfer framing, removed before storing.
 */
export function refuseSystemHeaders(request: S3Request, operation: string): void {
  refuseHeaders(request, operation, ['cache-control', 'content-disposition', 'content-language', 'expires']);
  const encodings = (header(request, 'content-encoding') ?? '').split(',').map((e) => e.trim());
  const stored = encodings.filter((e) => e !== '' && e !== 'aws-chunked');
  if (stored.length > 0) throw notImplemented(`${operation} with content-encoding ${stored.join(',')}`);
}

/** An integer query parameter in [min, max], else S3's InvalidArgument. */
export function intParam(request: S3Request, name: string, fallback: number, min: number, max: number): number {
  const text = request.query.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < min) {
    throw invalidArgument(`Provided ${name} not an integer or within integer range`, name, text);
  }
  return Math.min(value, max);
}

/** x-amz-meta-* headers, names lowercased as S3 returns them. */
export function userMetadata(request: S3Request): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith('x-amz-meta-')) metadata[name.slice('x-amz-meta-'.length)] = value;
  }
  return metadata;
}

export const metadataHeaders = (metadata: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(metadata).map(([name, value]) => [`x-amz-meta-${name}`, value]));

export const isoDate = (date: Date): string => date.toISOString();
export const httpDate = (date: Date): string => date.toUTCString();

/** encoding-type=url: names in a listing are URL-encoded (as S3 does, '/' kept) so any byte survives XML. */
export function encoder(request: S3Request): (name: string) => string {
  const type = request.query.get('encoding-type');
  if (type === null) return (name) => name;
  if (type !== 'url') throw invalidArgument('Invalid Encoding Method specified in Request', 'encoding-type', type);
  return (name) => encodeURIComponent(name).replaceAll('%2F', '/');
}
