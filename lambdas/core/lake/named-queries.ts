/**
 * PLACEHOLDER so that h/infra compiles before h/questions is merged: the questions helper owns this
 * file (the common questions as Athena named queries, LAKE_NAMED_QUERIES). On merge, take theirs.
 */
export interface LakeNamedQuery {
  name: string;
  description: string;
  sql: string;
}

export const LAKE_NAMED_QUERIES: readonly LakeNamedQuery[] = [
  {
    name: 'meetings-per-day',
    description: 'Meetings and their summed duration per day in a day range, newest day first.',
    sql: "SELECT day, count(*) AS meetings, coalesce(sum(duration_ms), 0) AS duration_ms FROM meetings WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY day ORDER BY day DESC",
  },
];
