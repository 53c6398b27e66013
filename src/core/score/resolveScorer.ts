/**
 * Which scorer a pruner uses: the caller's own, the heuristic, or the learned model (the shipped
 * one or a directory's), falling back to the heuristic visibly when the model cannot be used.
 */
import { diagnostic } from '../diagnostics.js';
import { SkimError } from '../errors.js';
import type { Scorer } from '../types.js';
import { createHeuristicScorer } from './heuristic.js';

export interface ScorerChoice {
  /** A Scorer, or 'heuristic' / 'learned' (learned falls back to heuristic when weights are missing). Default: 'learned'. */
  scorer?: Scorer | 'heuristic' | 'learned';
  /** Directory with learned weights (default: the shipped models/default). */
  modelDir?: string;
}

type LoadedScorer = { scorer: Scorer | null; problem?: string; missing?: boolean };

export async function resolveScorer(opts: ScorerChoice): Promise<Scorer> {
  const s = opts.scorer ?? 'learned';
  if (typeof s === 'object') return s;
  if (s === 'heuristic') return createHeuristicScorer();
  let problem: string;
  try {
    // The model module is optional at runtime: a build without weights still prunes.
    const model: { loadDefault?: () => LoadedScorer; loadLearnedScorer?: (dir?: string) => LoadedScorer } = await import('../model/index.js');
    const loaded = (opts.modelDir ? model.loadLearnedScorer?.(opts.modelDir) : model.loadDefault?.()) ?? {
      scorer: null,
      problem: 'the model module has no loader',
    };
    if (loaded.scorer) return loaded.scorer;
    // a directory the caller named that holds no model at all is a usage error; a corrupt one is not
    if (opts.modelDir && loaded.missing) throw new SkimError(`no model weights found in ${opts.modelDir}`, 'EUSAGE');
    problem = loaded.problem ?? 'unknown problem';
  } catch (err) {
    if (err instanceof SkimError) throw err;
    problem = `the model module failed to load (${(err as Error).message})`;
  }
  // Fall back visibly: every result says the learned model was not used, and why.
  const heuristic = createHeuristicScorer();
  const why = diagnostic('model-unavailable', `learned model not used: ${problem}; heuristic scorer used instead`);
  return { name: heuristic.name, diagnostics: [why], score: (input) => heuristic.score(input) };
}
