/**
 * The environment variables that set the core (src/env.ts): read at the edges, handed to the core
 * as settings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureCore, coreSettings, DEFAULT_CORE_SETTINGS } from '../src/core/settings.js';
import { configureCoreFromEnv, coreSettingsFromEnv } from '../src/env.js';

describe('core settings from the environment', () => {
  afterEach(() => configureCore());

  it('are the defaults when no variable is set', () => {
    expect(coreSettingsFromEnv({})).toEqual(DEFAULT_CORE_SETTINGS);
    expect(coreSettingsFromEnv({ SKIM_NO_WASM: '', SKIM_ANALYSIS_CACHE: '1' })).toEqual(DEFAULT_CORE_SETTINGS);
  });

  it('turn the WebAssembly kernel off for any SKIM_NO_WASM, the analysis cache off for SKIM_ANALYSIS_CACHE=0', () => {
    expect(coreSettingsFromEnv({ SKIM_NO_WASM: '1' })).toEqual({ wasmKernel: false, analysisCache: true });
    expect(coreSettingsFromEnv({ SKIM_NO_WASM: 'yes', SKIM_ANALYSIS_CACHE: '0' })).toEqual({ wasmKernel: false, analysisCache: false });
  });

  it('set the core when an edge configures it, and only then', () => {
    const env = { SKIM_ANALYSIS_CACHE: '0' };
    expect(coreSettings()).toEqual(DEFAULT_CORE_SETTINGS);
    configureCoreFromEnv(env);
    expect(coreSettings()).toEqual({ wasmKernel: true, analysisCache: false });
    configureCore({ wasmKernel: false });
    expect(coreSettings()).toEqual({ wasmKernel: false, analysisCache: true }); // the rest back to the defaults
  });
});
