/**
 * The meeting assistant service's REST API, as every function calls it: a timeout
 * on each attempt, bounded retries with exponential backoff and full jitter on
 * network errors, timeouts, 429 (honouring Retry-After) and 5xx, typed errors a
 * caller can act on, and responses validated leniently against the contract.
 */
import * as z from 'zod/mini';
import { headerValueProblem, MalformedSecretError } from '../secrets';
import { METRICS, silentTelemetry, type Telemetry } from '../telemetry';
import { describeIssues } from '../validation';
import {
  API_PATH_SUFFIX,
  API_PATHS,
  AUTHORIZATION_SCHEME,
  type Bot,
  CONCURRENT_BOTS_LIMIT_REACHED,
  type CreateBotRequest,
  type FieldErrors,
  fieldErrorsOf,
  type Participant,
  POST_MEETING_BOT_STATES,
  pageSchema,
  type RecordingLink,
  restSchemas,
  type TranscriptLine,
  type UpdateBotRequest,
  ZOOM_CREDENTIALS_REQUIRED,
} from './rest-contract';

export class UpstreamError extends Error {
  constructor(
    message: string,
    /** HTTP status, when the service answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** 401: the API key is wrong or was revoked. Nothing works until it is replaced in Secrets Manager. */
export class UnauthorizedError extends UpstreamError {
  override name = 'UnauthorizedError';
}

/** 403: the key lacks the scope this call needs. */
export class ForbiddenError extends UpstreamError {
  override name = 'ForbiddenError';
}

/** 404: no such bot (or no recording). */
export class NotFoundError extends UpstreamError {
  override name = 'NotFoundError';
}

/** 400: the service refused the request as invalid; retrying will not help. */
export class BadRequestError extends UpstreamError {
  override name = 'BadRequestError';
  constructor(
    message: string,
    status?: number,
    /** The serializer's field errors (`non_field_errors` for the body as a whole), when the 400 holds them. */
    readonly fieldErrors?: FieldErrors,
  ) {
    super(message, status);
  }
}

/**
 * 400 to `POST bots`: the project has as many bots in meetings as the service allows.
 * Not a failure: the same POST succeeds once one of them leaves, so try again later.
 */
export class ConcurrencyLimitError extends BadRequestError {
  override name = 'ConcurrencyLimitError';
}

/** 400 to `POST bots` with a Zoom link: the project has no Zoom app credentials; nothing but an admin adding them helps. */
export class ZoomCredentialsMissingError extends BadRequestError {
  override name = 'ZoomCredentialsMissingError';
}

/** 429 on every attempt, or a Retry-After longer than we will wait. */
export class RateLimitedError extends UpstreamError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, 429);
  }
}

export interface UpstreamClientOptions {
  /** The service's API root, ending in `/api/v1/`. */
  baseUrl: string;
  /** The API key (Secrets Manager, cached by the caller). */
  apiKey: () => Promise<string>;
  /** Per attempt. */
  timeoutMs?: number;
  /** Attempts including the first. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the call fails with RateLimitedError. */
  maxRetryAfterMs?: number;
  /** Pages followed at most by a listing. */
  maxPages?: number;
  telemetry?: Telemetry;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Default limits of one call (with its own retries); the launcher's timeout is sized from them. */
export const UPSTREAM_CALL_DEFAULTS = { timeoutMs: 10_000, maxAttempts: 4, maxRetryAfterMs: 30_000 } as const;
/** The longest one call can take with the defaults: every attempt timing out, the longest waits between them. */
export const UPSTREAM_CALL_WORST_CASE_MS =
  UPSTREAM_CALL_DEFAULTS.maxAttempts * UPSTREAM_CALL_DEFAULTS.timeoutMs +
  (UPSTREAM_CALL_DEFAULTS.maxAttempts - 1) * UPSTREAM_CALL_DEFAULTS.maxRetryAfterMs;

export class UpstreamClient {
  private readonly base: URL;
  private readonly options: Required<Omit<UpstreamClientOptions, 'baseUrl' | 'apiKey'>> &
    Pick<UpstreamClientOptions, 'apiKey'>;

  constructor(options: UpstreamClientOptions) {
    this.base = new URL(options.baseUrl);
    if (!this.base.pathname.endsWith(API_PATH_SUFFIX))
      throw new Error(`base URL must end in ${API_PATH_SUFFIX}: ${options.baseUrl}`);
    this.options = {
      ...UPSTREAM_CALL_DEFAULTS,
      baseDelayMs: 250,
      maxDelayMs: 8_000,
      maxPages: 1_000,
      telemetry: silentTelemetry,
      fetch: (...args) => fetch(...args),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      ...options,
    };
  }

