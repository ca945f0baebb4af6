/**
 * Delivers webhooks as the service does: signed (the simulator's own signer),
 * POSTed with a 10 s timeout, up to 3 attempts on a non-2xx answer or no answer,
 * in no particular order, each with the service's `User-Agent`. Chaos, when on, duplicates, delays (reorders) and drops
 * a share of them.
 */
import type { PyValue } from './python-json';
import { signWebhook } from './webhook-signer';

export interface Chaos {
  /** Share of webhooks delivered twice. */
  duplicate: number;
  /** Longest extra delay before a delivery (reorders them), ms. */
  maxDelayMs: number;
  /** Share of webhooks never delivered, for triggers the pipeline can heal. */
  drop: number;
  /** Triggers that may be dropped: lost state changes are healed by the reconciler, utterances by the archive. */
  droppable: ReadonlySet<string>;
}

/** The `User-Agent` the service puts on every webhook delivery. */
export const WEBHOOK_USER_AGENT = 'Attendee-Webhook/1.0';

export const NO_CHAOS: Chaos = { duplicate: 0, maxDelayMs: 0, drop: 0, droppable: new Set() };
export const DEFAULT_CHAOS: Chaos = {
  duplicate: 0.2,
  maxDelayMs: 1_500,
  drop: 0.1,
  droppable: new Set(['bot.state_change', 'transcript.update']),
};

export interface DeliveryStats {
  sent: number;
  delivered: number;
  duplicated: number;
  dropped: number;
  failed: number;
  attempts: number;
}

export class WebhookSender {
  readonly stats: DeliveryStats = { sent: 0, delivered: 0, duplicated: 0, dropped: 0, failed: 0, attempts: 0 };
  /** Idempotency keys the ingress accepted (2xx), by bot: what a meeting's delivery log must list. */
  readonly acceptedKeys = new Map<string, Set<string>>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      url: () => string;
      signingSecret: string;
      chaos: Chaos;
      random: () => number;
      timeoutMs?: number;
    },
  ) {}

  send(payload: { [key: string]: PyValue }): void {
    const { chaos, random } = this.options;
    this.stats.sent++;
    if (chaos.drop > 0 && chaos.droppable.has(String(payload.trigger)) && random() < chaos.drop) {
      this.stats.dropped++;
      return;
    }
    const copies = random() < chaos.duplicate ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    const signed = signWebhook(payload, this.options.signingSecret);
    const accepted = () => {
      const bot = String(payload.bot_id);
      const keys = this.acceptedKeys.get(bot) ?? new Set<string>();
      keys.add(String(payload.idempotency_key));
      this.acceptedKeys.set(bot, keys);
    };
    for (let copy = 0; copy < copies; copy++) {
      const delivery = this.deliver(signed, Math.floor(random() * chaos.maxDelayMs), accepted).finally(() =>
        this.inFlight.delete(delivery),
      );
      this.inFlight.add(delivery);
    }
  }

  /** Resolves when every delivery under way has succeeded or given up. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(
    signed: { body: Buffer; signature: string },
    delayMs: number,
    onAccepted: () => void,
  ): Promise<void> {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    for (let attempt = 1; attempt <= 3; attempt++) {
      this.stats.attempts++;
      try {
        const response = await fetch(this.options.url(), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': WEBHOOK_USER_AGENT,
            'x-webhook-signature': signed.signature,
          },
          body: signed.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        await response.arrayBuffer();
        if (response.status >= 200 && response.status < 300) {
          this.stats.delivered++;
          onAccepted();
          return;
        }
      } catch {
        // no answer in time, or no connection: try again
      }
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
    this.stats.failed++;
  }
}
