/**
 * Which operation a request is, the way S3 tells them apart: the method, whether the path names a
 * bucket or an object, and the sub-resource in the query (?versions, ?delete, ?uploadId…).
 * Whatever matches no implemented operation is 501 NotImplemented, so a client that relies on
 * an operation this emulator lacks fails loudly instead of getting a plausible wrong answer.
 */
import {
  createBucket,
  deleteBucket,
  getBucketVersioning,
  headBucket,
  listBuckets,
  putBucketVersioning,
} from './buckets';
import { deleteObjects } from './delete-objects';
import { notImplemented, S3Error } from './errors';
import { header, type S3Request, type S3Response } from './http';
import { listObjectsV2, listObjectVersions } from './listings';
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listParts,
  uploadPart,
} from './multipart';
import { copyObject, deleteObject, getObject, putObject } from './objects';
import type { Store } from './store';

type Handler = (store: Store, request: S3Request) => S3Response | Promise<S3Response>;

function bucketOperation(request: S3Request): Handler | undefined {
  const has = (name: string) => request.query.has(name);
  switch (request.method) {
    case 'PUT':
      if (has('versioning')) return putBucketVersioning;
      return [...request.query.keys()].every((name) => name === 'x-id') ? createBucket : undefined;
    case 'GET':
      if (has('versioning')) return getBucketVersioning;
      if (has('versions')) return listObjectVersions;
      if (has('uploads')) return listMultipartUploads;
      if (request.query.get('list-type') === '2') return listObjectsV2;
      // ListObjects (v1), and every other bucket sub-resource (?acl, ?policy, ?lifecycle…), is not implemented.
      return undefined;
    case 'HEAD':
      return request.query.size === 0 ? headBucket : undefined;
    case 'DELETE':
      return request.query.size === 0 ? deleteBucket : undefined;
    case 'POST':
      return has('delete') ? deleteObjects : undefined;
    default:
      return undefined;
  }
}

function objectOperation(request: S3Request): Handler | undefined {
  const has = (name: string) => request.query.has(name);
  switch (request.method) {
    case 'PUT': {
      const source = header(request, 'x-amz-copy-source');
      if (has('uploadId')) return source === undefined ? uploadPart : undefined;
      return source === undefined ? putObject : (store, r) => copyObject(store, r, source);
    }
    case 'GET':
      if (has('uploadId')) return listParts;
      if (has('partNumber')) return undefined;
      return (store, r) => getObject(store, r, false);
    case 'HEAD':
      if (has('partNumber')) return undefined;
      return (store, r) => getObject(store, r, true);
    case 'DELETE':
      return has('uploadId') ? abortMultipartUpload : deleteObject;
    case 'POST':
      if (has('uploads')) return createMultipartUpload;
      if (has('uploadId')) return completeMultipartUpload;
      return undefined;
    default:
      return undefined;
  }
}

export async function route(store: Store, request: S3Request): Promise<S3Response> {
  if (request.bucket === '') {
    if (request.method === 'GET') return listBuckets(store, request);
    throw notImplemented(`${request.method} on the service`);
  }
  const operation = request.key === '' ? bucketOperation(request) : objectOperation(request);
  if (operation === undefined) {
    const query = [...request.query.keys()].filter((name) => name !== 'x-id').join('&');
    const what = `${request.method} ${request.key === '' ? 'bucket' : 'object'}${query === '' ? '' : ` ?${query}`}`;
    if (!['GET', 'HEAD', 'PUT', 'POST', 'DELETE'].includes(request.method)) {
      throw new S3Error('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.', {
        Method: request.method,
        ResourceType: request.key === '' ? 'BUCKET' : 'OBJECT',
      });
    }
    throw notImplemented(what);
  }
  return operation(store, request);
}
