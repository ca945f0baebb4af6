/** Lambda entry point for the user-sync queue: one company calendar user's incremental sync per message. */

import { consumeUserSyncRequest } from '../core/calendar/company/user-sync-consumer';
import { telemetry, withPowertools } from '../shared/powertools';
import { companySyncDependencies } from './dependencies';
import { companySyncEnvironmentSchema } from './environment';
import { createUserSyncHandler } from './user-sync-adapter';

const deps = companySyncDependencies(companySyncEnvironmentSchema.parse(process.env));

export const handler = withPowertools(
  createUserSyncHandler((request) => consumeUserSyncRequest(request, deps), telemetry),
);
