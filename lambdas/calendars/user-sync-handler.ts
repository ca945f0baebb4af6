/** Lambda entry point for the user-sync queue: one company calendar user's incremental sync per message. */
import { telemetry, withPowertools } from '../shared/powertools';
import { syncCompanyUser } from './company-parts';
import { companySyncDependencies } from './dependencies';
import { createUserSyncHandler } from './user-sync-adapter';

const deps = companySyncDependencies();

export const handler = withPowertools(createUserSyncHandler((request) => syncCompanyUser(request, deps), telemetry));
