/**
 * Bucket operations: create (with S3's naming rules), head, delete (only when empty), list, and
 * the versioning configuration. A bucket starts unversioned; once enabled it can only be
 * suspended, never unversioned again, as in S3.
 */
import { readPayload } from './body';
import { malformedXml, notImplemented, S3Error } from './errors';
import {
  allowQuery,
  header,
  isoDate,
  OWNER,
  refuseHeaders,
  type S3Request,
  type S3Response,
  xmlResponse,
} from './http';
import type { Store } from './store';
import { childText, el, parent, parseXml } from './xml';

const LOCAL_REGION = 'us-east-1';

/** S3's general purpose bucket naming rules. */
function validName(name: string): boolean {
  return (
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !name.startsWith('xn--') &&
    !name.endsWith('-s3alias')
  );
}

export async function createBucket(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'CreateBucket', []);
  refuseHeaders(request, 'CreateBucket', ['x-amz-bucket-object-lock-enabled', 'x-amz-grant-*']);
  const acl = header(request, 'x-amz-acl');
  if (acl !== undefined && acl !== 'private') throw notImplemented(`CreateBucket with x-amz-acl: ${acl}`);
  const body = (await readPayload(request)).bytes.toString('utf8').trim();
  if (body !== '') {
    const document = parseXml(body);
    if (document.name !== 'CreateBucketConfiguration') throw malformedXml();
    const location = childText(document, 'LocationConstraint')?.trim();
    if (location !== undefined && location !== '' && location !== LOCAL_REGION) {
      throw new S3Error(
        'IllegalLocationConstraintException',
        400,
        `The ${location} location constraint is incompatible for the region specific endpoint this request was sent to.`,
      );
    }
  }
  if (!validName(request.bucket)) {
    throw new S3Error('InvalidBucketName', 400, 'The specified bucket is not valid.', { BucketName: request.bucket });
  }
  // us-east-1 answers 200 again to its owner creating a bucket it already has, and keeps its contents.
  if (!store.hasBucket(request.bucket)) store.createBucket(request.bucket);
  return { status: 200, headers: { location: `/${request.bucket}` } };
}

export function headBucket(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'HeadBucket', []);
  store.bucket(request.bucket);
  return { status: 200, headers: { 'x-amz-bucket-region': LOCAL_REGION } };
}

export function deleteBucket(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'DeleteBucket', []);
  store.deleteBucket(request.bucket);
  return { status: 204 };
}

export function listBuckets(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'ListBuckets', []);
  return xmlResponse(
    parent('ListAllMyBucketsResult', [
      parent('Owner', [el('ID', OWNER.ID), el('DisplayName', OWNER.DisplayName)]),
      parent(
        'Buckets',
        store
          .allBuckets()
          .map((bucket) =>
            parent('Bucket', [
              el('Name', bucket.name),
              el('CreationDate', isoDate(bucket.created)),
              el('BucketRegion', LOCAL_REGION),
            ]),
          ),
      ),
    ]),
  );
}

export async function putBucketVersioning(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'PutBucketVersioning', ['versioning']);
  refuseHeaders(request, 'PutBucketVersioning', ['x-amz-mfa']);
  const bucket = store.bucket(request.bucket);
  const document = parseXml((await readPayload(request)).bytes.toString('utf8'));
  if (document.name !== 'VersioningConfiguration') throw malformedXml();
  const mfaDelete = childText(document, 'MfaDelete')?.trim();
  if (mfaDelete === 'Enabled') throw notImplemented('PutBucketVersioning with MfaDelete');
  const status = childText(document, 'Status')?.trim();
  if (status === 'Enabled' || status === 'Suspended') {
    bucket.versioning = status;
  } else if (status !== undefined || mfaDelete === undefined) {
    throw malformedXml();
  }
  return { status: 200 };
}

export function getBucketVersioning(store: Store, request: S3Request): S3Response {
  allowQuery(request, 'GetBucketVersioning', ['versioning']);
  const bucket = store.bucket(request.bucket);
  return xmlResponse(
    parent('VersioningConfiguration', bucket.versioning === 'Unversioned' ? [] : [el('Status', bucket.versioning)]),
  );
}
