/**
 * Athena's error answers over the JSON 1.1 protocol: HTTP 400 with `__type` naming the exception,
 * `Message`, and for InvalidRequestException a finer `AthenaErrorCode` (repeated as `ErrorCode`,
 * as Athena sends it). Handlers throw AthenaError; the server writes it, so no handler half-answers.
 */

export class AthenaError extends Error {
  constructor(
    readonly type: string,
    message: string,
    /** Athena's finer code (INVALID_INPUT, QUERY_EXECUTION_NOT_FOUND…), only on InvalidRequestException. */
    readonly athenaErrorCode?: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'AthenaError';
  }

  body(): Record<string, string> {
    return {
      __type: this.type,
      // Some refusals carry no message at all (an unknown operation, a body that is not JSON).
      ...(this.message === '' ? {} : { Message: this.message }),
      ...(this.athenaErrorCode === undefined
        ? {}
        : { AthenaErrorCode: this.athenaErrorCode, ErrorCode: this.athenaErrorCode }),
    };
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
