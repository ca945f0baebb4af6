#!/usr/bin/env node
/**
 * `npm run simulator -- --webhook-url URL [--port N]`: the simulated meeting
 * assistant service on its own, for `npm run dev -- --serve --upstream <its URL>`.
 */
import { parseArgs } from 'node:util';
import { newSigningSecret } from '../local/local-stack';
import { startStandaloneSimulator } from '../local/simulator/standalone';

const HELP = `npm run simulator -- --webhook-url URL [--port N] [--api-key KEY]

  --webhook-url URL   where the simulated service sends its signed webhooks (the pipeline's webhook URL)
  --port N            port of its REST API on 127.0.0.1 (default: any free port)
  --api-key KEY       the API key it accepts (default: generated and printed)
SIGNING_SECRET (base64) chooses the signing secret; otherwise one is generated and printed.`;

function fail(message: string): never {
  console.error(`npm run simulator: ${message} (npm run simulator -- --help lists the flags)`);
  process.exit(2);
}

let values: { 'webhook-url'?: string; port?: string; 'api-key'?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      'webhook-url': { type: 'string' },
      port: { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message.split('\n')[0] ?? 'bad flags');
}
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port takes a port number, not ${values.port}`);
if (values['webhook-url'] !== undefined && !URL.canParse(values['webhook-url'])) fail('--webhook-url takes a URL');

const signingSecret = process.env.SIGNING_SECRET ?? newSigningSecret();
const simulator = await startStandaloneSimulator({
  port,
  signingSecret,
  ...(values['api-key'] !== undefined && { apiKey: values['api-key'] }),
  ...(values['webhook-url'] !== undefined && { webhookUrl: values['webhook-url'] }),
  print: (line) => console.log(`${new Date().toISOString()}  ${line}`),
});
console.log(`simulated meeting assistant service
  API               ${simulator.apiBaseUrl}
  API key           ${simulator.apiKey}
  signing secret    ${process.env.SIGNING_SECRET ? '(from SIGNING_SECRET)' : signingSecret}
  webhooks go to    ${values['webhook-url'] ?? '(nowhere: pass --webhook-url)'}
Run the pipeline against it:
  UPSTREAM_API_KEY=${simulator.apiKey} SIGNING_SECRET=<the signing secret> npm run dev -- --serve --upstream ${simulator.apiBaseUrl}`);
const stop = async () => {
  await simulator.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
