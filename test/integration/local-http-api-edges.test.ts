/**
 * The local HTTP API is open on loopback, so what a web page in the operator's
 * browser can do to it matters: a page that rebinds its own name to 127.0.0.1 is
 * refused by Host (421), a path with a bad escape is a 400, and no request, not
 * even one whose handler throws, ends the process. The emulators the dev run
 * starts (the simulated service included) refuse foreign Hosts the same way.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoEmulator } from '../../local/emulators/dynalite';
import { startSqsS3Emulator } from '../../local/emulators/fauxqs';
import { type HttpRouteHandler, type LocalHttpApi, startLocalHttpApi } from '../../local/http-api-server';
import { SimulatedServiceApi } from '../../local/simulator/api-server';

/** What the route handlers were called with. */
const calls: string[] = [];
const echo: HttpRouteHandler = async (event) => {
  calls.push(`${event.routeKey} ${JSON.stringify(event.pathParameters ?? {})}`);
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event.pathParameters ?? {}),
  };
};
const failing: HttpRouteHandler = async () => {
  throw new Error('secret detail at /home/operator/stack.ts:12');
};

let api: LocalHttpApi;
let port: number;

beforeAll(async () => {
  api = await startLocalHttpApi({ webhooks: failing, read: () => echo, erase: () => echo, schedules: () => echo });
  port = Number(new URL(api.baseUrl).port);
});
afterAll(async () => {
  await api?.stop();
});

interface Answer {
  status: number;
  body: string;
}

/** A raw request with the Host header a browser would send for the page's own name. */
function send(method: string, path: string, host: string, targetPort = port): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port: targetPort, method, path, headers: { host } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the local HTTP API', () => {
  it.each([
    ['GET', '/meetings/bot_1'],
    ['DELETE', '/meetings/bot_1'],
    ['GET', '/schedules/s1'],
  ])('refuses %s %s addressed to another name (DNS rebinding) with 421, calling nothing', async (method, path) => {
    calls.length = 0;
    for (const host of [`attacker.example:${port}`, 'attacker.example', `127.0.0.1.attacker.example:${port}`]) {
      const answer = await send(method, path, host);
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body).error.message).toMatch(/is not this server/);
    }
    expect(calls).toEqual([]);
  });

  it('refuses a loopback name on another port (a page on another local server)', async () => {
    expect((await send('GET', '/meetings/bot_1', `localhost:${port + 1}`)).status).toBe(421);
  });

  it.each(['127.0.0.1', '[::1]', 'localhost', 'LOCALHOST'])('answers Host %s with its port', async (name) => {
    const answer = await send('GET', '/meetings/bot_1', `${name}:${port}`);
    expect(answer).toEqual({ status: 200, body: '{"bot_id":"bot_1"}' });
  });

  it.each([
    ['GET', '/meetings/%E0%A4%A'],
    ['DELETE', '/meetings/%E0%A4%A'],
    ['GET', '/schedules/%ZZ'],
  ])('answers %s %s (a bad escape) 400 with the reason, and goes on', async (method, path) => {
    const answer = await send(method, path, `127.0.0.1:${port}`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toMatch(/not valid percent-encoded UTF-8/);
    expect((await send('GET', '/meetings/bot_2', `127.0.0.1:${port}`)).status).toBe(200);
  });

  it('answers a handler that throws 500 without its details, and goes on', async () => {
    const answer = await send('POST', '/webhooks', `127.0.0.1:${port}`);
    expect(answer.status).toBe(500);
    expect(answer.body).not.toMatch(/secret|operator|stack/);
    expect((await send('GET', '/meetings/bot_3', `127.0.0.1:${port}`)).status).toBe(200);
  });
});

describe('the emulators the dev run starts', () => {
  it('refuse a foreign Host with 421 and still serve loopback', async () => {
    const sqsS3 = await startSqsS3Emulator();
    const dynamo = await startDynamoEmulator();
    const simulator = new SimulatedServiceApi();
    const simulatorUrl = await simulator.start();
    try {
      for (const endpoint of [sqsS3.endpoint, dynamo.endpoint, simulatorUrl]) {
        const emulatorPort = Number(new URL(endpoint).port);
        const foreign = await send('GET', '/', `attacker.example:${emulatorPort}`, emulatorPort);
        expect(foreign.status).toBe(421);
        const local = await send('GET', '/', `127.0.0.1:${emulatorPort}`, emulatorPort);
        expect(local.status).not.toBe(421);
      }
    } finally {
      await sqsS3.stop();
      await dynamo.stop();
      await simulator.stop();
    }
  });
});
