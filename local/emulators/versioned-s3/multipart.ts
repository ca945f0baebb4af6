/**
 * Multipart uploads, as @aws-sdk/lib-storage's Upload drives them: create, upload parts, complete
 * (one new version whose ETag is the MD5 of the parts' MD5s, then `-<parts>`), abort, and the
 * listings of uploads and parts. Completion is checked as S3 checks it: parts named in ascending
 * order, each uploaded with that ETag (and checksum), each but the last at least 5 MiB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readPayload } from './body';
import { checksum, isChecksumAlgorithm, md5Hex } from './checksums';
import { invalidArgument, malformedXml, noSuchUpload, notImplemented, S3Error } from './errors';
import {
  allowQuery,
  header,
  intParam,
  isoDate,
  OWNER,
  refuseAcl,
  refuseHeaders,
  refuseSystemHeaders,
  type S3Request,
  type S3Response,
  UNMODELLED_WRITE_HEADERS,
  userMetadata,
  xmlResponse,
} from './http';
import { contentTypeOf } from './objects';
import { compareKeys, type MultipartUpload, type Part, type Store } from './store';
import { childrenNamed, childText, el, parent, parseXml, type XmlNode } from './xml';

const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PART_NUMBER = 10_000;

const person = (name: string) => parent(name, [el('ID', OWNER.ID), el('DisplayName', OWNER.DisplayName)]);

function upload(store: Store, request: S3Request): MultipartUpload {
  const uploadId = request.query.get('uploadId') ?? '';
  const found = store.bucket(request.bucket).uploads.get(uploadId);
  if (found === undefined || found.key !== request.key) throw noSuchUpload(uploadId);
  return found;
}

export function createMultipartUpload(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'CreateMultipartUpload', ['uploads']);
  refuseHeaders(request, 'CreateMultipartUpload', UNMODELLED_WRITE_HEADERS);
  refuseSystemHeaders(request, 'CreateMultipartUpload');
  refuseAcl(request, 'CreateMultipartUpload');
  const bucket = store.bucket(request.bucket);
  const algorithmHeader = header(request, 'x-amz-checksum-algorithm')?.toLowerCase();
  if (algorithmHeader !== undefined && !isChecksumAlgorithm(algorithmHeader)) {
    throw invalidArgument('Checksum algorithm provided is unsupported.', 'x-amz-checksum-algorithm', algorithmHeader);
  }
  const type = header(request, 'x-amz-checksum-type');
  if (type !== undefined && type !== 'COMPOSITE') throw notImplemented(`multipart checksum type ${type}`);
  const uploadId = randomBytes(24).toString('base64url');
  bucket.uploads.set(uploadId, {
    uploadId,
    key: request.key,
    initiated: new Date(),
    contentType: contentTypeOf(request),
    metadata: userMetadata(request),
    checksumAlgorithm: algorithmHeader,
    parts: new Map(),
  });
  return xmlResponse(
    parent('InitiateMultipartUploadResult', [
      el('Bucket', bucket.name),
      el('Key', request.key),
      el('UploadId', uploadId),
    ]),
    200,
    algorithmHeader === undefined ? {} : { 'x-amz-checksum-algorithm': algorithmHeader.toUpperCase() },
  );
}

export async function uploadPart(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'UploadPart', ['partNumber', 'uploadId']);
  refuseHeaders(request, 'UploadPart', ['x-amz-server-side-encryption-customer-*']);
  const partNumber = Number(request.query.get('partNumber'));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PART_NUMBER) {
    throw invalidArgument(
      'Part number must be an integer between 1 and 10000, inclusive',
      'partNumber',
      request.query.get('partNumber') ?? '',
    );
  }
  const target = upload(store, request);
  const payload = await readPayload(request);
  const algorithm = target.checksumAlgorithm;
  if (payload.checksum !== undefined && algorithm !== undefined && payload.checksum.algorithm !== algorithm) {
    throw new S3Error(
      'InvalidRequest',
      400,
      `Checksum Type mismatch occurred, expected checksum Type: ${algorithm}, actual checksum Type: ${payload.checksum.algorithm}`,
    );
  }
  const part: Part = {
    etag: `"${md5Hex(payload.bytes)}"`,
    bytes: payload.bytes,
    lastModified: new Date(),
    checksum:
      payload.checksum ??
      (algorithm === undefined ? undefined : { algorithm, value: checksum(algorithm, payload.bytes) }),
  };
  target.parts.set(partNumber, part);
  const checksumHeader = part.checksum ? { [`x-amz-checksum-${part.checksum.algorithm}`]: part.checksum.value } : {};
  return { status: 200, headers: { etag: part.etag, ...checksumHeader } };
}

const unquote = (etag: string): string => etag.trim().replace(/^"|"$/g, '');

const invalidPart = () =>
  new S3Error(
    'InvalidPart',
    400,
    "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  );

export async function completeMultipartUpload(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'CompleteMultipartUpload', ['uploadId']);
  refuseHeaders(request, 'CompleteMultipartUpload', ['if-match', 'if-none-match', 'x-amz-mp-object-size']);
  const bucket = store.bucket(request.bucket);
  const target = upload(store, request);
  const document = parseXml((await readPayload(request)).bytes.toString('utf8'));
  const named = childrenNamed(document, 'Part');
  if (document.name !== 'CompleteMultipartUpload' || named.length === 0) throw malformedXml();
  const parts: Part[] = [];
  let previous = 0;
  for (const entry of named) {
    const number = Number(childText(entry, 'PartNumber'));
    const etag = childText(entry, 'ETag');
    if (!Number.isInteger(number) || etag === undefined) throw malformedXml();
    if (number <= previous) {
      throw new S3Error(
        'InvalidPartOrder',
        400,
        'The list of parts was not in ascending order. Parts must be ordered by part number.',
      );
    }
    previous = number;
    const part = target.parts.get(number);
    if (part === undefined || unquote(part.etag) !== unquote(etag)) throw invalidPart();
    for (const child of entry.children) {
      const algorithm = child.name.startsWith('Checksum') ? child.name.slice('Checksum'.length).toLowerCase() : '';
      if (algorithm === '') continue;
      if (part.checksum?.algorithm !== algorithm || part.checksum.value !== child.text.trim()) throw invalidPart();
    }
    parts.push(part);
  }
  parts.forEach((part, index) => {
    if (index < parts.length - 1 && part.bytes.length < MIN_PART_BYTES) {
      throw new S3Error('EntityTooSmall', 400, 'Your proposed upload is smaller than the minimum allowed object size.');
    }
  });
  const digests = parts.map((part) => Buffer.from(unquote(part.etag), 'hex'));
  const etag = `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${parts.length}"`;
  const version = store.put(bucket, request.key, {
    body: Buffer.concat(parts.map((part) => part.bytes)),
    etag,
    contentType: target.contentType,
    metadata: target.metadata,
  });
  bucket.uploads.delete(target.uploadId);
  const host = header(request, 'host') ?? '127.0.0.1';
  return xmlResponse(
    parent('CompleteMultipartUploadResult', [
      el('Location', `http://${host}/${bucket.name}/${encodeURIComponent(request.key).replaceAll('%2F', '/')}`),
      el('Bucket', bucket.name),
      el('Key', request.key),
      el('ETag', etag),
    ]),
    200,
    bucket.versioning === 'Unversioned' ? {} : { 'x-amz-version-id': version.versionId },
  );
}

export function abortMultipartUpload(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'AbortMultipartUpload', ['uploadId']);
  const target = upload(store, request);
  store.bucket(request.bucket).uploads.delete(target.uploadId);
  return { status: 204 };
}

export function listParts(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'ListParts', ['uploadId', 'max-parts', 'part-number-marker']);
  const target = upload(store, request);
  const maxParts = intParam(request, 'max-parts', 1000, 0, 1000);
  const marker = intParam(request, 'part-number-marker', 0, 0, MAX_PART_NUMBER);
  const numbers = [...target.parts.keys()].filter((number) => number > marker).sort((a, b) => a - b);
  const page = numbers.slice(0, maxParts);
  const truncated = numbers.length > page.length;
  return xmlResponse(
    parent('ListPartsResult', [
      el('Bucket', request.bucket),
      el('Key', request.key),
      el('UploadId', target.uploadId),
      el('PartNumberMarker', marker),
      el('NextPartNumberMarker', page.at(-1) ?? 0),
      el('MaxParts', maxParts),
      el('IsTruncated', truncated),
      person('Initiator'),
      person('Owner'),
      el('StorageClass', 'STANDARD'),
      ...page.map((number) => {
        const part = target.parts.get(number) as Part;
        return parent('Part', [
          el('PartNumber', number),
          el('LastModified', isoDate(part.lastModified)),
          el('ETag', part.etag),
          el('Size', part.bytes.length),
        ]);
      }),
    ]),
  );
}

export function listMultipartUploads(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'ListMultipartUploads', ['uploads', 'prefix', 'key-marker', 'upload-id-marker', 'max-uploads']);
  const bucket = store.bucket(request.bucket);
  const prefix = request.query.get('prefix') ?? '';
  const keyMarker = request.query.get('key-marker') ?? '';
  const uploadIdMarker = request.query.get('upload-id-marker') ?? '';
  const maxUploads = intParam(request, 'max-uploads', 1000, 0, 1000);
  const ordered = [...bucket.uploads.values()]
    .filter((entry) => entry.key.startsWith(prefix))
    .sort((a, b) => compareKeys(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime());
  // Without upload-id-marker the listing resumes after the marker key; with it, after that upload of the key.
  const markerAt = ordered.findIndex((entry) => entry.key === keyMarker && entry.uploadId === uploadIdMarker);
  const remaining = ordered.filter((entry, index) => {
    const order = compareKeys(entry.key, keyMarker);
    if (keyMarker === '') return true;
    if (uploadIdMarker === '' || markerAt < 0) return order > 0;
    return order > 0 || (order === 0 && index > markerAt);
  });
  const page = remaining.slice(0, maxUploads);
  const truncated = remaining.length > page.length;
  const last = page.at(-1);
  const uploads: XmlNode[] = page.map((entry) =>
    parent('Upload', [
      el('Key', entry.key),
      el('UploadId', entry.uploadId),
      person('Initiator'),
      person('Owner'),
      el('StorageClass', 'STANDARD'),
      el('Initiated', isoDate(entry.initiated)),
    ]),
  );
  return xmlResponse(
    parent('ListMultipartUploadsResult', [
      el('Bucket', bucket.name),
      el('KeyMarker', keyMarker),
      el('UploadIdMarker', uploadIdMarker),
      el('NextKeyMarker', truncated && last ? last.key : ''),
      el('NextUploadIdMarker', truncated && last ? last.uploadId : ''),
      el('Prefix', prefix),
      el('MaxUploads', maxUploads),
      el('IsTruncated', truncated),
      ...uploads,
    ]),
  );
}
