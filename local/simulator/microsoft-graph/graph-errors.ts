/**
 * The two error shapes the simulated services answer with. Graph wraps every
 * refusal as `{ error: { code, message, innerError: { date, request-id, client-request-id } } }`;
 * the identity platform's token endpoint answers a flat OAuth error with an
 * `AADSTS<number>` description and the same number in `error_codes`.
 */
import { randomUUID } from 'node:crypto';

export interface GraphRefusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

export function graphErrorBody(refusal: GraphRefusal, now: number): Record<string, unknown> {
  const requestId = randomUUID();
  return {
    error: {
      code: refusal.code,
      message: refusal.message,
      innerError: {
        date: new Date(now).toISOString().slice(0, 19),
        'request-id': requestId,
        'client-request-id': requestId,
      },
    },
  };
}

export interface IdentityRefusal {
  status: number;
  error: 'invalid_client' | 'unauthorized_client' | 'invalid_scope' | 'invalid_request' | 'unsupported_grant_type';
  aadsts: number;
  text: string;
}

export function identityErrorBody(refusal: IdentityRefusal, now: number): Record<string, unknown> {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date(now).toISOString().replace('T', ' ').slice(0, 19);
  return {
    error: refusal.error,
    error_description: `AADSTS${refusal.aadsts}: ${refusal.text} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}Z`,
    error_codes: [refusal.aadsts],
    timestamp: `${timestamp}Z`,
    trace_id: traceId,
    correlation_id: correlationId,
  };
}
