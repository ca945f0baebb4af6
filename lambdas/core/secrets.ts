/**
 * Reads one secret's current value. In AWS it is Secrets Manager behind a cache
 * with a short refresh interval; in local mode and tests, local configuration.
 */
export interface SecretSource {
  read(): Promise<string>;
}

export function staticSecret(value: string): SecretSource {
  return { read: async () => value };
}

/** A secret held in a form no header or log line may carry; the message names the secret, never its value. */
export class MalformedSecretError extends Error {
  override name = 'MalformedSecretError';
}

/**
 * A secret sent as an HTTP header value (the API key): refused when it holds a
 * line break, NUL or other control character, or surrounding whitespace, which a
 * paste into the console easily adds and which would otherwise surface, whole,
 * in the HTTP library's error message.
 */
export function headerSecret(source: SecretSource, secretName: string): SecretSource {
  return {
    async read() {
      const value = await source.read();
      const problem = headerValueProblem(value);
      if (problem !== undefined) {
        throw new MalformedSecretError(`secret ${secretName} ${problem}; store the bare key as the secret's value`);
      }
      return value;
    },
  };
}

/** What makes `value` unfit for an HTTP header, or undefined when it is fit. */
export function headerValueProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (/[\r\n]/.test(value)) return 'contains a line break';
  if (value.includes('\0')) return 'contains a NUL character';
  if (/\p{Cc}/u.test(value)) return 'contains a control character';
  if (value.trim() !== value) return 'has leading or trailing whitespace';
  return undefined;
}
