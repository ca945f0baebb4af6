/**
 * Sealing a calendar's feed address, a credential: encrypted under the calendar's
 * id (the encryption context in AWS KMS, the additional data locally), so a sealed
 * address copied onto another calendar does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface UrlSealer {
  seal(plaintext: string, calendarId: string): Promise<string>;
  open(sealed: string, calendarId: string): Promise<string>;
}

/** Local mode and tests: AES-256-GCM under a key held in memory. */
export function memorySealer(key: Buffer = randomBytes(32)): UrlSealer {
  return {
    async seal(plaintext, calendarId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(calendarId));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    async open(sealed, calendarId) {
      const bytes = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12)).setAAD(Buffer.from(calendarId));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
