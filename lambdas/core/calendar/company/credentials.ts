/**
 * How the company sync gets a source's credentials: by the secret name (or ARN)
 * registered on the source, read when a provider is made for it. In AWS that is
 * Secrets Manager (readable by the sync functions only); in local mode a map the
 * sample tenant fills, or a file named on the command line. The value is never
 * logged, returned or stored: an error names the secret, never what it holds.
 */
export type CredentialsReader = (secretName: string) => Promise<string>;

/** The secret does not exist or cannot be read: the source is marked disconnected with this reason. */
export class CredentialsUnavailableError extends Error {
  override name = 'CredentialsUnavailableError';
  constructor(
    readonly secretName: string,
    reason: string,
  ) {
    super(`credentials secret ${secretName}: ${reason}`);
  }
}
