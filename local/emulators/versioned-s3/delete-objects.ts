/**
 * DeleteObjects (POST /bucket?delete): up to 1,000 keys, each with or without a version id, in one
 * XML document that S3 only takes with an integrity header (Content-MD5 or x-amz-checksum-*).
 * Each key succeeds or fails on its own; Quiet mode answers only the failures.
 */
import { readPayload } from './body';
import { invalidArgument, malformedXml, S3Error } from './errors';
import { allowQuery, header, refuseHeaders, type S3Request, type S3Response, xmlResponse } from './http';
import type { Store } from './store';
import { childrenNamed, childText, el, opt, parent, parseXml, type XmlNode } from './xml';

const MAX_KEYS = 1000;

export async function deleteObjects(store: Store, request: S3Request): Promise<S3Response> {
  allowQuery(request, 'DeleteObjects', ['delete']);
  refuseHeaders(request, 'DeleteObjects', ['x-amz-mfa', 'x-amz-bypass-governance-retention']);
  const bucket = store.bucket(request.bucket);
  const payload = await readPayload(request);
  if (header(request, 'content-md5') === undefined && payload.checksum === undefined) {
    throw new S3Error(
      'InvalidRequest',
      400,
      'Missing required header for this request: Content-MD5 OR x-amz-checksum-*',
    );
  }
  const document = parseXml(payload.bytes.toString('utf8'));
  if (document.name !== 'Delete') throw malformedXml();
  const objects = childrenNamed(document, 'Object');
  if (objects.length === 0 || objects.length > MAX_KEYS) throw malformedXml();
  const quietText = childText(document, 'Quiet')?.trim();
  if (quietText !== undefined && quietText !== 'true' && quietText !== 'false') throw malformedXml();
  const quiet = quietText === 'true';

  const results: XmlNode[] = [];
  for (const object of objects) {
    const key = childText(object, 'Key');
    if (key === undefined || key === '') throw malformedXml();
    for (const child of object.children) {
      if (!['Key', 'VersionId'].includes(child.name))
        throw invalidArgument(`Object element ${child.name} is not supported`);
    }
    const versionId = childText(object, 'VersionId');
    if (versionId === undefined) {
      const marker = store.deleteLatest(bucket, key);
      if (quiet) continue;
      results.push(
        parent('Deleted', [
          el('Key', key),
          marker && el('DeleteMarker', true),
          marker && el('DeleteMarkerVersionId', marker.versionId),
        ]),
      );
      continue;
    }
    try {
      const removed = store.deleteVersion(bucket, key, versionId);
      if (quiet) continue;
      results.push(
        parent('Deleted', [
          el('Key', key),
          el('VersionId', versionId),
          removed?.deleteMarker ? el('DeleteMarker', true) : undefined,
          removed?.deleteMarker ? el('DeleteMarkerVersionId', versionId) : undefined,
        ]),
      );
    } catch (error) {
      // A malformed version id fails that key alone, as NoSuchVersion (what S3 answers in a batch).
      if (!(error instanceof S3Error)) throw error;
      results.push(
        parent('Error', [
          el('Key', key),
          opt('VersionId', versionId),
          el('Code', 'NoSuchVersion'),
          el('Message', 'The specified version does not exist.'),
        ]),
      );
    }
  }
  return xmlResponse(parent('DeleteResult', results));
}
