/**
 * A request's payload as S3 sees it: read whole (the emulator keeps objects in memory), decoded
 * from aws-chunked when the SDK streams it with a trailing checksum, and checked against every
 * digest the request names. The checksum it carried is returned, as S3 stores and echoes it.
 */
import type { IncomingMessage } from 'node:http';
import {
  type ChecksumAlgorithm,
  isChecksumAlgorithm,
  verifyChecksum,
  verifyContentMd5,
  verifyContentSha256,
} from './checksums';
import { invalidArgument, notImplemented, S3Error } from './errors';
import { header, type S3Request } from './http';

/** In memory, so bounded: larger than any part or object the tests write, far below S3's 5 GiB. */
export const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

export interface Payload {
  bytes: Buffer;
  checksum?: { algorithm: ChecksumAlgorithm; value: string };
}

async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > MAX_REQUEST_BYTES) {
      throw new S3Error('EntityTooLarge', 400, 'Your proposed upload exceeds the maximum allowed size');
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** aws-chunked: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` … `0\r\n` then trailer lines and a blank line. */
function decodeAwsChunked(raw: Buffer): { bytes: Buffer; trailers: Record<string, string> } {
  const chunks: Buffer[] = [];
  let at = 0;
  const line = (): string => {
    const end = raw.indexOf('\r\n', at);
    if (end < 0) throw new S3Error('IncompleteBody', 400, 'The request body terminated unexpectedly');
    const text = raw.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  for (;;) {
    const size = Number.parseInt(line().split(';')[0] ?? '', 16);
    if (!Number.isInteger(size) || size < 0) throw new S3Error('IncompleteBody', 400, 'Malformed aws-chunked body');
    if (size === 0) break;
    if (at + size + 2 > raw.length || raw.toString('latin1', at + size, at + size + 2) !== '\r\n') {
      throw new S3Error('IncompleteBody', 400, 'The request body terminated unexpectedly');
    }
    chunks.push(raw.subarray(at, at + size));
    at += size + 2;
  }
  const trailers: Record<string, string> = {};
  for (let text = line(); text !== ''; text = line()) {
    const colon = text.indexOf(':');
    if (colon < 0) throw new S3Error('IncompleteBody', 400, 'Malformed aws-chunked trailer');
    trailers[text.slice(0, colon).trim().toLowerCase()] = text.slice(colon + 1).trim();
  }
  return { bytes: Buffer.concat(chunks), trailers };
}

/** The payload of `request`, checked against the digests its headers (hoisted ones included) name. */
export async function readPayload(request: S3Request): Promise<Payload> {
  const raw = await readRaw(request.raw);
  const encodings = (header(request, 'content-encoding') ?? '').split(',').map((e) => e.trim().toLowerCase());
  const contentSha256 = header(request, 'x-amz-content-sha256');
  let bytes = raw;
  let trailers: Record<string, string> = {};
  if (encodings.includes('aws-chunked') || contentSha256?.startsWith('STREAMING-')) {
    ({ bytes, trailers } = decodeAwsChunked(raw));
    const decoded = header(request, 'x-amz-decoded-content-length');
    if (decoded !== undefined && Number(decoded) !== bytes.length) {
      throw new S3Error(
        'IncompleteBody',
        400,
        'You did not provide the number of bytes specified by the Content-Length',
      );
    }
  } else {
    verifyContentSha256(contentSha256, bytes);
  }
  const md5 = header(request, 'content-md5');
  if (md5 !== undefined) verifyContentMd5(md5, bytes);

  const named = Object.entries({ ...pickChecksumHeaders(request), ...trailers }).filter(([name]) =>
    name.startsWith('x-amz-checksum-'),
  );
  const declared = header(request, 'x-amz-trailer')?.toLowerCase();
  if (declared !== undefined && trailers[declared] === undefined) {
    throw new S3Error('MalformedTrailerError', 400, `The request did not contain the trailer ${declared}`);
  }
  if (named.length > 1)
    throw invalidArgument('Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  const [entry] = named;
  if (entry === undefined) return { bytes };
  const algorithm = entry[0].slice('x-amz-checksum-'.length);
  if (!isChecksumAlgorithm(algorithm)) throw notImplemented(`checksum algorithm ${algorithm}`);
  verifyChecksum(algorithm, entry[1], bytes);
  return { bytes, checksum: { algorithm, value: entry[1] } };
}

const NOT_CHECKSUMS = new Set(['x-amz-checksum-algorithm', 'x-amz-checksum-type', 'x-amz-checksum-mode']);

function pickChecksumHeaders(request: S3Request): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    // -algorithm, -type and -mode name an algorithm or a wish, they are not a checksum of this payload.
    if (!name.startsWith('x-amz-checksum-') || NOT_CHECKSUMS.has(name)) continue;
    picked[name] = value;
  }
  return picked;
}
