/**
 * The two error shapes Google answers with.
 *
 * - The OAuth token endpoint answers a flat `{ error, error_description }` object
 *   (RFC 6749 section 5.2), `invalid_grant` as 400 and `unauthorized_client` as 401.
 * - The Calendar API answers `{ error: { code, message, errors: [{ domain, reason, message,
 *   location?, locationType? }], status } }`; clients branch on `errors[0].reason`
 *   (e.g. `fullSyncRequired`, `rateLimitExceeded`), so the reason is the contract.
 *   See https://developers.google.com/workspace/calendar/api/guides/errors
 */
export interface OAuthErrorBody {
  error: 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_request';
  error_description: string;
}

export interface ApiErrorBody {
  error: {
    code: number;
    message: string;
    errors: { domain: string; reason: string; message: string; location?: string; locationType?: string }[];
    status: string;
  };
}

export interface SimulatorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  410: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
};

export function oauthError(status: 400 | 401, error: OAuthErrorBody['error'], description: string): SimulatorAnswer {
  const body: OAuthErrorBody = { error, error_description: description };
  return { status, body };
}

export function apiError(
  code: number,
  reason: string,
  message: string,
  where?: { location: string; locationType: 'header' | 'parameter' },
  domain = code === 400 || code === 410 || code === 403 ? 'calendar' : 'global',
): SimulatorAnswer {
  const body: ApiErrorBody = {
    error: {
      code,
      message,
      errors: [{ domain, reason, message, ...where }],
      status: STATUS_NAMES[code] ?? 'UNKNOWN',
    },
  };
  return { status: code, body };
}
