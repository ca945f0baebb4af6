/** One check of `meeting-pipeline doctor`: what was checked, how it went, and what to do when it failed. */

export type CheckStatus = 'ok' | 'fail' | 'skipped';

export interface CheckResult {
  /** Short, the same on every run: what is checked. */
  check: string;
  status: CheckStatus;
  /** What was found. */
  detail: string;
  /** On failure: what the operator does about it. */
  advice?: string;
}

export const ok = (check: string, detail: string): CheckResult => ({ check, status: 'ok', detail });
export const failed = (check: string, detail: string, advice: string): CheckResult => ({
  check,
  status: 'fail',
  detail,
  advice,
});
export const skipped = (check: string, detail: string): CheckResult => ({ check, status: 'skipped', detail });

const MARKS: Record<CheckStatus, string> = { ok: '✓', fail: '✗', skipped: '-' };

/** One line a check: mark, check, what was found and, on failure, `→ what to do`. */
export function checkLine(result: CheckResult, width: number): string {
  const advice = result.advice === undefined ? '' : ` → ${result.advice}`;
  return `${MARKS[result.status]} ${result.check.padEnd(width)}  ${result.detail}${advice}`;
}

export function checkLines(results: readonly CheckResult[]): string[] {
  const width = Math.max(0, ...results.map((r) => r.check.length));
  return results.map((r) => checkLine(r, width));
}

export const allHold = (results: readonly CheckResult[]): boolean => results.every((r) => r.status !== 'fail');

/** An AWS SDK or fetch error's name and message, on one line. */
export function errorText(error: unknown): { name: string; message: string } {
  const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  const reason = cause === undefined ? message : `${message}: ${cause.code ?? cause.message ?? ''}`;
  return { name: name ?? 'Error', message: (reason ?? String(error)).split('\n')[0] ?? '' };
}
