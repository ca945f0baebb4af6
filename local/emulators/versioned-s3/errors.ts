/**
 * S3's error answers: a code, an HTTP status and a message, sent as `<Error>` XML (or, for HEAD,
 * as the status alone, since HEAD answers carry no body). Handlers throw S3Error; the server
 * turns it into the answer, so no handler can half-answer.
 */

export class S3Error extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Extra elements of the error document (Key, BucketName, VersionId…), in S3's order. */
    readonly fields: Record<string, string> = {},
    /** Headers S3 adds to some errors (x-amz-delete-marker, x-amz-version-id, Allow…). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export const noSuchBucket = (bucket: string) =>
  new S3Error('NoSuchBucket', 404, 'The specified bucket does not exist', { BucketName: bucket });

export const noSuchKey = (key: string, headers: Record<string, string> = {}) =>
  new S3Error('NoSuchKey', 404, 'The specified key does not exist.', { Key: key }, headers);

export const noSuchVersion = (key: string, versionId: string) =>
  new S3Error('NoSuchVersion', 404, 'The specified version does not exist.', { Key: key, VersionId: versionId });

export const noSuchUpload = (uploadId: string) =>
  new S3Error(
    'NoSuchUpload',
    404,
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    { UploadId: uploadId },
  );

export const invalidArgument = (message: string, name?: string, value?: string) =>
  new S3Error(
    'InvalidArgument',
    400,
    message,
    name === undefined ? {} : { ArgumentName: name, ArgumentValue: value ?? '' },
  );

export const malformedXml = () =>
  new S3Error(
    'MalformedXML',
    400,
    'The XML you provided was not well-formed or did not validate against our published schema',
  );

/** What this emulator does not do: refused loudly rather than answered wrongly. */
export const notImplemented = (what: string) =>
  new S3Error(
    'NotImplemented',
    501,
    `A header or query you provided implies functionality that is not implemented: ${what}`,
  );
