/**
 * A value an API types as optional but always returns in this use (an SDK response
 * field, a role CDK always creates): a clear error naming it, instead of a `!`
 * that would let `undefined` travel on.
 */
export function required<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
