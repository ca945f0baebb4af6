/** A request the read API answers with 400 or 404, a code (lambdas/core/api-error.ts) and a reason the caller can act on. */
export class ReadApiError extends Error {
  override name = 'ReadApiError';
  constructor(
    readonly status: 400 | 404,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string): ReadApiError => new ReadApiError(400, code, message);
export const notFound = (code: string, message: string): ReadApiError => new ReadApiError(404, code, message);
