/**
 * The ingress decision for one webhook delivery: check size, signature and
 * envelope, then queue it. Answers "accepted" only after the queue has it.
 *
 * Order matters: the signature is checked before the envelope is read, so an
 * unsigned caller learns nothing about our schema; JSON syntax comes first only
 * because the signed form is computed from the text. The canonical rendering is
 * that syntax check: a body is parsed only once it is known authentic (a refused
 * one is filed in quarantine by the bot it names, read without a parse), so a
 * hostile body costs a pass or two over its bytes, not a parse too.
 * A body both malformed and ambiguous (a repeated key, too deep) is refused for
 * whichever the rendering meets first. The header's form is
 * checked before all of it: only a body with a well-formed signature that fails the
 * HMAC may be quarantined (and that within global caps), nothing else is stored. A signed body is
 * never refused: one that is not a bot's envelope (a calendar's, an app
 * session's, or an unknown shape) is queued too and kept under what it is about.
 */
import { apiError } from '../api-error';
import { canonicalJson, DuplicateKeyError, NestingTooDeepError, rawControlInString } from '../signature/canonical-json';
import { type SignatureCheck, signatureHeaderProblem, verifyWebhookBody } from '../signature/verify';
import { METRICS, type Telemetry } from '../telemetry';
import { describeUnboundWebhook, parseWebhookEnvelope } from '../upstream/webhook-contract';
import { bodyOwner } from './body-owner';
import type { EventQueue } from './event-queue';
import { type AcceptanceLog, type FirstAcceptance, fitsLedgerItem } from './first-acceptance';
import type { Quarantine, QuarantineReason } from './quarantine';

export interface WebhookDelivery {
  /** The body exactly as received (after any transport base64 decoding). */
  body: Uint8Array;
  /** The `X-Webhook-Signature` header, if present. */
  signature: string | undefined;
}

export type RejectionReason =
  | 'body-too-large'
  | 'empty-body'
  | 'missing-signature'
  | 'malformed-signature'
  | 'signature-mismatch'
  | 'invalid-utf8'
  | 'invalid-json'
  | 'duplicate-key'
  | 'too-deeply-nested';

export type WebhookOutcome =
  | {
      kind: 'accepted';
      status: 202;
      idempotencyKey: string;
      botId: string;
      trigger: string;
      messageId: string;
      bodyLocation: 'inline' | 's3';
    }
  | { kind: 'rejected'; status: 400 | 401 | 413; reason: RejectionReason; message: string }
  | { kind: 'unavailable'; status: 503; reason: 'signing-secret-unavailable' | 'queue-unavailable'; message: string };

