/**
 * Conditional writes, whichever DynamoDB client makes them: kept apart from dynamo.ts so a
 * function on the plain client (the ingress) bundles no document client for them.
 */

/** A conditional write whose condition was false: expected whenever a newer value is already stored. */
export function isConditionFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Runs a conditional write; false (not an error) when its condition did not hold. */
export async function writeIfCondition(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
