/**
 * The service answers with our key: `GET bots` through the same client and contract the
 * functions use. Which scope each call needs the service does not publish, and the doctor
 * launches nothing, so each scope is probed with a call about a bot id that cannot exist:
 * 404 means the key passed the scope check, 403 that it lacks the scope.
 */
import { ForbiddenError, NotFoundError, UnauthorizedError, UpstreamClient } from '../../lambdas/core/upstream/client';
import { type CheckResult, errorText, failed, ok } from './check';

export interface ServiceCheckInput {
  /** The service's API root (`…/api/v1/`). */
  baseUrl: string;
  apiKey: string;
  /** Where the key is kept, for the advice. */
  apiKeyName: string;
  fetch: typeof fetch;
  /** An id no bot has: `bot_doctor_…`. */
  probeBotId: string;
}

const SCOPE_ADVICE =
  'create a key with bots:read, bots:write and recordings:read (or with no scope selected: full access) and store it in';

export async function checkService(input: ServiceCheckInput): Promise<CheckResult[]> {
  let client: UpstreamClient;
  try {
    client = new UpstreamClient({
      baseUrl: input.baseUrl,
      apiKey: async () => input.apiKey,
      fetch: input.fetch,
      maxAttempts: 2,
      timeoutMs: 10_000,
    });
  } catch (error) {
    return [
      failed(
        'service answers',
        `the service's address ${input.baseUrl} is not usable: ${errorText(error).message}`,
        'deploy with -c upstreamBaseUrl=https://<service>/api/v1/',
      ),
    ];
  }
  try {
    // A filter no bot matches: one page, whatever the project holds.
    await client.listBots({ deduplication_key: `doctor-${input.probeBotId}` });
  } catch (error) {
    return [serviceFailure(error, input)];
  }
  const answered = ok('service answers', `GET bots with the key: 200 from ${input.baseUrl}`);
  const lacking: string[] = [];
  const probe = async (scope: string, call: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await call();
      return undefined;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      if (error instanceof ForbiddenError) {
        lacking.push(scope);
        return undefined;
      }
      return `${scope}: ${errorText(error).message}`;
    }
  };
  const problems = [
    // bots:read passed with GET bots above.
    await probe('bots:write', () => client.updateBot(input.probeBotId, {})),
    await probe('recordings:read', () => client.getRecording(input.probeBotId)),
  ].filter((p): p is string => p !== undefined);
  const check = 'key scopes';
  if (lacking.length > 0)
    return [
      answered,
      failed(
        check,
        `the key lacks ${lacking.join(', ')} (the service answered 403)`,
        `${SCOPE_ADVICE} ${input.apiKeyName}`,
      ),
    ];
  if (problems.length > 0)
    return [
      answered,
      failed(check, `could not probe: ${problems.join('; ')}`, 'run the doctor again; if it persists, ask the service'),
    ];
  return [answered, ok(check, 'bots:read, bots:write, recordings:read (probed with an id no bot has: 404, not 403)')];
}

function serviceFailure(error: unknown, input: ServiceCheckInput): CheckResult {
  const check = 'service answers';
  if (error instanceof UnauthorizedError)
    return failed(
      check,
      `401 from ${input.baseUrl}: the service does not accept the key (wrong, or revoked)`,
      `create a key at the service and store it in ${input.apiKeyName}`,
    );
  if (error instanceof ForbiddenError)
    return failed(check, `403 to GET bots: the key lacks bots:read`, `${SCOPE_ADVICE} ${input.apiKeyName}`);
  const { message } = errorText(error);
  return failed(
    check,
    `GET bots at ${input.baseUrl} failed: ${message}`,
    'check the address (deploy with -c upstreamBaseUrl=https://<service>/api/v1/) and that the service is up',
  );
}
