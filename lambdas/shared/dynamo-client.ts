import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS } from './aws-clients';
import { dynamoClient } from './dynamo-plain-client';

export function documentClient(timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(dynamoClient(timeouts), { marshallOptions: { removeUndefinedValues: true } });
}
