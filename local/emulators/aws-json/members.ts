/** Reading a request body's members, refusing a missing one as AWS's validation does. */
import { AwsJsonError } from './errors';
import type { JsonBody } from './server';

export const optionalText = (body: JsonBody, member: string): string | undefined => {
  const value = body[member];
  return typeof value === 'string' ? value : undefined;
};

/** A required string member, or AWS's validation sentence (the member in lowerCamel). */
export function requiredText(body: JsonBody, member: string): string {
  const value = optionalText(body, member);
  if (value === undefined || value === '') {
    const name = member.charAt(0).toLowerCase() + member.slice(1);
    throw new AwsJsonError(
      'ValidationException',
      `1 validation error detected: Value null at '${name}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

/** A string-to-string map member (an encryption context, say); absent is empty. */
export function textMap(body: JsonBody, member: string): Record<string, string> {
  const value = body[member];
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
