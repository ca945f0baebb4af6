import { describe, expect, it } from 'vitest';
import { ConfigError, configFromContext, parseConfig } from '../../lib/config';
import { testApp } from './synth';

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
      quarantineMaxPerMinute: 600,
      quarantineMaxBytesPerMinute: 16 * 1024 * 1024,
      quarantineMaxPerBotPerDay: 1000,
      secretCacheSeconds: 60,
      webhookRateLimit: 1500,
      webhookBurstLimit: 3000,
      ingressReservedConcurrency: 150,
      dedupRetentionDays: 7,
      eventConcurrency: 25,
      archiveConcurrency: 20,
      launchReservedConcurrency: 10,
      accountConcurrency: 1000,
      logLevel: 'INFO',
      tracing: 'off',
      recordingUploadPartMiB: 16,
      recordingArchiveClass: 'GLACIER_IR',
      recordingTransitionDays: 30,
      maxRecordingBytes: 10 * 1024 ** 3,
      recordingDownloadMinutes: 12,
      recordingDownloadMinKiBPerSecond: 256,
      recordingWaitMinutes: 30,
      replacedVersionRetentionDays: 30,
      reconcileEveryMinutes: 5,
      calendarSyncEveryMinutes: 5,
      calendarMaxNewSchedulesPerSync: 50,
      calendarMaxNewSchedulesPerDay: 200,
      calendarCredentialsSecretPrefix: 'meeting-pipeline/calendars/',
      googleCalendarApiUrl: 'https://www.googleapis.com/calendar/v3',
      googleDirectoryApiUrl: 'https://admin.googleapis.com/admin/directory/v1',
      googleTokenUrl: 'https://oauth2.googleapis.com/token',
      microsoftGraphUrl: 'https://graph.microsoft.com/v1.0',
      microsoftLoginUrl: 'https://login.microsoftonline.com',
      calendarUserSyncConcurrency: 10,
      calendarPushMaxBodyBytes: 65_536,
      calendarPushRenewMarginMinutes: 180,
      reconcileStaleAfterMinutes: 15,
      reconcileMaxMeetings: 50,
      launchLeadSeconds: 900,
      recordingLinkMinutes: 15,
      accessLogRetentionDays: 90,
      maxEventAgeSeconds: 300,
      signatureRejectionThreshold: 20,
      missedMeetingsAlarmPercent: 20,
      eraseUpstream: false,
      eraseOnUpstreamDelete: true,
      calendarEventProducers: [],
      lakeFirstDay: '2026-01-01',
      lakeBytesScannedCutoffGiB: 10,
      lakeResultsExpireDays: 1,
      lakeCompactAfterHours: 30,
      retainData: true,
    });
  });

  it('takes calendar event producers as a list, or comma-separated with -c, and refuses a wildcard', () => {
    const base = { upstreamBaseUrl: 'https://m.example.org/api/v1/' };
    const role = 'arn:aws:iam::222222222222:role/team/calendar-integration';
    expect(parseConfig({ ...base, calendarEventProducers: ['333333333333', role] }).calendarEventProducers).toEqual([
      '333333333333',
      role,
    ]);
    expect(parseConfig({ ...base, calendarEventProducers: `333333333333, ${role}` }).calendarEventProducers).toEqual([
      '333333333333',
      role,
    ]);
    for (const bad of ['*', 'arn:aws:iam::222222222222:role/*', '12345', 'arn:aws:sts::222222222222:assumed-role/x/y'])
      expect(() => parseConfig({ ...base, calendarEventProducers: [bad] }), bad).toThrow(ConfigError);
  });

  it('accepts a reservation that leaves exactly the 100 Lambda requires unreserved', () => {
    // 1,000 - (889 + 10 + 1) = 100; the queue consumers' caps (25 + 20) fit in it.
    expect(
      parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/', ingressReservedConcurrency: 889 }),
    ).toMatchObject({ ingressReservedConcurrency: 889 });
  });

  it('reads -c key=value strings from context', () => {
    const app = testApp({
      upstreamBaseUrl: 'https://m.example.org/api/v1/',
      logRetentionDays: '90',
      retainData: 'false',
      maxWebhookBodyBytes: '2048',
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
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', lakeFirstDay: '2026-1-1' }, /lakeFirstDay: must be a date/],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', lakeFirstDay: '2026-02-30' },
      /lakeFirstDay: must be a real date/,
    ],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', lakeBytesScannedCutoffGiB: 0 }, /lakeBytesScannedCutoffGiB/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', lakeResultsExpireDays: 0 }, /lakeResultsExpireDays/],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', launchLeadSeconds: 60 },
      /launchLeadSeconds: must be at least 600: the service starts a scheduled bot up to 10 minutes/,
    ],
    [
      // 1,000 - (850 + 10 + 1) leaves 139: fine; 900 leaves 89.
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', ingressReservedConcurrency: 900 },
      /accountConcurrency: 1000 leaves 89 unreserved after the 911 reserved .*at least 100/,
    ],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', accountConcurrency: 5000, launchReservedConcurrency: 4849 },
      /accountConcurrency: 5000 leaves 0 unreserved/,
    ],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', ingressReservedConcurrency: 800, eventConcurrency: 180 },
      /eventConcurrency: 180 with archiveConcurrency 20 exceeds the 189 unreserved/,
    ],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', tracing: 'sampled' }, /tracing/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', logLevel: 'TRACE' }, /logLevel/],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', recordingUploadPartMiB: 4 }, /recordingUploadPartMiB/],
    [
      {
        upstreamBaseUrl: 'https://m.example.org/api/v1/',
        recordingUploadPartMiB: 5,
        maxRecordingBytes: 60 * 1024 ** 3,
      },
      /recordingUploadPartMiB: 5 MiB parts cannot hold a recording of maxRecordingBytes/,
    ],
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', recordingArchiveClass: 'GLACIER' }, /recordingArchiveClass/],
    // The archive function runs 15 minutes: a download deadline past 14 would end in its timeout instead.
    [{ upstreamBaseUrl: 'https://m.example.org/api/v1/', recordingDownloadMinutes: 15 }, /recordingDownloadMinutes/],
    [
      { upstreamBaseUrl: 'https://m.example.org/api/v1/', recordingDownloadMinKiBPerSecond: 0 },
      /recordingDownloadMinKiBPerSecond/,
    ],
  ])('refuses %j with a clear message', (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(message);
  });

  describe('company calendar settings', () => {
    const base = { upstreamBaseUrl: 'https://m.example.org/api/v1/' };
    const oneLine = (raw: Record<string, unknown>): string => {
      try {
        parseConfig({ ...base, ...raw });
      } catch (error) {
        if (error instanceof ConfigError) return error.oneLine;
        throw error;
      }
      throw new Error(`${JSON.stringify(raw)} was accepted`);
    };

    it('takes national-cloud endpoints as given, without a trailing slash', () => {
      expect(
        parseConfig({
          ...base,
          microsoftGraphUrl: 'https://graph.microsoft.us/v1.0/',
          microsoftLoginUrl: 'https://login.microsoftonline.us',
        }),
      ).toMatchObject({
        microsoftGraphUrl: 'https://graph.microsoft.us/v1.0',
        microsoftLoginUrl: 'https://login.microsoftonline.us',
      });
    });

    it.each([
      [
        { googleTokenUrl: 'http://oauth2.googleapis.com/token' },
        /googleTokenUrl \(given "http:[^)]*\): must use https/,
      ],
      [
        { microsoftGraphUrl: 'graph.microsoft.com' },
        /microsoftGraphUrl \(given "graph.microsoft.com"\): must be a URL/,
      ],
      [{ googleCalendarApiUrl: 'https://www.googleapis.com/calendar/v3?key=x' }, /googleCalendarApiUrl .*no query/],
      [{ googleDirectoryApiUrl: '' }, /googleDirectoryApiUrl/],
      [{ microsoftLoginUrl: 'https://login.example/#x' }, /microsoftLoginUrl .*no query or fragment/],
      [
        { calendarCredentialsSecretPrefix: 'meeting-pipeline/calendars' },
        /calendarCredentialsSecretPrefix .*ending in '\/'/,
      ],
      [{ calendarCredentialsSecretPrefix: 'calendars/*/' }, /calendarCredentialsSecretPrefix/],
      [{ calendarCredentialsSecretPrefix: '' }, /calendarCredentialsSecretPrefix/],
      [
        { calendarCredentialsSecretPrefix: 'meeting-pipeline/' },
        /calendarCredentialsSecretPrefix \(given "meeting-pipeline\/"\): covers apiKeySecretName/,
      ],
      [
        { calendarCredentialsSecretPrefix: 'shared/', signingSecretName: 'shared/signing' },
        /calendarCredentialsSecretPrefix \(given "shared\/"\): covers signingSecretName \(shared\/signing\)/,
      ],
      [{ calendarUserSyncConcurrency: 1 }, /calendarUserSyncConcurrency \(given 1\)/],
      [{ calendarUserSyncConcurrency: 'ten' }, /calendarUserSyncConcurrency/],
      [
        { ingressReservedConcurrency: 800, eventConcurrency: 100, calendarUserSyncConcurrency: 80 },
        /calendarUserSyncConcurrency \(given 80\): 80 with eventConcurrency 100 and archiveConcurrency 20 exceeds the 189 unreserved/,
      ],
      [{ calendarPushMaxBodyBytes: 100 }, /calendarPushMaxBodyBytes \(given 100\)/],
      [{ calendarPushMaxBodyBytes: 'big' }, /calendarPushMaxBodyBytes/],
      [{ calendarPushRenewMarginMinutes: 0 }, /calendarPushRenewMarginMinutes \(given 0\)/],
      [
        { calendarSyncEveryMinutes: 60, calendarPushRenewMarginMinutes: 60 },
        /calendarPushRenewMarginMinutes \(given 60\): must exceed calendarSyncEveryMinutes \(60\)/,
      ],
    ])('refuses %j on one line, naming the setting and why', (raw, message) => {
      expect(oneLine(raw)).toMatch(message);
    });
  });
});
