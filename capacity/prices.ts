/**
 * AWS list prices the cost model multiplies, in one place. Region us-east-1,
 * on-demand, no free tier, as published on each service's pricing page
 * (aws.amazon.com/<service>/pricing), recorded 2026-11-23. Prices change: check
 * the pages before quoting a figure, and edit here only.
 */
export const PRICES = {
  region: 'us-east-1',
  recorded: '2026-11-23',
  httpApiPerMillionRequests: 1.0,
  lambdaPerMillionRequests: 0.2,
  /** arm64 (Graviton), first pricing tier. */
  lambdaPerGbSecondArm: 0.0000133334,
  /** On-demand capacity mode (after the November 2024 reduction). */
  dynamoPerMillionWriteUnits: 0.625,
  dynamoPerMillionReadUnits: 0.125,
  dynamoStoragePerGbMonth: 0.25,
  dynamoPitrPerGbMonth: 0.2,
  sqsStandardPerMillionRequests: 0.4,
  sqsFifoPerMillionRequests: 0.5,
  s3PutPer1000Requests: 0.005,
  s3GetPer1000Requests: 0.0004,
  s3StandardPerGbMonth: 0.023,
  s3GlacierInstantRetrievalPerGbMonth: 0.004,
  cloudwatchLogsIngestPerGb: 0.5,
  cloudwatchLogsStoragePerGbMonth: 0.03,
  /** Per metric an alarm reads (standard resolution): a metric-math alarm pays for each metric it combines. */
  cloudwatchAlarmPerMonth: 0.1,
  cloudwatchDashboardPerMonth: 3.0,
  cloudwatchCustomMetricPerMonth: 0.3,
  stepFunctionsPer1000Transitions: 0.025,
  secretsManagerPerSecretMonth: 0.4,
  /** A customer managed key, rotation on (a key scheduled for deletion is not billed). */
  kmsKeyPerMonth: 1.0,
  secretsManagerPer10000Calls: 0.05,
  xrayPerMillionTracesRecorded: 5.0,
  /** Custom events, per 64 KB chunk of an entry (ours are under 1 KB). */
  eventBridgePerMillionEvents: 1.0,
} as const;
