/**
 * The two secrets a deployment needs: set (present, readable, not a placeholder left from
 * the deploy instructions) and well-formed as the functions will read them.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { headerValueProblem } from '../../lambdas/core/secrets';
import { parseSigningSecrets, SigningSecretConfigError } from '../../lambdas/core/signature/verify';
import { isDeniedByAws } from '../exit-codes';
import { type CheckResult, errorText, failed, ok } from './check';

/** A secret the doctor reads: where it lives (for messages) and how to read it. */
export interface SecretReading {
  /** Its name in Secrets Manager, or where local mode keeps it. */
  name: string;
  read(): Promise<string>;
  /** How to store a value in it, for the advice. */
  howToSet(value: string): string;
  /** What to do when it cannot be read for another reason than those AWS names. */
  readAdvice?: string;
}

export function secretsManagerSecret(client: Pick<SecretsManagerClient, 'send'>, secretId: string): SecretReading {
  return {
    name: secretId,
    async read() {
      const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (answer.SecretString === undefined) throw new BinarySecretError(secretId);
      return answer.SecretString;
    },
    howToSet: (value) => `aws secretsmanager put-secret-value --secret-id ${secretId} --secret-string '${value}'`,
  };
}

class BinarySecretError extends Error {
  override name = 'BinarySecretError';
  constructor(secretId: string) {
    super(`${secretId} holds binary data, not text`);
  }
}

/**
 * Values that are not a key: the angle-bracket placeholders of the deploy instructions
 * (`<API_KEY>`, `<SIGNING_SECRET>`), and the words people type to fill a field for now.
 */
export function isPlaceholder(value: string): boolean {
  const text = value.trim();
  return (
    /^<[^<>]*>$/.test(text) || /^(?:changeme|change-me|placeholder|todo|tbd|replace-?me|x+|dummy|test)$/i.test(text)
  );
}

type Read = { value: string } | { result: CheckResult };

async function readSecret(check: string, secret: SecretReading, example: string): Promise<Read> {
  try {
    const value = await secret.read();
    if (isPlaceholder(value))
      return {
        result: failed(
          check,
          `${secret.name} still holds the placeholder ${JSON.stringify(value.trim())}`,
          `store the real value: ${secret.howToSet(example)}`,
        ),
      };
    return { value };
  } catch (error) {
    const { name, message } = errorText(error);
    if (name === 'ResourceNotFoundException')
      return {
        result: failed(
          check,
          `no secret ${secret.name} in this account and region`,
          `create it: aws secretsmanager create-secret --name ${secret.name} --secret-string '${example}'`,
        ),
      };
    if (isDeniedByAws(name) || name === 'AccessDeniedException')
      return {
        result: failed(
          check,
          `AWS refused to read ${secret.name} (${name})`,
          `let your credentials call secretsmanager:GetSecretValue on it (and kms:Decrypt on its key), or run as a role that may`,
        ),
      };
    if (name === 'BinarySecretError')
      return { result: failed(check, message, `store it as text: ${secret.howToSet(example)}`) };
    return {
      result: failed(
        check,
        `could not read ${secret.name}: ${message}`,
        secret.readAdvice ?? 'check the secret in Secrets Manager and retry',
      ),
    };
  }
}

/** The signing secret, and its keys when it is usable (the webhook check signs with the first). */
export async function checkSigningSecret(
  secret: SecretReading,
): Promise<{ result: CheckResult; keys?: readonly Buffer[] }> {
  const check = 'signing secret';
  const read = await readSecret(check, secret, '<the signing secret the service shows, base64>');
  if ('result' in read) return read;
  try {
    const keys = parseSigningSecrets(read.value);
    const sizes = keys.map((key) => `${key.length} bytes`).join(', ');
    const count = keys.length === 1 ? 'one key' : `${keys.length} keys (rotating)`;
    return { result: ok(check, `${secret.name}: ${count}, base64 of ${sizes}`), keys };
  } catch (error) {
    if (!(error instanceof SigningSecretConfigError)) throw error;
    return {
      result: failed(
        check,
        `${secret.name} is not usable: ${error.message}`,
        `copy the secret from the service's webhook settings: ${secret.howToSet('<base64 secret>')}`,
      ),
    };
  }
}

/** The API key, when it is set and fit to send in a header. */
export async function checkApiKey(secret: SecretReading): Promise<{ result: CheckResult; key?: string }> {
  const check = 'API key';
  const read = await readSecret(check, secret, '<the API key the service showed once>');
  if ('result' in read) return read;
  const problem = headerValueProblem(read.value);
  if (problem !== undefined)
    return {
      result: failed(
        check,
        `${secret.name} ${problem}`,
        `store the bare key, nothing around it: ${secret.howToSet('<key>')}`,
      ),
    };
  return { result: ok(check, `${secret.name}: set, ${read.value.length} characters, no whitespace`), key: read.value };
}
