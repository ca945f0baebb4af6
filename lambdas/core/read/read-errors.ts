/** A request the read API answers with 400 or 404 and a reason: the caller can act on it. */
export class ReadApiError extends Error {
  override name = 'ReadApiError';
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string): ReadApiError => new ReadApiError(400, message);
export const notFound = (message: string): ReadApiError => new ReadApiError(404, message);