export interface IngressDependencies {
  /** Active signing keys (several while a secret is rotated). */
  signingKeys(): Promise<readonly Buffer[]>;
  queue: EventQueue;
  maxBodyBytes: number;
  /** Keeps bodies refused for their signature, for a re-drive after a secret rotation. */
  quarantine?: Pick<Quarantine, 'keep'>;
  telemetry: Telemetry;
  now(): Date;
  /** This delivery's acceptance time (see acceptanceClock); the clock's ISO time when absent. */
  acceptedAt?: () => string;
  /** The ledger, where first acceptances are recorded, so every delivery of an event carries the first one's time. */
  acceptance?: AcceptanceLog;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const SIGNATURE_PROBLEMS = {
  'missing-signature': 'The X-Webhook-Signature header is missing.',
  'malformed-signature': 'The X-Webhook-Signature header is not a base64 HMAC-SHA256 digest.',
  'signature-mismatch': 'The X-Webhook-Signature header does not match the body for any active signing secret.',
} as const;

export async function acceptWebhook(delivery: WebhookDelivery, deps: IngressDependencies): Promise<WebhookOutcome> {
  const outcome = await decide(delivery, deps);
  report(outcome, delivery.body.length, deps.telemetry);
  return outcome;
}

async function decide(delivery: WebhookDelivery, deps: IngressDependencies): Promise<WebhookOutcome> {
  const { body } = delivery;
  if (body.length > deps.maxBodyBytes) {
    return reject(413, 'body-too-large', `The body has ${body.length} bytes; the limit is ${deps.maxBodyBytes}.`);
  }
  if (body.length === 0) return reject(400, 'empty-body', 'The body is empty; expected a JSON webhook envelope.');
  // A request without a well-formed signature header is refused before anything is read or kept.
  const headerProblem = signatureHeaderProblem(delivery.signature);
  if (headerProblem !== undefined || delivery.signature === undefined) {
    const reason = headerProblem ?? 'missing-signature';
    return reject(401, reason, SIGNATURE_PROBLEMS[reason]);
  }
  const signature = delivery.signature;

  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return reject(400, 'invalid-utf8', 'The body is not valid UTF-8.');
  }
  let keys: readonly Buffer[];
  try {
    keys = await deps.signingKeys();
  } catch (error) {
    // Malformed bodies are refused as they were before the secret was read; any other waits for it.
    const malformed = syntaxProblem(body);
    if (malformed !== undefined) return malformed;
    deps.telemetry.log.error('signing secret unavailable', { error: describeError(error) });
    await keepRefused({ body, text, signature }, 'signing-secret-unavailable', deps);
    return {
      kind: 'unavailable',
      status: 503,
      reason: 'signing-secret-unavailable',
      message: 'The webhook cannot be verified right now; retry later.',
    };
  }
  let check: SignatureCheck;
  try {
    check = verifyWebhookBody(body, signature, keys);
  } catch (error) {
    return refusedBody(error, body);
  }
  if (!check.ok) {
    // JSON refuses a raw control character in a string, which the rendering copied (so it never verifies).
    if (rawControlInString(body)) return invalidJson(RAW_CONTROL);
    if (check.reason === 'signature-mismatch') await keepRefused({ body, text, signature }, 'signature-mismatch', deps);
    return reject(401, check.reason, SIGNATURE_PROBLEMS[check.reason]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Not reached for a body the rendering took (it refuses what JSON.parse does); kept so no body is a crash.
    return invalidJson((error as Error).message);
  }

  // Authentic from here on: whatever it is about, it is queued and kept, never refused.
  const envelope = parseWebhookEnvelope(parsed);
  const event = envelope.ok
    ? {
        idempotencyKey: envelope.value.idempotency_key,
        botId: envelope.value.bot_id,
        trigger: envelope.value.trigger,
        owner: envelope.value.bot_id,
      }
    : (({ idempotencyKey, trigger, relatedObject }) => ({ idempotencyKey, trigger, botId: '', owner: relatedObject }))(
        describeUnboundWebhook(parsed, text),
      );
  const { idempotencyKey, botId, trigger } = event;
  const { receivedAt, recorded, claimCheck } = await firstAcceptance(event, text, deps);
  try {
    const queued = await deps.queue.enqueue(
      text,
      { idempotencyKey, botId, trigger, receivedAt, recorded },
      { claimCheck },
    );
    return { kind: 'accepted', status: 202, idempotencyKey, botId, trigger, ...queued };
  } catch (error) {
    deps.telemetry.log.error('webhook could not be queued', {
      idempotency_key: idempotencyKey,
      bot_id: botId,
      trigger,
      error: describeError(error),
    });
    // 5xx so the service retries: the event is authentic and must not be lost.
    return {
      kind: 'unavailable',
      status: 503,
      reason: 'queue-unavailable',
      message: 'The webhook could not be queued; retry later.',
    };
  }
}

/**
 * Records the event in the ledger on its first acceptance (its body compressed, or
 * the pointer to where the queue stores it), and returns that time, which orders
 * re-sends of it. Never a reason to refuse: if the ledger cannot be reached, this
 * delivery's own time is used (logged) and the consumer records the event.
 */
async function firstAcceptance(
  event: { idempotencyKey: string; botId: string; trigger: string; owner: string },
  text: string,
  deps: IngressDependencies,
): Promise<FirstAcceptance & { claimCheck: boolean }> {
  const acceptedAt = deps.acceptedAt?.() ?? deps.now().toISOString();
  if (deps.acceptance === undefined) return { receivedAt: acceptedAt, recorded: false, claimCheck: false };
  // The message and the ledger point to the same object: the queue keys it by the first acceptance.
  const meta = { ...event, receivedAt: acceptedAt, recorded: true };
  let claimCheck = false;
  let stored = deps.queue.claimCheckFor?.(text, meta);
  if (stored === undefined && deps.queue.claimCheckFor !== undefined && !fitsLedgerItem(text)) {
    claimCheck = true; // fits in a message, not in the ledger item even compressed
    stored = deps.queue.claimCheckFor(text, meta, { claimCheck });
  }
  try {
    const first = await deps.acceptance.firstAcceptance({
      idempotencyKey: event.idempotencyKey,
      owner: event.owner,
      trigger: event.trigger,
      acceptedAt,
      body: stored === undefined ? { inline: text } : { stored },
    });
    return { ...first, claimCheck };
  } catch (error) {
    deps.telemetry.log.error('first acceptance not recorded; this delivery orders by its own time', {
      idempotency_key: event.idempotencyKey,
      error: describeError(error),
    });
    return { receivedAt: acceptedAt, recorded: false, claimCheck };
  }
}

/** The answer for a body the rendering refused (malformed, ambiguous, too deep); anything else it threw is rethrown. */
function refusedBody(error: unknown, body: Uint8Array): WebhookOutcome {
  if (error instanceof SyntaxError) return invalidJson(error.message);
  // JSON syntax first, as when JSON.parse ran before the rendering: a raw control character is what the rendering copies.
  if (rawControlInString(body)) return invalidJson(RAW_CONTROL);
  if (error instanceof DuplicateKeyError)
    return reject(400, 'duplicate-key', `The body is ambiguous: ${error.message}.`);
  if (error instanceof NestingTooDeepError) return reject(400, 'too-deeply-nested', `The body has ${error.message}.`);
  throw error;
}

/** The answer when the body is not JSON, undefined when it is (a repeated key or deep nesting aside). */
function syntaxProblem(body: Uint8Array): WebhookOutcome | undefined {
  try {
    canonicalJson(body);
  } catch (error) {
    if (error instanceof SyntaxError) return invalidJson(error.message);
    if (!(error instanceof DuplicateKeyError || error instanceof NestingTooDeepError)) throw error;
  }
  return rawControlInString(body) ? invalidJson(RAW_CONTROL) : undefined;
}

const RAW_CONTROL = 'a string holds a raw control character';

const invalidJson = (detail: string): WebhookOutcome =>
  reject(400, 'invalid-json', `The body is not valid JSON: ${detail}`);

/** Best effort: the answer stays what it was whether or not the body could be kept. */
async function keepRefused(
  refused: { body: Uint8Array; text: string; signature: string },
  reason: QuarantineReason,
  deps: IngressDependencies,
) {
  if (deps.quarantine === undefined) return;
  const { body, text, signature } = refused;
  try {
    // The bot the body names files it: read by walking its top level, the body is not parsed.
    const kept = await deps.quarantine.keep({ body, signature, owner: bodyOwner(text) }, reason, deps.now());
    if (kept.kept) {
      deps.telemetry.log.warn('refused webhook quarantined', { reason, key: kept.key });
      deps.telemetry.metrics.emit(METRICS.webhookQuarantined, 1);
    } else if (kept.why === 'capped') {
      deps.telemetry.log.warn('refused webhook not quarantined: cap reached', { reason, cap: kept.cap });
      deps.telemetry.metrics.emit(METRICS.webhookQuarantineCapped, 1);
    } else {
      deps.telemetry.log.warn('refused webhook not quarantined', { reason, why: kept.why });
    }
  } catch (error) {
    deps.telemetry.log.error('refused webhook could not be quarantined', { reason, error: describeError(error) });
  }
}

function reject(status: 400 | 401 | 413, reason: RejectionReason, message: string): WebhookOutcome {
  return { kind: 'rejected', status, reason, message };
}

function report(outcome: WebhookOutcome, bodyBytes: number, { log, metrics }: Telemetry): void {
  switch (outcome.kind) {
    case 'accepted':
      // Every webhook is one of these: the metric counts them; the line is for debugging (logLevel DEBUG).
      log.debug('webhook accepted', {
        idempotency_key: outcome.idempotencyKey,
        bot_id: outcome.botId,
        trigger: outcome.trigger,
        message_id: outcome.messageId,
        body_location: outcome.bodyLocation,
        body_bytes: bodyBytes,
      });
      metrics.emit(METRICS.webhookAccepted, 1);
      if (outcome.bodyLocation === 's3') metrics.emit(METRICS.webhookClaimChecked, 1);
      return;
    case 'rejected':
      log.warn('webhook rejected', {
        reason: outcome.reason,
        status: outcome.status,
        detail: outcome.message,
        body_bytes: bodyBytes,
      });
      metrics.emit(METRICS.webhookRejected, 1, { reason: outcome.reason });
      return;
    case 'unavailable':
      metrics.emit(
        outcome.reason === 'queue-unavailable' ? METRICS.webhookQueueFailed : METRICS.signingSecretUnavailable,
        1,
      );
      return;
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The HTTP answer for an outcome: a small JSON body that says what happened and why. */
export function outcomeResponse(outcome: WebhookOutcome): { status: number; body: string } {
  const body =
    outcome.kind === 'accepted'
      ? { status: 'accepted', idempotency_key: outcome.idempotencyKey, message_id: outcome.messageId }
      : { status: outcome.kind, ...apiError(outcome.reason, outcome.message) };
  return { status: outcome.status, body: JSON.stringify(body) };
}
