/** An API key that cannot be a header value is refused by name, and no message ever carries a key. */
import { describe, expect, it } from 'vitest';
import { headerSecret, MalformedSecretError, staticSecret } from '../../lambdas/core/secrets';
import type { LogSink, Telemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';

const SECRET_NAME = 'meeting-pipeline/api-key';
const HIDDEN = 'k3y-part-that-must-never-show';

describe('headerSecret', () => {
  it.each([
    ['a trailing newline', `${HIDDEN}\n`, /contains a line break/],
    ['a CR LF in the middle', `abc\r\n${HIDDEN}`, /contains a line break/],
    ['a NUL', `abc\0${HIDDEN}`, /contains a NUL character/],
    ['a tab', `abc\t${HIDDEN}`, /contains a control character/],
    ['a leading space', ` ${HIDDEN}`, /has leading or trailing whitespace/],
    ['a trailing space', `${HIDDEN} `, /has leading or trailing whitespace/],
    ['nothing', '', /is empty/],
  ])('refuses a key with %s, naming the secret and not the value', async (_label, value, reason) => {
    const read = headerSecret(staticSecret(value), SECRET_NAME).read();
    await expect(read).rejects.toBeInstanceOf(MalformedSecretError);
    const message = await read.catch((error: Error) => error.message);
    expect(message).toMatch(reason);
    expect(message).toContain(SECRET_NAME);
    expect(message).not.toContain(HIDDEN);
    expect(message).not.toContain('abc');
  });

  it('passes a well-formed key through unchanged', async () => {
    await expect(headerSecret(staticSecret(`tok_${HIDDEN}`), SECRET_NAME).read()).resolves.toBe(`tok_${HIDDEN}`);
  });
});

describe('the REST client and a key', () => {
  const lines: string[] = [];
  const sink =
    (level: string) =>
    (message: string, ...attributes: Record<string, unknown>[]) =>
      void lines.push(`${level} ${message} ${JSON.stringify(attributes)}`);
  const log: LogSink = { debug: sink('debug'), info: sink('info'), warn: sink('warn'), error: sink('error') };
  const metrics: string[] = [];
  const telemetry: Telemetry = {
    log,
    metrics: {
      emit: (metric, _value, ...dimensions) => void metrics.push(`${metric.name} ${JSON.stringify(dimensions[0])}`),
    },
  };

  it('sends nothing with a key holding a newline, and the error carries no part of it', async () => {
    let calls = 0;
    const client = new UpstreamClient({
      baseUrl: 'https://meeting-assistant.example.com/api/v1/',
      apiKey: async () => `abc\n${HIDDEN}`,
      telemetry,
      fetch: async () => {
        calls++;
        return new Response('{}');
      },
    });
    const error = await client.getBot('bot_1').catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(MalformedSecretError);
    expect(error.message).toBe('the API key contains a line break; nothing was sent');
    expect(calls).toBe(0);
    expect([...lines, ...metrics].join('\n')).not.toContain(HIDDEN);
  });

  it('redacts the key when the HTTP library quotes a header value in its error', async () => {
    const key = `tok_${HIDDEN}`;
    const client = new UpstreamClient({
      baseUrl: 'https://meeting-assistant.example.com/api/v1/',
      apiKey: async () => key,
      telemetry,
      maxAttempts: 2,
      sleep: async () => {},
      fetch: async (_url, init) => {
        const authorization = new Headers(init?.headers).get('authorization');
        throw new TypeError(`Headers.append: "${authorization}" is an invalid header value.`);
      },
    });
    const error = await client.getBot('bot_1').catch((caught: Error) => caught);
    expect(error.message).toContain('[api key]');
    expect(error.message).not.toContain(HIDDEN);
    expect([...lines, ...metrics].join('\n')).not.toContain(HIDDEN);
  });
});
