/**
 * What calendar push takes from the rest of #25, built in other parts: a provider for
 * a company source (google/ and microsoft/ with the credentials reader) and a
 * calendar's users (company-store.ts). Until they are merged, a renewal run or a
 * lifecycle action fails here with this message (counted as failed, logged); the
 * notification routes need neither.
 */
import type { CompanyParts } from './dependencies';

const notYet = (): never => {
  throw new Error('company calendar providers and users are not wired into calendar push yet (#25)');
};

export const companyParts = (): CompanyParts => ({
  providerFor: async () => notYet(),
  listUsers: async () => notYet(),
});