  /**
   * `POST bots`: 201 with the created bot. Pass a deduplication_key so a retried
   * call cannot create two: the retry is then a 400 (the key is taken), and
   * findBotByDeduplicationKey finds the bot the first call made.
   */
  async createBot(request: CreateBotRequest): Promise<Bot> {
    return this.call('POST', this.url(API_PATHS.bots), restSchemas().bot, request);
  }

  /** The bot that holds a deduplication key (one not in a post-meeting state), if any. */
  async findBotByDeduplicationKey(key: string): Promise<Bot | undefined> {
    const bots = await this.listBots({ deduplication_key: key });
    return bots.find((bot) => !(POST_MEETING_BOT_STATES as readonly string[]).includes(bot.state ?? ''));
  }

  /** `PATCH bots/{id}`: the join time, link and name change only while the bot is `scheduled` (else 400). */
  async updateBot(botId: string, changes: UpdateBotRequest): Promise<Bot> {
    return this.call('PATCH', this.url(API_PATHS.bot(botId)), restSchemas().bot, changes);
  }

  /** `DELETE bots/{id}`: only a `scheduled` bot can be deleted (else 400). */
  async deleteBot(botId: string): Promise<void> {
    await this.call('DELETE', this.url(API_PATHS.bot(botId)), z.unknown());
  }

  /** `POST bots/{id}/delete_data`: the service deletes its copy of the meeting's data (after the meeting only). */
  async deleteBotData(botId: string): Promise<void> {
    await this.call('POST', this.url(API_PATHS.deleteData(botId)), z.unknown());
  }

  async getBot(botId: string): Promise<Bot> {
    return this.call('GET', this.url(API_PATHS.bot(botId)), restSchemas().bot);
  }

  /** `GET bots`, every page followed; `query` is passed through as filters. */
  async listBots(query: Record<string, string> = {}): Promise<Bot[]> {
    const first = this.url(API_PATHS.bots);
    for (const [name, value] of Object.entries(query)) first.searchParams.set(name, value);
    return this.allPages(first, restSchemas().bot);
  }

