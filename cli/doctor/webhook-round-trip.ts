/**
 * A test webhook through the deployed pipeline: signed with the stored signing secret as
 * the service signs, sent to the webhook URL, then followed through the read API until it
 * is queued (the delivery log lists it), applied (its outcome, and the meeting answers),
 * and finally erased so it leaves nothing a reader sees. The bot id says what it is:
 * `bot_doctor_…`. The first stage that does not happen within the wait is the one named.
 */
import { randomUUID } from 'node:crypto';
import { ERASE_API_ROUTES, FORCE_PARAMETER } from '../../lambdas/core/erase/erase-contract';
import { deliveryLog, meetingView, READ_API_ROUTES } from '../../lambdas/core/read/read-api-contract';
import { webhookSignature } from '../../lambdas/core/signature/sign';
import { WEBHOOK_SIGNATURE } from '../../lambdas/core/upstream/webhook-contract';
import { routeUrl } from '../api';
import type { Fetch } from '../signed-fetch';
import { type CheckResult, errorText, failed, ok } from './check';

export interface WebhookRoundTripInput {
  webhookUrl: string;
  /** A key of the stored signing secret. */
  signingKey: Buffer;
  /** Plain fetch, for the webhook URL (the service's deliveries carry no AWS signature). */
  fetch: typeof fetch;
  /** The pipeline's HTTP API: the read and erase routes (signed in AWS). */
  api: { apiBaseUrl: string; fetch: Fetch };
  botId: string;
  waitMs: number;
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

const CHECK = 'test webhook';

/** A transcript line: it makes the meeting known without a state, so no state-change event goes out for it. */
export function testWebhookBody(botId: string, idempotencyKey: string, nowMs: number): string {
  return JSON.stringify({
    idempotency_key: idempotencyKey,
    bot_id: botId,
    bot_metadata: { sent_by: 'meeting-pipeline doctor' },
    trigger: 'transcript.update',
    data: {
      speaker_name: 'meeting-pipeline doctor',
      speaker_uuid: 'doctor',
      speaker_user_uuid: null,
      speaker_is_host: false,
      timestamp_ms: nowMs,
      duration_ms: 0,
      transcription: { transcript: 'A test webhook from meeting-pipeline doctor; it is erased at once.' },
    },
  });
}

type Stage = 'accepted' | 'queued' | 'applied' | 'visible';

export async function webhookRoundTrip(input: WebhookRoundTripInput): Promise<CheckResult> {
  const { api, botId } = input;
  const started = input.now();
  const deadline = started + input.waitMs;
  const idempotencyKey = `doctor-${randomUUID()}`;
  const body = testWebhookBody(botId, idempotencyKey, started);
  const eventsUrl = routeUrl(api, READ_API_ROUTES.meetingEvents, { bot_id: botId });
  const meetingUrl = routeUrl(api, READ_API_ROUTES.getMeeting, { bot_id: botId });

  let sent: Response;
  try {
    sent = await input.fetch(input.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [WEBHOOK_SIGNATURE.header]: webhookSignature(Buffer.from(body), input.signingKey),
      },
      body,
    });
  } catch (error) {
    return failed(
      CHECK,
      `not accepted: could not reach ${input.webhookUrl}: ${errorText(error).message}`,
      'check the stack output WebhookUrl and that the stack is deployed',
    );
  }
  if (!sent.ok) {
    const reason = refusalReason(await sent.text());
    const result = failed(
      CHECK,
      `not accepted: ${input.webhookUrl} answered ${sent.status} ${reason}`,
      notAcceptedAdvice(sent.status),
    );
    return withCleanup(result, await erase(input), botId);
  }
  await sent.body?.cancel();

  let reached: Stage = 'accepted';
  let failure: string | undefined;
  /** A read that failed (a 5xx, a timeout): tried again until the wait is over, named if it never answers. */
  let lastReadError: string | undefined;
  while (input.now() < deadline) {
    try {
      const log = await readJson(api, eventsUrl, deliveryLog);
      lastReadError = undefined;
      const delivery = log?.events.find((event) => event.idempotency_key === idempotencyKey);
      if (delivery !== undefined) reached = 'queued';
      if (delivery?.outcome === 'failed') {
        failure = `queued, but processing failed: ${delivery.failure_reason ?? 'no reason given'}`;
        break;
      }
      if (delivery?.outcome === 'applied') {
        reached = 'applied';
        const meeting = await readJson(api, meetingUrl, meetingView);
        if (meeting !== undefined && meeting.utterance_count > 0) {
          reached = 'visible';
          break;
        }
      }
    } catch (error) {
      lastReadError = errorText(error).message;
    }
    await input.sleep(input.pollMs);
  }
  const cleanup = await erase(input);
  const seconds = ((input.now() - started) / 1000).toFixed(1);
  if (reached === 'visible' && failure === undefined)
    return withCleanup(
      ok(CHECK, `${botId}: accepted (${sent.status}), queued, applied, in the delivery log, erased; ${seconds} s`),
      cleanup,
      botId,
    );
  const waited = `${Math.round(input.waitMs / 1000)} s`;
  if (failure === undefined && lastReadError !== undefined)
    return withCleanup(
      failed(
        CHECK,
        `${botId}: ${reached}, then the read API failed until the wait was over: ${lastReadError}`,
        "see the read API function's log for the request it names",
      ),
      cleanup,
      botId,
    );
  const detail =
    failure ??
    {
      accepted: `accepted (${sent.status}) but never queued: the delivery log did not list it within ${waited}`,
      queued: `accepted and queued but not applied within ${waited}`,
      applied: `applied, but the meeting did not show its line within ${waited}`,
    }[reached as Exclude<Stage, 'visible'>];
  return withCleanup(failed(CHECK, `${botId}: ${detail}`, stuckAdvice(reached)), cleanup, botId);
}

