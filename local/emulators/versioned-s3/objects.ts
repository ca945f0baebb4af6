/**
 * One object's operations: PutObject, GetObject/HeadObject (latest or by version id), DeleteObject
 * (a delete marker, or a version removed for good) and CopyObject. Statuses and headers follow the
 * S3 API reference for versioned buckets: the latest being a delete marker is 404 NoSuchKey with
 * x-amz-delete-marker; naming a delete marker's version id is 405 MethodNotAllowed; a missing
 * version is 404 NoSuchVersion.
 */
import { readPayload } from './body';
import { md5Hex } from './checksums';
import { invalidArgument, noSuchKey, noSuchVersion, notImplemented, S3Error } from './errors';
import {
  allowQuery,
  header,
  httpDate,
  isoDate,
  metadataHeaders,
  refuseAcl,
  refuseHeaders,
  refuseSystemHeaders,
  type S3Request,
  type S3Response,
  UNMODELLED_WRITE_HEADERS,
  userMetadata,
  xmlResponse,
} from './http';
import type { Bucket, ObjectContent, Store, StoredVersion } from './store';
import { el, parent } from './xml';

/** S3 answers version ids on objects of buckets that have ever had versioning enabled. */
const versionHeader = (bucket: Bucket, versionId: string): Record<string, string> =>
  bucket.versioning === 'Unversioned' ? {} : { 'x-amz-version-id': versionId };

const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';

export function contentTypeOf(request: S3Request): string {
  return header(request, 'content-type') ?? DEFAULT_CONTENT_TYPE;
}

export async function putObject(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'PutObject', []);
  refuseHeaders(request, 'PutObject', UNMODELLED_WRITE_HEADERS);
  refuseSystemHeaders(request, 'PutObject');
  refuseAcl(request, 'PutObject');
  const bucket = store.bucket(request.bucket);
  const payload = await readPayload(request);
  const content: ObjectContent = {
    body: payload.bytes,
    etag: `"${md5Hex(payload.bytes)}"`,
    contentType: contentTypeOf(request),
    metadata: userMetadata(request),
    checksum: payload.checksum,
  };
  const version = store.put(bucket, request.key, content);
  const checksumHeader = payload.checksum
    ? { [`x-amz-checksum-${payload.checksum.algorithm}`]: payload.checksum.value }
    : {};
  return {
    status: 200,
    headers: { etag: content.etag, ...versionHeader(bucket, version.versionId), ...checksumHeader },
  };
}

