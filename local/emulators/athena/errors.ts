/**
 * Athena's error answers over the JSON 1.1 protocol: HTTP 400 with `__type` naming the exception,
 * `Message`, and for InvalidRequestException a finer `AthenaErrorCode` (repeated as `ErrorCode`,
 * as Athena sends it). Handlers throw AthenaError; the server writes it, so no handler half-answers.
 */
import { AwsJsonError } from '../aws-json/errors';

export class AthenaError extends AwsJsonError {
  constructor(
    type: string,
    message: string,
    /** Athena's finer code (INVALID_INPUT, QUERY_EXECUTION_NOT_FOUND…), only on InvalidRequestException. */
    readonly athenaErrorCode?: string,
    status = 400,
  ) {
    super(type, message, {
      status,
      fields: athenaErrorCode === undefined ? {} : { AthenaErrorCode: athenaErrorCode, ErrorCode: athenaErrorCode },
    });
    this.name = 'AthenaError';
  }
}

export const invalidRequest = (message: string, code = 'INVALID_INPUT') =>
  new AthenaError('InvalidRequestException', message, code);

/** A member the operation requires, missing: the framework's validation sentence, member in lowerCamel. */
export const missingMember = (member: string) =>
  invalidRequest(
    `1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`,
  );

export const workGroupNotFound = () => invalidRequest('WorkGroup is not found.');

export const queryExecutionNotFound = (id: string) =>
  invalidRequest(`QueryExecution ${id} was not found`, 'QUERY_EXECUTION_NOT_FOUND');
