import type { TableAccess } from '../store/dynamo';

/** What every apply step knows about the event it applies. */
export interface ApplyContext {
  table: TableAccess;
  botId: string;
  idempotencyKey: string;
  /** When the ingress accepted the webhook (ISO 8601, ms). */
  receivedAt: string;
}

/**
 * Version of an event among re-sends of the same thing (a corrected utterance, a
 * new summary): the newest accepted wins, ties broken by key so that every order
 * of processing ends the same way. Items written by version also keep the set of
 * keys applied to them, so redelivering an applied event never counts as newer.
 */
export const arrivalVersion = (ctx: ApplyContext): string => `${ctx.receivedAt}#${ctx.idempotencyKey}`;

/** Arbitrary JSON is kept as text: DynamoDB numbers cannot hold every JSON number. */
export const jsonText = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
