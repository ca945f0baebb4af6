/**
 * The one shape of every error the pipeline's HTTP routes answer (read API, schedule and
 * calendar APIs, erasure, webhook ingress, local mode's server):
 *
 *   {"error": {"code": "<kebab-code>", "message": "<one sentence>"}}
 *
 * `code` is stable, for programs to branch on; `message` is for a person and may change.
 * An answer may add fields beside them (`issues` for a body that failed validation) and
 * beside `error` (the ingress's `status`). schemas/api/error.json is the same contract as a
 * JSON Schema, for clients in other languages.
 *
 * What API Gateway answers itself, before or instead of a handler, keeps its own
 * `{"message": "..."}`: an HTTP API (unlike a REST API) has no gateway responses to
 * reshape (IAM refusals 403, an unknown route 404, its 10 MB payload cap 413, throttling
 * 429, a function that crashed or timed out 500/503). So every handler catches its own
 * failures and answers them here (`internal-error`) rather than letting them reach it.
 */
import * as z from 'zod/mini';

/** Lower-case words joined by single hyphens: `not-found`, `invalid-json`. */
export const API_ERROR_CODE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const apiErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.string().check(z.regex(API_ERROR_CODE_PATTERN, 'a kebab-case code')),
    message: z.string().check(z.minLength(1, 'an empty message')),
    /** What failed validation, one `field: problem` each. */
    issues: z.optional(z.array(z.string())),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBody>;

/** The body of an error answer. */
export function apiError(code: string, message: string, extra: { issues?: string[] } = {}): ApiErrorBody {
  return { error: { code, message, ...extra } };
}

/** An error answer in API Gateway's result shape (payload format 2.0), JSON and never cached. */
export function apiErrorResponse(
  status: number,
  code: string,
  message: string,
  extra: { issues?: string[] } = {},
): { statusCode: number; headers: Record<string, string>; body: string } {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify(apiError(code, message, extra)),
  };
}

/** The message of an error answer's body, or undefined when the body is not one. */
export function apiErrorMessage(body: unknown): string | undefined {
  const parsed = apiErrorBody.safeParse(body);
  return parsed.success ? parsed.data.error.message : undefined;
}

/** A failure no route expected, answered 500 without its details (the caller logs them under the request id). */
export function internalErrorResponse(requestId: string): ReturnType<typeof apiErrorResponse> {
  return apiErrorResponse(
    500,
    'internal-error',
    `the request failed inside the pipeline; it is logged as request ${requestId}`,
  );
}

/** What to log of such a failure. */
export function failureDetails(failure: unknown): { error_name: string; error: string; stack?: string } {
  return failure instanceof Error
    ? { error_name: failure.name, error: failure.message, ...(failure.stack !== undefined && { stack: failure.stack }) }
    : { error_name: typeof failure, error: String(failure) };
}
