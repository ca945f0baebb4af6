/** Local mode's reconciler keeps its fast pace while the pipeline is busy and slows down once it is quiet. */
import { describe, expect, it } from 'vitest';
import { reconcilePacing } from '../../local/reconcile-pacing';

const options = { everyMs: 2_000, idleEveryMs: 30_000, quietAfterMs: 9_000 };

/** The times in [fromMs, toMs) at which a run is due, asked every `everyMs` as local mode's timer does. */
function runsBetween(pacing: ReturnType<typeof reconcilePacing>, fromMs: number, toMs: number, foundWork = false) {
  const runs: number[] = [];
  for (let t = fromMs; t < toMs; t += options.everyMs) {
    if (!pacing.due(t)) continue;
    pacing.started(t);
    pacing.finished(foundWork);
    runs.push(t);
  }
  return runs;
}

describe('reconciler pacing in local mode', () => {
  it('runs every period after start, then at the idle pace once quiet', () => {
    const pacing = reconcilePacing(options, 0);
    expect(runsBetween(pacing, 2_000, 10_000)).toEqual([2_000, 4_000, 6_000, 8_000]);
    // Quiet since 0 and nothing found: the next run 30 s after the last.
    expect(runsBetween(pacing, 10_000, 100_000)).toEqual([38_000, 68_000, 98_000]);
  });

  it('returns to the fast pace on activity, and stays on it while runs find work', () => {
    const pacing = reconcilePacing(options, 0);
    runsBetween(pacing, 2_000, 60_000);
    pacing.activity(61_000);
    expect(runsBetween(pacing, 62_000, 66_000)).toEqual([62_000, 64_000]);
    // Its last webhook lost, the meeting turns stale within the quiet window: the runs find it and keep the
    // pace past the window until they heal it.
    expect(runsBetween(pacing, 66_000, 76_000, true)).toEqual([66_000, 68_000, 70_000, 72_000, 74_000]);
    expect(runsBetween(pacing, 76_000, 120_000)).toEqual([76_000, 106_000]);
  });
});
