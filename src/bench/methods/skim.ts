/**
 * skim itself through its public API: `skim` (createPruner() with the default scorer: the learned
 * model when models/default is present), `heuristic` (the heuristic scorer alone) and `no-repair`
 * (the default pruner with repair disabled). Adaptive = threshold mode at the calibrated τ (the
 * read policy is left to the agent-run replay); budgets = `ratio`.
 * `skim@<τ>` is skim in threshold mode at a fixed τ instead of the calibrated one, to chart the
 * recall / compression trade-off a user would get from `skim prune --threshold τ`.
 */

import type { PruneRequest } from '../../core/types.js';
import { createPruner } from '../../index.js';
import type { BenchMethod, Budget, PreparedFile } from './types.js';

type Pruner = ReturnType<typeof createPruner>;

function pruneMethod(name: string, make: () => Pruner, extra: Partial<PruneRequest> = {}, kind: BenchMethod['kind'] = 'budgeted'): BenchMethod {
  let pruner: Pruner | undefined;
  return {
    name,
    kind,
    async run(f: PreparedFile, b: Budget) {
      pruner ??= make();
      const req: PruneRequest = { code: f.file.code, query: f.query, language: f.language, ...extra };
      if (f.file.path) req.path = f.file.path;
      if (b.ratio !== undefined) req.ratio = b.ratio;
      // Adaptive = threshold mode at the calibrated τ: these suites judge files one by one; the
      // read policy on top of it is fitted and measured on whole agent runs (trajectories).
      else if (req.threshold === undefined) req.relativeThreshold = 0.5;
      const r = await pruner.prune(req);
      return { text: r.text, keepMask: r.keepMask, tokensOut: r.tokensOut };
    },
    async describe() {
      pruner ??= make();
      const scorer = (await pruner.scorer()).name;
      return `scorer ${scorer}${extra.repair === false ? ', repair off' : ''}${extra.threshold !== undefined ? `, threshold ${extra.threshold}` : ''}`;
    },
  };
}

export const skimMethod = pruneMethod('skim', () => createPruner());
export const heuristicMethod = pruneMethod('heuristic', () => createPruner({ scorer: 'heuristic' }));
export const noRepairMethod = pruneMethod('no-repair', () => createPruner(), { repair: false });

/** `skim@<τ>`: threshold mode at a fixed τ (0 < τ <= 1), adaptive budget only. */
export function skimAtThreshold(threshold: number): BenchMethod {
  return pruneMethod(`skim@${threshold}`, () => createPruner(), { threshold }, 'adaptive-only');
}
