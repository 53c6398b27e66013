import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

/**
 * The files that change process-wide state (module mocks, process.env, process.exitCode) each run
 * in a fresh worker; every other file shares its worker's modules with the files before it (the
 * core and its model are imported once per worker, not once per file: docs/experiments.md, "Tests").
 */
const ISOLATED = [
  'test/tools/sessionStore.test.ts', // vi.mock('node:crypto')
  'test/train/syntaxSource.test.ts', // vi.doMock, vi.resetModules
  'test/data/synth.test.ts', // process.env
  'test/bench/smoke.test.ts', // the program on this process (process.exitCode)
];

export default defineConfig({
  test: {
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
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts', ...ISOLATED.map((f) => `!${f}`)], isolate: false, setupFiles: ['test/processState.ts'] },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
