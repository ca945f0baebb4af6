/** Calendar feed addresses sealed with the stack's KMS key, the calendar id as encryption context. */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { UrlSealer } from '../core/calendar/url-sealer';
import { required } from '../core/required';

/** The encryption context every sealed address carries; the IAM grants require it. */
export const ICS_URL_CONTEXT_PURPOSE = 'calendar-ics-url';

export function kmsUrlSealer(client: KMSClient, keyId: string): UrlSealer {
  const context = (calendarId: string) => ({ purpose: ICS_URL_CONTEXT_PURPOSE, calendar_id: calendarId });
  return {
    async seal(plaintext, calendarId) {
      const sealed = await client.send(
        new EncryptCommand({
          KeyId: keyId,
          Plaintext: Buffer.from(plaintext, 'utf8'),
          EncryptionContext: context(calendarId),
        }),
      );
      return Buffer.from(required(sealed.CiphertextBlob, 'KMS CiphertextBlob')).toString('base64');
    },
    async open(sealed, calendarId) {
      const opened = await client.send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed, 'base64'),
          EncryptionContext: context(calendarId),
        }),
      );
      return Buffer.from(required(opened.Plaintext, 'KMS Plaintext')).toString('utf8');
    },
  };
}

export const kmsClient = () => new KMSClient({});
