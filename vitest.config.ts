import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CLI tests run in process and leave no daemon behind; test/cli/daemon.test.ts turns it on
    env: { SKIM_DAEMON: '0' },
  },
});
