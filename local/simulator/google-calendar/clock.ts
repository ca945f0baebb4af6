/**
 * The simulator's own clock: tests move it forward instead of waiting, so expiring
 * assertions, access tokens and quota windows are exercised without real delays.
 */
export class SimulatedClock {
  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }
}
