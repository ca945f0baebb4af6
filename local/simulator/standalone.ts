/**
 * The simulated service on its own (`npm run simulator`): its REST API on
 * 127.0.0.1, an API key, and the meetings of the bots it starts, whose signed
 * webhooks go to the webhook URL it is given. A local pipeline started with
 * `npm run dev -- --serve --upstream <its API URL>` talks to it as to a real service.
 */
import { randomBytes } from 'node:crypto';
import { seededRandom } from '../seeded-random';
import { SimulatedServiceApi } from './api-server';
import { playStartedBots } from './play-started-bots';
import { NO_CHAOS, WebhookSender } from './webhook-sender';

export interface StandaloneSimulatorOptions {
  port?: number;
  apiKey?: string;
  signingSecret: string;
  /** Where its webhooks go; may be set later (the pipeline's URL is known once it runs). */
  webhookUrl?: string;
  stepMs?: number;
  recordingBytes?: number;
  print?: (line: string) => void;
}

export interface StandaloneSimulator {
  apiBaseUrl: string;
  apiKey: string;
  service: SimulatedServiceApi;
  sender: WebhookSender;
  setWebhookUrl(url: string): void;
  stop(): Promise<void>;
}

export async function startStandaloneSimulator(options: StandaloneSimulatorOptions): Promise<StandaloneSimulator> {
  let webhookUrl = options.webhookUrl ?? '';
  const apiKey = options.apiKey ?? `sim_${randomBytes(16).toString('hex')}`;
  const service = new SimulatedServiceApi();
  const apiBaseUrl = await service.start(options.port ?? 0);
  service.apiKeys.set(apiKey, 'all');
  const random = seededRandom(Date.now() % 1_000_000);
  const sender = new WebhookSender({
    url: () => webhookUrl,
    signingSecret: options.signingSecret,
    chaos: NO_CHAOS,
    random,
  });
  playStartedBots(service, {
    sender,
    stepMs: options.stepMs ?? 700,
    recordingBytes: options.recordingBytes ?? 5 * 1024 * 1024,
    random,
    print: options.print ?? (() => undefined),
  });
  return {
    apiBaseUrl,
    apiKey,
    service,
    sender,
    setWebhookUrl: (url) => {
      webhookUrl = url;
    },
    async stop() {
      await sender.drain();
      await service.stop();
    },
  };
}