/** The ingress's reason (`{"error":{"code","message"}}`), or the start of whatever it answered. */
function refusalReason(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } | string };
    if (typeof error === 'string') return error;
    if (typeof error?.message === 'string') return `${String(error.code ?? '')}: ${error.message}`;
  } catch {
    // Not JSON: its text is the reason.
  }
  return text.slice(0, 200);
}

function notAcceptedAdvice(status: number): string {
  if (status === 401)
    return "the ingress verifies with another signing secret than the stored one: after a change, wait for the functions' secret cache (secretCacheSeconds) and run again";
  if (status === 403 || status === 404)
    return "the URL is not the stack's webhook route: use the stack output WebhookUrl";
  if (status === 503) return "the ingress could not read the signing secret or queue: see the ingress function's log";
  return "see the ingress function's log for this request";
}

function stuckAdvice(reached: Stage): string {
  if (reached === 'accepted')
    return "the ingress accepted it but wrote no ledger record: see the ingress function's log and the table's permissions";
  return 'the events consumer has not applied it: see its log, `meeting-pipeline dlq list`, and the EventsBacklogAge alarm';
}

/** undefined while the route answers 404 (not there yet, or gone). */
async function readJson<T>(
  api: WebhookRoundTripInput['api'],
  url: string,
  schema: { parse(value: unknown): T },
): Promise<T | undefined> {
  const response = await api.fetch(url);
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${(await response.text()).slice(0, 200)}`);
  return schema.parse(await response.json());
}

type Cleanup = { erased: true } | { erased: false; reason: string };

/** How long the erase and the check that nothing is left may retry a failed request (a 5xx, a timeout). */
const CLEANUP_RETRY_MS = 30_000;

/** Erases the test bot (force: also when the pipeline never saw it), then checks nothing of it is readable. */
async function erase(input: WebhookRoundTripInput): Promise<Cleanup> {
  const { api, botId } = input;
  const deadline = input.now() + CLEANUP_RETRY_MS;
  let reason = '';
  do {
    reason = await eraseOnce(api, botId);
    if (reason === '') return { erased: true };
    await input.sleep(input.pollMs);
  } while (input.now() < deadline);
  return { erased: false, reason };
}

/** '' when the bot is erased and nothing of it answers; else what went wrong. */
async function eraseOnce(api: WebhookRoundTripInput['api'], botId: string): Promise<string> {
  try {
    const url = `${routeUrl(api, ERASE_API_ROUTES.eraseMeeting, { bot_id: botId })}?${FORCE_PARAMETER}=true`;
    const answer = await api.fetch(url, { method: 'DELETE' });
    const text = await answer.text();
    if (!answer.ok && answer.status !== 404) return `the erase route answered ${answer.status} ${text.slice(0, 200)}`;
    for (const route of [READ_API_ROUTES.getMeeting, READ_API_ROUTES.meetingEvents]) {
      const left = await api.fetch(routeUrl(api, route, { bot_id: botId }));
      await left.body?.cancel();
      if (left.status !== 404) return `${route} still answers ${left.status} after the erase`;
    }
    return '';
  } catch (error) {
    return errorText(error).message;
  }
}

function withCleanup(result: CheckResult, cleanup: Cleanup, botId: string): CheckResult {
  if (cleanup.erased) return result;
  const advice = `erase it by hand: meeting-pipeline erase ${botId} --yes --force (with this run's --stack or --local)`;
  return {
    ...result,
    status: 'fail',
    detail: `${result.detail}; the test bot was NOT erased: ${cleanup.reason}`,
    advice: result.advice === undefined ? advice : `${result.advice}; ${advice}`,
  };
}
