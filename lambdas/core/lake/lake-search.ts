/**
 * PLACEHOLDER so that h/infra compiles before h/questions is merged: the questions helper owns this
 * file (LakeSearchFunctions). On merge, take theirs.
 */
import type { LakeSearchFunctions } from './lake-questions-contract';

const missing = async (): Promise<never> => {
  throw new Error('the lake questions are not merged into this branch');
};

export const searchTranscripts: LakeSearchFunctions['searchTranscripts'] = missing;
export const lakeStats: LakeSearchFunctions['lakeStats'] = missing;
export const listLakeMeetings: LakeSearchFunctions['listLakeMeetings'] = missing;
