/**
 * PLACEHOLDER so that h/infra synthesizes before h/maintenance is merged: the maintenance helper
 * owns this file (the daily compaction run). On merge, take theirs. It names the day lease key the
 * real run takes, so that test/infra/table-grants.test.ts reads the partition its grant is for.
 */
import { keys } from '../core/store/table-layout';

export const handler = async (): Promise<never> => {
  throw new Error(`lake compaction is not merged into this branch (it would lease ${keys.lakeDayLease('<day>').pk})`);
};
