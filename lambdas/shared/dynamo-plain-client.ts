import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS } from './aws-clients';

/** The plain client, for the ingress: no document marshalling in its bundle. */
export function dynamoClient(timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS): DynamoDBClient {
  return new DynamoDBClient({
    maxAttempts: timeouts.maxAttempts,
    requestHandler: { connectionTimeout: timeouts.connectionTimeoutMs, requestTimeout: timeouts.requestTimeoutMs },
  });
}
