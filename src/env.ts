/**
 * The environment variables that set the core, read at the edges (the CLI's process entry, a
 * script) and handed on as settings: the core itself never reads the environment.
 *   SKIM_NO_WASM         any non-empty value: the model's hidden layer in JavaScript, not WebAssembly
 *   SKIM_ANALYSIS_CACHE  0: no cache of syntax indexes (every text analysed as new)
 */
import { type CoreSettings, configureCore } from './core/settings.js';

type Env = Readonly<Record<string, string | undefined>>;

export function coreSettingsFromEnv(env: Env): CoreSettings {
  return { wasmKernel: !env.SKIM_NO_WASM, analysisCache: env.SKIM_ANALYSIS_CACHE !== '0' };
}

/** Set the core from `env` (a process's entry calls it once with process.env). */
export function configureCoreFromEnv(env: Env): void {
  configureCore(coreSettingsFromEnv(env));
}
