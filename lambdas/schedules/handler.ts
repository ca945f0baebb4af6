/** Lambda entry point for the schedule API and calendar events. */
import { DEFAULT_TIMING } from '../core/schedule/schedule-request';
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { sfnClient, stepFunctionsExecutions } from '../shared/sfn-executions';
import { upstreamClient } from '../shared/upstream';
import { createSchedulesHandler } from './adapter';
import { schedulesEnvironmentSchema } from './environment';

const env = schedulesEnvironmentSchema.parse(process.env);
const handle = createSchedulesHandler({
  table: { db: documentClient(), tableName: env.TABLE_NAME },
  executions: stepFunctionsExecutions(sfnClient(), env.STATE_MACHINE_ARN),
  upstream: upstreamClient(env, telemetry),
  timing: { ...DEFAULT_TIMING, leadMs: env.LAUNCH_LEAD_SECONDS * 1000 },
  telemetry,
  now: Date.now,
});

export const handler = withPowertools(handle);
