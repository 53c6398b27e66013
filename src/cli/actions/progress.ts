/**
 * cli-progress, loaded on first use: progress bars are drawn only on a terminal, and loading the
 * module costs more than some commands take (`skim --help` registers every sub-command).
 */
import { createRequire } from 'node:module';

type CliProgress = typeof import('cli-progress');

const require = createRequire(import.meta.url);
let mod: CliProgress | undefined;

export function loadCliProgress(): CliProgress {
  return (mod ??= require('cli-progress') as CliProgress);
}
