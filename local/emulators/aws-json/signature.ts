/**
 * The check every AWS endpoint makes before anything else: a SigV4 Authorization header with its
 * Credential, SignedHeaders and Signature parts, and a date. The signature itself is not verified
 * (the local endpoints know no secret keys); a request an SDK did not sign is refused as AWS does.
 */
import type { IncomingMessage } from 'node:http';
import { AwsJsonError } from './errors';

export function requireSigV4(request: IncomingMessage): void {
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    throw new AwsJsonError('MissingAuthenticationTokenException', 'Missing Authentication Token');
  }
  const missing = ['Credential', 'Signature', 'SignedHeaders'].filter(
    (part) => !new RegExp(`(?:^AWS4-HMAC-SHA256 |,\\s*)${part}=[^,\\s]+`).test(authorization),
  );
  if (!authorization.startsWith('AWS4-HMAC-SHA256 ') || missing.length > 0) {
    throw new AwsJsonError(
      'IncompleteSignatureException',
      missing.map((part) => `Authorization header requires '${part}' parameter.`).join(' ') ||
        `Unsupported authorization type: ${authorization.split(' ')[0]}`,
    );
  }
  if (request.headers['x-amz-date'] === undefined && request.headers.date === undefined) {
    throw new AwsJsonError(
      'IncompleteSignatureException',
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  }
}
