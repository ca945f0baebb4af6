/**
 * Names of the stack's CloudFormation outputs that tools read (the CLI, the MCP
 * server): the stack declares them from here, so a rename reaches both sides.
 */
export const STACK_OUTPUTS = {
  /** The HTTP API's base, no trailing slash. */
  apiUrl: 'ApiUrl',
  readApiUrl: 'ReadApiUrl',
  /** Ends in `/schedules/{id}`. */
  scheduleApiUrl: 'ScheduleApiUrl',
  webhookUrl: 'WebhookUrl',
  eventsQueueUrl: 'EventsQueueUrl',
  archiveQueueUrl: 'ArchiveQueueUrl',
  erasureQueueUrl: 'ErasureQueueUrl',
  /** The company calendars' fan-out queue (one message per user sync). */
  userSyncQueueUrl: 'CalendarUserSyncQueueUrl',
  payloadBucket: 'PayloadBucketName',
  recordingsBucket: 'RecordingsBucketName',
  tableName: 'MeetingsTableName',
  signingSecretName: 'SigningSecretName',
  /** The API key's secret and the service's API root: `meeting-pipeline doctor` checks both. */
  apiKeySecretName: 'ApiKeySecretName',
  upstreamBaseUrl: 'UpstreamBaseUrl',
  /** Every alarm of the stack notifies this topic (the doctor finds them by it). */
  alarmTopicArn: 'AlarmTopicArn',
  /** The bus calendar events go to (the named producers' only way to put them; `dlq redrive calendar` too). */
  calendarEventBusName: 'CalendarEventBusName',
  calendarEventBusArn: 'CalendarEventBusArn',
  /** The lake's Athena workgroup and Glue database (`meeting-pipeline search` and `query` run there). */
  lakeWorkGroup: 'LakeWorkGroup',
  lakeDatabase: 'LakeDatabase',
  /** `s3://<bucket>/lake-results/`: the workgroup's enforced result location. */
  lakeResultsLocation: 'LakeResultsLocation',
} as const;

/** The dead-letter queues by the name their outputs (and alarms) carry. */
export const DEAD_LETTER_QUEUE_OUTPUTS = {
  events: 'EventsDeadLetterQueue',
  archive: 'ArchiveDeadLetterQueue',
  calendar: 'CalendarEventsDeadLetterQueue',
  erasure: 'ErasureDeadLetterQueue',
  userSync: 'CalendarUserSyncDeadLetterQueue',
} as const;

/** Each dead-letter queue has `<name>Url` and `<name>Arn` outputs. */
export const dlqOutputs = (outputName: string) => ({ url: `${outputName}Url`, arn: `${outputName}Arn` });
