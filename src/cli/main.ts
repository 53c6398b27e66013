#!/usr/bin/env node
/** Process entry of the `skim` command with every sub-command (bin/skim.js runs it through ./launch.ts). */
import { start } from './entry.js';

start(async () => (await import('./cli.js')).run);
