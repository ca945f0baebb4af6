/**
 * ListObjectsV2 and ListObjectVersions. Keys come in UTF-8 byte order; a key's versions and delete
 * markers newest first; a delimiter rolls keys up into CommonPrefixes, each counting as one entry
 * against max-keys, as in S3. ListObjectsV2 shows only keys whose latest version is not a delete
 * marker. Paging: an opaque continuation token (the last name answered), or key-marker plus
 * version-id-marker, which keeps its place even if that version has since been deleted.
 */
import { invalidArgument } from './errors';
import { allowQuery, encoder, intParam, isoDate, OWNER, type S3Request, type S3Response, xmlResponse } from './http';
import { type Bucket, compareKeys, type Store, type StoredVersion } from './store';
import { NULL_VERSION, sequenceOf } from './version-ids';
import { el, opt, parent, type XmlNode } from './xml';

const MAX_KEYS = 1000;

const owner = () => parent('Owner', [el('ID', OWNER.ID), el('DisplayName', OWNER.DisplayName)]);

function sortedKeys(bucket: Bucket, prefix: string): string[] {
  return [...bucket.objects.keys()].filter((key) => key.startsWith(prefix)).sort(compareKeys);
}

/** The CommonPrefix a key rolls up into, or undefined when it is listed itself. */
function rollUp(key: string, prefix: string, delimiter: string): string | undefined {
  if (delimiter === '') return undefined;
  const at = key.indexOf(delimiter, prefix.length);
  return at < 0 ? undefined : key.slice(0, at + delimiter.length);
}

export function listObjectsV2(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'ListObjectsV2', [
    'list-type',
    'prefix',
    'delimiter',
    'max-keys',
    'continuation-token',
    'start-after',
    'encoding-type',
    'fetch-owner',
  ]);
  const bucket = store.bucket(request.bucket);
  const encode = encoder(request);
  const prefix = request.query.get('prefix') ?? '';
  const delimiter = request.query.get('delimiter') ?? '';
  const maxKeys = intParam(request, 'max-keys', MAX_KEYS, 0, MAX_KEYS);
  const token = request.query.get('continuation-token');
  const startAfter = request.query.get('start-after');
  let after = startAfter ?? '';
  if (token !== null) {
    const decoded = Buffer.from(token, 'base64url').toString('utf8');
    if (token === '' || !decoded.startsWith('k:')) {
      throw invalidArgument('The continuation token provided is incorrect', 'continuation-token', token);
    }
    after = decoded.slice(2);
  }
  const fetchOwner = request.query.get('fetch-owner') === 'true';

  const contents: XmlNode[] = [];
  const prefixes: XmlNode[] = [];
  let last: string | undefined;
  let truncated = false;
  for (const key of sortedKeys(bucket, prefix)) {
    const latest = store.latest(bucket, key);
    if (latest === undefined || latest.deleteMarker || compareKeys(key, after) <= 0) continue;
    const group = rollUp(key, prefix, delimiter);
    // Keys under a prefix already answered (on this page or an earlier one) are that prefix.
    if (group !== undefined && (group === last || group === after)) continue;
    if (contents.length + prefixes.length >= maxKeys) {
      truncated = true;
      break;
    }
    if (group !== undefined) {
      prefixes.push(parent('CommonPrefixes', [el('Prefix', encode(group))]));
      last = group;
      continue;
    }
    const content = latest.content;
    contents.push(
      parent('Contents', [
        el('Key', encode(key)),
        el('LastModified', isoDate(latest.lastModified)),
        el('ETag', content?.etag ?? ''),
        el('Size', content?.body.length ?? 0),
        el('StorageClass', 'STANDARD'),
        fetchOwner ? owner() : undefined,
      ]),
    );
    last = key;
  }
  const next = truncated && last !== undefined ? Buffer.from(`k:${last}`).toString('base64url') : undefined;
  return xmlResponse(
    parent('ListBucketResult', [
      el('Name', bucket.name),
      el('Prefix', encode(prefix)),
      opt('Delimiter', delimiter === '' ? undefined : encode(delimiter)),
      el('MaxKeys', maxKeys),
      el('KeyCount', contents.length + prefixes.length),
      el('IsTruncated', truncated),
      opt('ContinuationToken', token ?? undefined),
      opt('NextContinuationToken', next),
      opt('StartAfter', startAfter === null ? undefined : encode(startAfter)),
      opt('EncodingType', request.query.get('encoding-type') ?? undefined),
      ...contents,
      ...prefixes,
    ]),
  );
}

