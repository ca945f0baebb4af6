/**
 * `meeting_stats`: the lake's aggregate questions over archived meetings, all time by default:
 * talk time per speaker, meetings per participant, meetings per day.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { STATS_QUESTIONS, type StatsAnswer } from '../../../lambdas/core/lake/lake-questions-contract';
import { DAY_PATTERN } from '../days';
import { callLake, costOf, lakeRange, type MeetingLake } from '../lake-calls';
import { answer, guarded } from '../tool-result';
import { toolInput } from './inputs';

export const MEETING_STATS = { defaultRows: 100, maxRows: 1000 } as const;

const QUESTION_HELP: Record<StatsAnswer['question'], string> = {
  'talk-time': 'talk time per speaker (ms spoken, lines, meetings), most first',
  'meetings-per-participant': 'meetings per participant name, most first',
  'meetings-per-day': 'meetings and their total duration per UTC day',
};

const dayInput = (what: string) => z.string().regex(DAY_PATTERN).optional().describe(what);

const input = {
  question: z.enum(STATS_QUESTIONS).describe(
    Object.entries(QUESTION_HELP)
      .map(([question, help]) => `${question}: ${help}`)
      .join('; '),
  ),
  from: dayInput('First UTC day of meetings counted, YYYY-MM-DD (default: the first day the lake holds).'),
  to: dayInput('Last UTC day of meetings counted, YYYY-MM-DD (default: today).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MEETING_STATS.maxRows)
    .default(MEETING_STATS.defaultRows)
    .describe('Rows at most, largest first.'),
};

const output = {
  question: z.enum(STATS_QUESTIONS),
  note: z.string().describe('What was counted, over which days, where it ran and what it scanned.'),
  rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
  engine: z.enum(['athena', 'duckdb']),
  bytes_scanned: z.number(),
  elapsed_ms: z.number(),
};

/** Rows as an aligned text table, for clients that read only the text. */
function table(rows: ReadonlyArray<Record<string, string | number | null>>): string {
  const first = rows[0];
  if (first === undefined) return '(no rows)';
  const columns = Object.keys(first);
  const cells = [columns, ...rows.map((row) => columns.map((column) => String(row[column] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function registerMeetingStats(server: McpServer, lake: MeetingLake): void {
  server.registerTool(
    'meeting_stats',
    {
      title: 'Meeting statistics',
      description: `Counts over every archived meeting (all time unless from/to narrow it): ${Object.entries(
        QUESTION_HELP,
      )
        .map(([question, help]) => `"${question}" gives ${help}`)
        .join(
          '; ',
        )}. Runs on the meetings lake; a long query reports progress and stops after a deadline, saying how to narrow it.`,
      inputSchema: toolInput('meeting_stats', input),
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(async () => {
        const stats = await callLake(
          lake,
          extra,
          { tool: 'meeting_stats', narrow: 'narrow it with from/to (fewer days)' },
          (options) =>
            lake.questions.lakeStats(
              lake.engine,
              {
                question: args.question,
                limit: args.limit,
                ...(args.from !== undefined && { from: args.from }),
                ...(args.to !== undefined && { to: args.to }),
              },
              options,
            ),
        );
        const rows = stats.rows.map((row) => ({ ...row }));
        const range = lakeRange(args);
        const cut = rows.length === args.limit ? `; the first ${args.limit} rows (raise limit for more)` : '';
        const note = `${QUESTION_HELP[stats.question]}, meetings of ${range}: ${rows.length} row(s)${cut}; from the meetings lake (${costOf(stats)}).`;
        return answer(
          {
            question: stats.question,
            note,
            rows,
            engine: stats.engine,
            bytes_scanned: stats.bytes_scanned,
            elapsed_ms: stats.elapsed_ms,
          },
          `${note}\n\n${table(rows)}`,
        );
      }),
  );
}
