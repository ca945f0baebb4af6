import type { Readable } from 'node:stream';

/** Where a meeting's archive goes (the recordings bucket). */
export interface RecordingStore {
  readonly bucket: string;
  /** Streams `body` into `key` (multipart for large bodies); a failed upload leaves no parts behind. */
  upload(key: string, body: Readable, contentType: string): Promise<void>;
  putJson(key: string, value: unknown): Promise<{ bytes: number }>;
}

export const archiveKeys = {
  recording: (botId: string, extension: string) => `meetings/${botId}/recording${extension}`,
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
