/**
 * Where the calendar functions meet the parts of #25 built beside this one: core's
 * per-user sync, scheduled plan and company store (lambdas/core/calendar/company/),
 * and the Google and Microsoft providers. Until they are merged, each is declared
 * here with the signature it was promised and refuses at run time; the merge
 * replaces this file's body with their re-exports:
 *
 *   export { type CompanySyncDependencies, syncCompanyUser } from '../core/calendar/company/company-sync';
 *   export { planCompanySyncs } from '../core/calendar/company/company-run';
 *   export { type CompanyStore, companyStore } from '../core/calendar/company/company-store';
 *   export { createGoogleProvider } from '../core/calendar/company/google';
 *   export { createMicrosoftProvider } from '../core/calendar/company/microsoft';
 */
import type { CompanyCalendarSource } from '../core/calendar/calendar-source';
import type { CalendarProvider, UserSyncQueue, UserSyncRequest } from '../core/calendar/company/provider-contract';
import type { ProviderFactories } from '../core/calendar/company/providers';
import type { SyncDependencies } from '../core/calendar/sync-calendar';
import type { DomainEventPublisher } from '../core/domain-events/publisher';
import type { TableAccess } from '../core/store/dynamo';
import type { Telemetry } from '../core/telemetry';

export interface CompanyStore {
  listUsers(calendarId: string): Promise<unknown[]>;
}

export interface CompanySyncDependencies extends SyncDependencies {
  company: CompanyStore;
  providerFor(source: CompanyCalendarSource): Promise<CalendarProvider>;
  publisher: DomainEventPublisher;
  telemetry: Telemetry;
}

const notMerged = (name: string) => new Error(`${name} is not merged into this build yet (#25)`);

export function companyStore(_table: TableAccess): CompanyStore {
  return {
    listUsers: async () => {
      throw notMerged('companyStore');
    },
  };
}

export async function syncCompanyUser(_request: UserSyncRequest, _deps: CompanySyncDependencies): Promise<unknown> {
  throw notMerged('syncCompanyUser');
}

export async function planCompanySyncs(_deps: CompanySyncDependencies & { queue: UserSyncQueue }): Promise<unknown> {
  throw notMerged('planCompanySyncs');
}

export const createGoogleProvider: ProviderFactories['google'] = () => {
  throw notMerged('createGoogleProvider');
};

export const createMicrosoftProvider: ProviderFactories['microsoft'] = () => {
  throw notMerged('createMicrosoftProvider');
};
