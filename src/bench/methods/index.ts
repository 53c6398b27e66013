/** The method registry: names accepted by `skim bench --methods`. */
import { bm25Method, fullMethod, headMethod, randomMethod } from './baselines.js';
import { METHOD_NAMES } from './names.js';
import { outlineMethod } from './outline.js';
import { repomixMethod } from './repomix.js';
import { heuristicMethod, noRepairMethod, skimAtThreshold, skimMethod } from './skim.js';
import type { BenchMethod } from './types.js';

export const METHODS: Record<string, BenchMethod> = Object.fromEntries(
  [skimMethod, heuristicMethod, noRepairMethod, fullMethod, headMethod, randomMethod, bm25Method, outlineMethod, repomixMethod].map((m) => [m.name, m]),
);

export const ALL_METHOD_NAMES: readonly string[] = METHOD_NAMES;

export function resolveMethods(list: string): BenchMethod[] {
  const names =
    list === 'all'
      ? ALL_METHOD_NAMES
      : list
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (names.length === 0) throw new Error('no methods given');
  return names.map((n) => {
    const at = /^skim@(.*)$/.exec(n);
    if (at) {
      const t = Number(at[1]);
      if (!at[1] || !Number.isFinite(t) || t <= 0 || t > 1)
        throw new Error(`invalid method "${n}": skim@<threshold> needs a threshold in (0, 1], e.g. skim@0.001`);
      return skimAtThreshold(t);
    }
    const m = METHODS[n];
    if (!m) throw new Error(`unknown method "${n}" (known: ${ALL_METHOD_NAMES.join(', ')})`);
    return m;
  });
}
