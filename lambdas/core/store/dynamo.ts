import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table and the client that reaches it; the core takes this instead of building clients. */
export interface TableAccess {
  db: DynamoDBDocumentClient;
  tableName: string;
}

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
