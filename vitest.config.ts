import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CDK synth with esbuild bundling and emulator start-up are slow on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each test file in a fresh worker: files set process.env (emulator endpoints) and module state.
    // Said explicitly, so vitest does not print its hint to turn it off after every run.
    isolate: true,
    // fauxqs loads node:sqlite, which Node 22 announces as experimental in every worker.
    execArgv: ['--disable-warning=ExperimentalWarning'],
    // The run's own temporary folder, which must be empty at the end (the run fails otherwise).
    globalSetup: ['test/setup/run-temp-dir.ts'],
    setupFiles: ['test/setup/each-file.ts'],
    // The summary and the failures only (with the output of failed tests); passed tests print nothing;
    // then the ten slowest files.
    reporters: ['minimal', './test/setup/slowest-files.ts'],
  },
});