/** Where a listing of versions resumes: after key-marker, or within it after version-id-marker. */
function resumesAfter(keyMarker: string, versionIdMarker: string | null, versions: StoredVersion[]) {
  if (versionIdMarker === null) return (version: StoredVersion) => compareKeys(version.key, keyMarker) > 0;
  const markerSequence =
    versionIdMarker === NULL_VERSION
      ? versions.find((version) => version.key === keyMarker && version.versionId === NULL_VERSION)?.sequence
      : sequenceOf(versionIdMarker);
  return (version: StoredVersion) => {
    const order = compareKeys(version.key, keyMarker);
    if (order !== 0) return order > 0;
    // Within the marker's key, versions are newest first: resume with the older ones.
    return markerSequence !== undefined && version.sequence < markerSequence;
  };
}

export function listObjectVersions(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'ListObjectVersions', [
    'versions',
    'prefix',
    'delimiter',
    'max-keys',
    'key-marker',
    'version-id-marker',
    'encoding-type',
  ]);
  const bucket = store.bucket(request.bucket);
  const encode = encoder(request);
  const prefix = request.query.get('prefix') ?? '';
  const delimiter = request.query.get('delimiter') ?? '';
  const maxKeys = intParam(request, 'max-keys', MAX_KEYS, 0, MAX_KEYS);
  const keyMarker = request.query.get('key-marker') ?? '';
  const versionIdMarker = request.query.get('version-id-marker');
  if (versionIdMarker !== null && keyMarker === '') {
    throw invalidArgument(
      'A version-id marker cannot be specified without a key marker.',
      'version-id-marker',
      versionIdMarker,
    );
  }
  if (versionIdMarker === '') throw invalidArgument('Version id cannot be the empty string', 'version-id-marker', '');

  const all = sortedKeys(bucket, prefix).flatMap((key) => bucket.objects.get(key) ?? []);
  const include = resumesAfter(keyMarker, versionIdMarker, all);
  const entries: XmlNode[] = [];
  let count = 0;
  let lastKey: string | undefined;
  let lastVersionId: string | undefined;
  let lastGroup: string | undefined;
  let truncated = false;
  for (const version of all) {
    if (!include(version)) continue;
    const group = rollUp(version.key, prefix, delimiter);
    if (group !== undefined && (group === lastGroup || group === keyMarker)) continue;
    if (count >= maxKeys) {
      truncated = true;
      break;
    }
    count += 1;
    if (group !== undefined) {
      entries.push(parent('CommonPrefixes', [el('Prefix', encode(group))]));
      lastGroup = group;
      lastKey = group;
      lastVersionId = undefined;
      continue;
    }
    const isLatest = bucket.objects.get(version.key)?.[0] === version;
    const common = [
      el('Key', encode(version.key)),
      el('VersionId', version.versionId),
      el('IsLatest', isLatest),
      el('LastModified', isoDate(version.lastModified)),
    ];
    entries.push(
      version.deleteMarker
        ? parent('DeleteMarker', [...common, owner()])
        : parent('Version', [
            ...common,
            el('ETag', version.content?.etag ?? ''),
            el('Size', version.content?.body.length ?? 0),
            el('StorageClass', 'STANDARD'),
            owner(),
          ]),
    );
    lastKey = version.key;
    lastVersionId = version.versionId;
  }
  return xmlResponse(
    parent('ListVersionsResult', [
      el('Name', bucket.name),
      el('Prefix', encode(prefix)),
      el('KeyMarker', encode(keyMarker)),
      el('VersionIdMarker', versionIdMarker ?? ''),
      opt('NextKeyMarker', truncated && lastKey !== undefined ? encode(lastKey) : undefined),
      opt('NextVersionIdMarker', truncated ? lastVersionId : undefined),
      el('MaxKeys', maxKeys),
      opt('Delimiter', delimiter === '' ? undefined : encode(delimiter)),
      el('IsTruncated', truncated),
      opt('EncodingType', request.query.get('encoding-type') ?? undefined),
      ...entries,
    ]),
  );
}