/** The version a GET, HEAD or copy names, with S3's errors for a missing one or a delete marker. */
function resolve(store: Store, bucket: Bucket, key: string, versionId: string | null, method: string): StoredVersion {
  if (versionId !== null) {
    if (versionId === '') throw invalidArgument('Version id cannot be the empty string', 'versionId', '');
    const version = store.version(bucket, key, versionId);
    if (version === undefined) throw noSuchVersion(key, versionId);
    if (version.deleteMarker) {
      throw new S3Error(
        'MethodNotAllowed',
        405,
        'The specified method is not allowed against this resource.',
        { Method: method, ResourceType: 'DeleteMarker' },
        {
          'x-amz-delete-marker': 'true',
          'x-amz-version-id': version.versionId,
          'last-modified': httpDate(version.lastModified),
          allow: 'DELETE',
        },
      );
    }
    return version;
  }
  const latest = store.latest(bucket, key);
  if (latest === undefined) throw noSuchKey(key);
  if (latest.deleteMarker) {
    throw noSuchKey(key, { 'x-amz-delete-marker': 'true', ...versionHeader(bucket, latest.versionId) });
  }
  return latest;
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges at once are refused. */
function range(text: string, size: number): { start: number; end: number } {
  const match = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (match === null) {
    if (text.includes(',')) throw notImplemented('GetObject with several byte ranges');
    throw new S3Error('InvalidRange', 416, 'The requested range is not satisfiable');
  }
  const [, first = '', last = ''] = match;
  let start: number;
  let end: number;
  if (first === '') {
    start = Math.max(0, size - Number(last));
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (first === '' && last === '') throw new S3Error('InvalidRange', 416, 'The requested range is not satisfiable');
  if (start >= size || start > end) {
    throw new S3Error('InvalidRange', 416, 'The requested range is not satisfiable', { RangeRequested: text });
  }
  return { start, end };
}

const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'content-type',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
  'response-content-language': 'content-language',
  'response-cache-control': 'cache-control',
  'response-expires': 'expires',
};

export function getObject(store: Store, request: S3Request, head: boolean): S3Response {
  const operation = head ? 'HeadObject' : 'GetObject';
  allowQuery(request, operation, ['versionId', ...Object.keys(RESPONSE_OVERRIDES)]);
  refuseHeaders(request, operation, [
    'if-match',
    'if-none-match',
    'if-modified-since',
    'if-unmodified-since',
    'x-amz-server-side-encryption-customer-*',
  ]);
  const bucket = store.bucket(request.bucket);
  const version = resolve(store, bucket, request.key, request.query.get('versionId'), head ? 'HEAD' : 'GET');
  const content = version.content;
  if (content === undefined) throw new Error('a stored version without content is a delete marker');
  const headers: Record<string, string> = {
    'content-type': content.contentType,
    etag: content.etag,
    'last-modified': httpDate(version.lastModified),
    'accept-ranges': 'bytes',
    ...versionHeader(bucket, version.versionId),
    ...metadataHeaders(content.metadata),
  };
  if (content.checksum !== undefined && header(request, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED') {
    headers[`x-amz-checksum-${content.checksum.algorithm}`] = content.checksum.value;
  }
  for (const [parameter, name] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = request.query.get(parameter);
    if (value !== null) headers[name] = value;
  }
  const rangeHeader = header(request, 'range');
  if (rangeHeader === undefined) {
    headers['content-length'] = String(content.body.length);
    return { status: 200, headers, body: head ? undefined : content.body };
  }
  const { start, end } = range(rangeHeader, content.body.length);
  // A part of the object has no checksum of its own.
  for (const name of Object.keys(headers)) if (name.startsWith('x-amz-checksum-')) delete headers[name];
  headers['content-range'] = `bytes ${start}-${end}/${content.body.length}`;
  headers['content-length'] = String(end - start + 1);
  return { status: 206, headers, body: head ? undefined : content.body.subarray(start, end + 1) };
}

export function deleteObject(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'DeleteObject', ['versionId']);
  refuseHeaders(request, 'DeleteObject', ['x-amz-mfa', 'x-amz-bypass-governance-retention', 'if-match']);
  const bucket = store.bucket(request.bucket);
  const versionId = request.query.get('versionId');
  if (versionId !== null) {
    if (versionId === '') throw invalidArgument('Version id cannot be the empty string', 'versionId', '');
    const removed = store.deleteVersion(bucket, request.key, versionId);
    const headers: Record<string, string> = { 'x-amz-version-id': versionId };
    if (removed?.deleteMarker === true) headers['x-amz-delete-marker'] = 'true';
    return { status: 204, headers };
  }
  const marker = store.deleteLatest(bucket, request.key);
  if (marker === undefined) return { status: 204 };
  return { status: 204, headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': marker.versionId } };
}

/** x-amz-copy-source: `[/]bucket/key[?versionId=…]`, the key URL-encoded. */
function copySource(text: string): { bucket: string; key: string; versionId: string | null } {
  const [path = '', query = ''] = text.split('?', 2);
  const trimmed = decodeURIComponent(path.startsWith('/') ? path.slice(1) : path);
  const slash = trimmed.indexOf('/');
  if (slash <= 0 || slash === trimmed.length - 1) {
    throw invalidArgument('Invalid copy source object key', 'x-amz-copy-source', text);
  }
  const params = new URLSearchParams(query);
  for (const name of params.keys()) if (name !== 'versionId') throw notImplemented(`copy source with ?${name}`);
  return { bucket: trimmed.slice(0, slash), key: trimmed.slice(slash + 1), versionId: params.get('versionId') };
}

export function copyObject(store: Store, request: S3Request, source: string): S3Response {
  allowQuery(request, 'CopyObject', []);
  refuseHeaders(request, 'CopyObject', [
    ...UNMODELLED_WRITE_HEADERS,
    'x-amz-copy-source-if-*',
    'x-amz-copy-source-server-side-encryption-customer-*',
    'x-amz-tagging-directive',
  ]);
  refuseSystemHeaders(request, 'CopyObject');
  refuseAcl(request, 'CopyObject');
  const from = copySource(source);
  const sourceBucket = store.bucket(from.bucket);
  const bucket = store.bucket(request.bucket);
  if (from.versionId !== null && store.version(sourceBucket, from.key, from.versionId)?.deleteMarker === true) {
    throw new S3Error(
      'InvalidRequest',
      400,
      'The source of a copy request may not specifically refer to a delete marker by version id.',
    );
  }
  const version = resolve(store, sourceBucket, from.key, from.versionId, 'GET');
  const content = version.content;
  if (content === undefined) throw new Error('a stored version without content is a delete marker');
  const directive = header(request, 'x-amz-metadata-directive') ?? 'COPY';
  if (directive !== 'COPY' && directive !== 'REPLACE') {
    throw invalidArgument('Unknown metadata directive.', 'x-amz-metadata-directive', directive);
  }
  if (directive === 'COPY' && from.bucket === request.bucket && from.key === request.key) {
    throw new S3Error(
      'InvalidRequest',
      400,
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
  }
  const copied: ObjectContent =
    directive === 'COPY'
      ? { ...content }
      : {
          ...content,
          contentType: header(request, 'content-type') ?? content.contentType,
          metadata: userMetadata(request),
        };
  const written = store.put(bucket, request.key, copied);
  return xmlResponse(
    parent('CopyObjectResult', [el('LastModified', isoDate(written.lastModified)), el('ETag', copied.etag)]),
    200,
    {
      ...versionHeader(bucket, written.versionId),
      ...(sourceBucket.versioning === 'Unversioned' ? {} : { 'x-amz-copy-source-version-id': version.versionId }),
    },
  );
}
