import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromContext, parseConfig } from '../../lib/config';

describe('configuration', () => {
  it('applies documented defaults', () => {
    expect(parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/' })).toEqual({
      upstreamBaseUrl: 'https://m.example.org/api/v1/',
      apiKeySecretName: 'meeting-pipeline/api-key',
      signingSecretName: 'meeting-pipeline/webhook-signing-secret',
      logRetentionDays: 30,
      maxWebhookBodyBytes: 1_048_576,
      payloadRetentionDays: 30,
      quarantineRetentionDays: 14,
      secretCacheSeconds: 60,
      webhookRateLimit: 200,
      webhookBurstLimit: 400,
      dedupRetentionDays: 7,
      eventConcurrency: 10,
      maxRecordingBytes: 10 * 1024 ** 3,
      recordingWaitMinutes: 30,
      replacedVersionRetentionDays: 30,
      reconcileEveryMinutes: 5,
      reconcileStaleAfterMinutes: 15,
      reconcileMaxMeetings: 50,
      launchLeadSeconds: 900,
      accessLogRetentionDays: 90,
      maxEventAgeSeconds: 300,
      signatureRejectionThreshold: 20,
      retainData: true,
    });
  });

  it('reads -c key=value strings from context', () => {
    const app = new App({
      context: {
        upstreamBaseUrl: 'https://m.example.org/api/v1/',
        logRetentionDays: '90',
        retainData: 'false',
        maxWebhookBodyBytes: '2048',
      },
    });
    expect(configFromContext(app.node)).toMatchObject({
      logRetentionDays: 90,
      retainData: false,
      maxWebhookBodyBytes: 2048,
    });
  });

  it.each([
    [{}, /upstreamBaseUrl/],
    [{ upstreamBaseUrl: 'http://m.example.org/api/v1/' }, /upstreamBaseUrl: must use https/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1' }, /must end in \/api\/v1\//],
    [{ upstreamBaseUrl: 'not a url' }, /must be a URL/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', logRetentionDays: 10 }, /logRetentionDays: must be one of/],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', payloadRetentionDays: 7 },
      /payloadRetentionDays: must be more than the 14-day/,
    ],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', maxWebhookBodyBytes: 10_000_000 }, /maxWebhookBodyBytes/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', retainData: 'yes' }, /retainData/],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', launchLeadSeconds: 60 },
      /launchLeadSeconds: must be at least 600: the service starts a scheduled bot up to 10 minutes/,
    ],
  ])('refuses %j with a clear message', (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(message);
  });
});
