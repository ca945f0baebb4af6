import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CDK synth with esbuild bundling and emulator start-up are slow on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
