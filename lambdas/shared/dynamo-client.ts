import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS } from './aws-clients';

export function documentClient(timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: timeouts.maxAttempts,
    requestHandler: { connectionTimeout: timeouts.connectionTimeoutMs, requestTimeout: timeouts.requestTimeoutMs },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
