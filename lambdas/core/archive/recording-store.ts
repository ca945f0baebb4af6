import type { Readable } from 'node:stream';

/** What the store holds under a key, as far as resuming an archive needs to know. */
export interface StoredObject {
  key: string;
  bytes: number;
  contentType: string;
  /** Our own `x-amz-meta-*` values, written with the object. */
  metadata: Record<string, string>;
}

/** Where a meeting's archive goes (the recordings bucket). */
export interface RecordingStore {
  readonly bucket: string;
  /** Streams `body` into `key` (multipart for large bodies); a failed upload leaves no parts behind. */
  upload(key: string, body: Readable, contentType: string, metadata: Record<string, string>): Promise<void>;
  put(key: string, body: Buffer, contentType: string, metadata: Record<string, string>): Promise<void>;
  /** The object's size, type and metadata, or null when there is none. */
  head(key: string): Promise<StoredObject | null>;
  /** Keys (and sizes) of the objects whose key starts with `prefix`. */
  list(prefix: string): Promise<Array<{ key: string; bytes: number }>>;
  /** Streams the object's current version. */
  read(key: string): Promise<Readable>;
}

/** Object metadata the archive writes, read back when a run resumes after a crash. */
export const ARCHIVE_METADATA = {
  /** Bytes the service announced for the recording: a stored object of another size is not it. */
  sourceBytes: 'source-bytes',
  /** SHA-256 of a JSON body, known before the put, so an unchanged body is not written again. */
  sha256: 'sha256',
} as const;

export const archiveKeys = {
  recording: (botId: string, extension: string) => `${archiveKeys.recordingPrefix(botId)}${extension}`,
  /** Every recording key of the meeting, whatever its extension. */
  recordingPrefix: (botId: string) => `${archiveKeys.meeting(botId)}recording`,
  /** Everything archived of a meeting is under this prefix (erasure removes it whole). */
  meeting: (botId: string) => `meetings/${botId}/`,
  transcript: (botId: string) => `meetings/${botId}/transcript.json`,
  participants: (botId: string) => `meetings/${botId}/participants.json`,
} as const;

const EXTENSIONS: Record<string, string> = {
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
  'audio/wav': '.wav',
  'audio/webm': '.weba',
};

export const extensionFor = (contentType: string): string =>
  EXTENSIONS[(contentType.split(';')[0] ?? '').trim().toLowerCase()] ?? '';
