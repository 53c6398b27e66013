import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the tests that run bin/skim.js need dist/ built from the current sources
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // every core (vitest's default leaves one to its main process, which mostly waits: on 2 cores
    // that ran one test file at a time)
    maxWorkers: availableParallelism(),
    // the binary's runs in tests do their work in process and leave no daemon behind; test/cli/daemon.*.test.ts turn it on
    env: { SKIM_DAEMON: '0' },
  },
});
