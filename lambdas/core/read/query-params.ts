/** The read API's query parameters, checked: a bad value is a 400 that says what is allowed. */

import { OUTCOME_STATUSES, type OutcomeStatus } from '../outcome/outcome-reasons';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, TRANSCRIPT_FORMATS, type TranscriptFormat } from './read-api-contract';
import { badRequest } from './read-errors';

export type QueryParams = Readonly<Record<string, string | undefined>>;

export function pageLimit(params: QueryParams): number {
  const raw = params.limit;
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw badRequest('invalid-limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, not "${raw}"`);
  }
  return limit;
}

/** A UTC day, `yyyy-mm-dd`; today when absent. */
export function listingDay(params: QueryParams, now: Date): string {
  const raw = params.day;
  if (raw === undefined) return now.toISOString().slice(0, 10);
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? new Date(`${raw}T00:00:00Z`) : undefined;
  if (parsed === undefined || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== raw) {
    throw badRequest('invalid-day', `day must be a UTC date as yyyy-mm-dd, not "${raw}"`);
  }
  return raw;
}

/** A bot state to filter by (`ended`, `joined_recording`…). */
export function stateFilter(params: QueryParams): string | undefined {
  const raw = params.state;
  if (raw === undefined) return undefined;
  if (!/^[a-z][a-z_]{0,63}$/.test(raw))
    throw badRequest('invalid-state', `state must be a bot state such as "ended", not "${raw}"`);
  return raw;
}

/** An outcome status to filter by (`missed`, `recorded`…). */
export function outcomeFilter(params: QueryParams): OutcomeStatus | undefined {
  const raw = params.outcome;
  if (raw === undefined) return undefined;
  const status = OUTCOME_STATUSES.find((known) => known === raw);
  if (status === undefined)
    throw badRequest('invalid-outcome', `outcome must be one of ${OUTCOME_STATUSES.join(', ')}, not "${raw}"`);
  return status;
}

export function transcriptFormat(params: QueryParams): TranscriptFormat {
  const raw = params.format ?? 'json';
  if (!(TRANSCRIPT_FORMATS as readonly string[]).includes(raw)) {
    throw badRequest('invalid-format', `format must be one of ${TRANSCRIPT_FORMATS.join(', ')}, not "${raw}"`);
  }
  return raw as TranscriptFormat;
}
