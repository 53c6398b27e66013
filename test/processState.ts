/**
 * A test file that shares its worker (vitest.config.ts) leaves the process as it found it: the
 * files after it in the worker see the same environment and working directory. One that changes
 * them fails here, and belongs in the config's list of files that run in a fresh worker.
 */
import { afterAll, beforeAll, expect } from 'vitest';

let before: { env: NodeJS.ProcessEnv; cwd: string };
const now = () => ({ env: { ...process.env }, cwd: process.cwd() });

beforeAll(() => {
  before = now();
});

afterAll(() => {
  expect(now(), 'this file changed process.env or the working directory: run it in a fresh worker (vitest.config.ts)').toEqual(before);
});