  /**
   * The transcript, sorted by timestamp_ms: the whole of it, or with `updatedAfter`
   * (an ISO time on the service's clock) only the lines written strictly after then.
   */
  /**
   * The bot's transcript, or null when the service has no recording of the meeting (its 404 "No
   * recording found for bot": the bot never recorded, so nothing was said to it; not a failure).
   */
  async getTranscript(botId: string, options: { updatedAfter?: string } = {}): Promise<TranscriptLine[] | null> {
    const url = this.url(API_PATHS.transcript(botId));
    if (options.updatedAfter !== undefined) url.searchParams.set('updated_after', options.updatedAfter);
    try {
      return await this.call('GET', url, restSchemas().transcript);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /** A fresh download link, or null when the meeting has no recording. */
  async getRecording(botId: string): Promise<RecordingLink | null> {
    try {
      return await this.call('GET', this.url(API_PATHS.recording(botId)), restSchemas().recordingLink);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async listParticipants(botId: string): Promise<Participant[]> {
    return this.allPages(this.url(API_PATHS.participants(botId)), restSchemas().participant);
  }

  private url(path: string): URL {
    return new URL(path, this.base);
  }

  private async allPages<T extends z.ZodMiniType>(first: URL, item: T): Promise<Array<z.infer<T>>> {
    const schema = pageSchema(item);
    const results: Array<z.infer<T>> = [];
    let next: URL | null = first;
    for (let page = 0; next !== null; page++) {
      if (page >= this.options.maxPages)
        throw new UpstreamError(`more than ${this.options.maxPages} pages at ${first.pathname}`);
      const body: z.infer<typeof schema> = await this.call('GET', next, schema);
      results.push(...(body.results as Array<z.infer<T>>));
      next = body.next === null ? null : this.sameOrigin(body.next);
    }
    return results;
  }

  /** Our API key goes only to the service: a `next` link elsewhere is refused. */
  private sameOrigin(link: string): URL {
    const url = new URL(link, this.base);
    if (url.origin !== this.base.origin)
      throw new UpstreamError(`refusing to follow a page link to another origin: ${url.origin}`);
    return url;
  }

  private async call<T extends z.ZodMiniType>(
    method: Method,
    url: URL,
    schema: T,
    body?: unknown,
  ): Promise<z.infer<T>> {
    const response = await this.send(method, url, body);
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw new UpstreamError(
        `${method} ${url.pathname} answered ${response.status} with a body that is not JSON`,
        response.status,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const problems = describeIssues(parsed.error).join('; ');
      throw new UpstreamError(
        `${method} ${url.pathname} answered in a shape the contract does not expect: ${problems}`,
        response.status,
      );
    }
    return parsed.data;
  }

  private async send(method: Method, url: URL, body: unknown): Promise<Response> {
    const { maxAttempts, telemetry } = this.options;
    const key = await this.options.apiKey();
    // Checked here too, for keys that do not come through headerSecret: a refused header quotes its value.
    const problem = headerValueProblem(key);
    if (problem !== undefined) throw new MalformedSecretError(`the API key ${problem}; nothing was sent`);
    let lastRetryAfter: number | undefined;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.options.fetch(url, {
          method,
          headers: {
            authorization: `${AUTHORIZATION_SCHEME} ${key}`,
            accept: 'application/json',
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          redirect: 'error',
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (error) {
        const reason =
          error instanceof Error && error.name === 'TimeoutError'
            ? `timed out after ${this.options.timeoutMs} ms`
            : redact(describe(error), key);
        if (attempt >= maxAttempts)
          throw new UpstreamError(`${method} ${url.pathname} failed after ${attempt} attempts: ${reason}`);
        await this.options.sleep(this.backoff(attempt));
        continue;
      }
      if (response.ok) return response;

      const status = response.status;
      if (status === 429) {
        telemetry.metrics.emit(METRICS.upstreamRateLimited, 1);
        lastRetryAfter = retryAfterMs(response.headers.get('retry-after'), Date.now());
        if (attempt >= maxAttempts || (lastRetryAfter ?? 0) > this.options.maxRetryAfterMs) {
          const { detail } = await errorBody(response);
          throw new RateLimitedError(
            `${method} ${url.pathname} rate limited after ${attempt} attempts${detail === '' ? '' : `: ${detail}`}`,
            lastRetryAfter,
          );
        }
        await response.body?.cancel();
        await this.options.sleep(Math.max(lastRetryAfter ?? 0, this.backoff(attempt)));
        continue;
      }
      if (status >= 500) {
        telemetry.metrics.emit(METRICS.upstreamServerError, 1, { status: String(status) });
        await response.body?.cancel();
        if (attempt >= maxAttempts)
          throw new UpstreamError(`${method} ${url.pathname} answered ${status} on all ${attempt} attempts`, status);
        await this.options.sleep(this.backoff(attempt));
        continue;
      }
      const { detail, fieldErrors } = await errorBody(response);
      const message = `${method} ${url.pathname} answered ${status}${detail === '' ? '' : `: ${detail}`}`;
      if (status === 401) {
        telemetry.metrics.emit(METRICS.upstreamUnauthorized, 1);
        telemetry.log.error(
          'the meeting assistant service refused the API key (revoked or wrong); replace it in Secrets Manager',
          { status },
        );
        throw new UnauthorizedError(message, status);
      }
      if (status === 403) throw new ForbiddenError(message, status);
      if (status === 404) throw new NotFoundError(message, status);
      if (status === 400) {
        if (detail.includes(CONCURRENT_BOTS_LIMIT_REACHED)) throw new ConcurrencyLimitError(message, status);
        if (detail.includes(ZOOM_CREDENTIALS_REQUIRED)) throw new ZoomCredentialsMissingError(message, status);
        throw new BadRequestError(message, status, fieldErrors);
      }
      throw new UpstreamError(message, status);
    }
  }

  /** Full jitter: a random wait up to the exponential bound. */
  private backoff(attempt: number): number {
    const bound = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.options.random() * bound);
  }
}

/** `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** An error answer's message (`error` or `detail`, else the body's start) and its field errors, if any. */
async function errorBody(response: Response): Promise<{ detail: string; fieldErrors?: FieldErrors }> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
  const { error, detail } = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    detail?: unknown;
  };
  const message = error ?? detail;
  const fieldErrors = fieldErrorsOf(body);
  return {
    detail:
      message === undefined ? text.slice(0, 200) : typeof message === 'string' ? message : JSON.stringify(message),
    ...(fieldErrors !== undefined && { fieldErrors }),
  };
}

/** HTTP libraries quote a refused header value in their errors: never let the key through. */
function redact(message: string, key: string): string {
  return key === '' ? message : message.split(key).join('[api key]');
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
