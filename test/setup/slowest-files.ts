/**
 * A reporter that prints, after the run, the ten test files that took longest (setup, import and
 * tests, as vitest measures each file) and the sum over all files: where the suite's minutes go.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules
      .map((module) => {
        const d = module.diagnostic();
        return {
          file: module.relativeModuleId,
          seconds:
            (d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration) / 1000,
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    // A run of a few files (one being written, a test's own child run) shows its durations already.
    if (files.length <= SHOWN) return;
    const total = files.reduce((sum, file) => sum + file.seconds, 0);
    const lines = files
      .slice(0, SHOWN)
      .map(
        ({ file, seconds }) =>
          `  ${seconds.toFixed(1).padStart(7)} s  ${((seconds / total) * 100).toFixed(1).padStart(4)} %  ${file}`,
      );
    process.stdout.write(
      `\nslowest ${SHOWN} of ${files.length} test files (${total.toFixed(0)} s of file time in all, workers side by side):\n${lines.join('\n')}\n`,
    );
  }
}
