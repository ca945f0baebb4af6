/** Small helpers for benchmark figures: medians of repeated rounds, printed plainly. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Runs `fn` for `iterations` per round and returns the median ops/s over `rounds`. */
export function opsPerSecond(fn: () => void, iterations: number, rounds: number): number {
  for (let i = 0; i < iterations; i++) fn(); // warm-up
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(iterations / seconds);
  }
  return median(rates);
}

/**
 * Times `subject` against `baseline` in alternating rounds and returns the median
 * of the per-round cost ratios (subject time / baseline time) with each side's
 * median ops/s. Pairing the rounds keeps a slow spell of the machine (frequency,
 * a neighbour) out of the ratio: it slows both sides of the same pair.
 */
export function pairedCost(
  subject: () => void,
  baseline: () => void,
  iterations: number,
  rounds: number,
): { ratio: number; subjectOps: number; baselineOps: number } {
  const timeRound = (fn: () => void): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  timeRound(subject); // warm-up
  timeRound(baseline);
  const ratios: number[] = [];
  const subjectRates: number[] = [];
  const baselineRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const subjectSeconds = timeRound(subject);
    const baselineSeconds = timeRound(baseline);
    ratios.push(subjectSeconds / baselineSeconds);
    subjectRates.push(iterations / subjectSeconds);
    baselineRates.push(iterations / baselineSeconds);
  }
  return { ratio: median(ratios), subjectOps: median(subjectRates), baselineOps: median(baselineRates) };
}

export const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function verdict(ratio: number, goal: number, lowerIsBetter = true): string {
  const met = lowerIsBetter ? ratio <= goal : ratio >= goal;
  return `${met ? 'meets' : 'MISSES'} goal ${lowerIsBetter ? '≤' : '≥'} ${goal}`;
}
