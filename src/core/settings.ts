/**
 * Process-wide settings of the core, given by the program that runs it (the CLI, the server's
 * threads, a script, a library caller) through configureCore(). The core never reads the
 * environment: src/env.ts turns the documented variables into these settings at the edges.
 */
export interface CoreSettings {
  /** Compute the model's hidden layer with the WebAssembly SIMD kernel when the runtime can (the same values as the JavaScript loop, faster). */
  wasmKernel: boolean;
  /** Keep the syntax indexes of recently analysed texts for another read of the same text (src/core/syntax/analysisCache.ts). */
  analysisCache: boolean;
}

export const DEFAULT_CORE_SETTINGS: Readonly<CoreSettings> = Object.freeze({ wasmKernel: true, analysisCache: true });

let current: Readonly<CoreSettings> = DEFAULT_CORE_SETTINGS;

/** The settings from now on: the given ones, the defaults for the rest. */
export function configureCore(settings: Partial<CoreSettings> = {}): void {
  current = Object.freeze({ ...DEFAULT_CORE_SETTINGS, ...settings });
}

export function coreSettings(): Readonly<CoreSettings> {
  return current;
}
