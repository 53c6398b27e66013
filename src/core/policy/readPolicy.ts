/**
 * The read policy: how hard to prune one read in the default (threshold) mode, from what is known
 * when the agent reads. A pruned read that hides the line the agent needed costs a re-read (one
 * more turn, and the whole output after all), so a read likely to show the line the fix needs is
 * left whole, and a read unlikely to is pruned hard.
 *
 * How likely is estimated by a small logistic gate over facts of the read and of the session: its
 * size and kind (a whole file, a deliberate window, a search), how often the session has read this
 * path before, and how many reads the session has made. On real agent runs these separate the
 * reads that show a fix line from the others far better than the model's document score does
 * (validation AUC 0.82 against 0.56): agents come back to the file they will fix, and late reads
 * are mostly checks. A ladder of probability bands maps the estimate to τ x 32, x 1 or the read
 * whole. Without a session every read looks like a run's first, the likeliest to matter:
 * the policy is then cautious. Reads over FITTED_CHARS, beyond what the runs could show (their
 * harness cut longer outputs), get the calibrated τ.
 *
 * Fitted on trajectories-dev's training runs, thresholds chosen by cross-validation for at most
 * 1% of fix-line reads lost (scripts/fit-read-policy.ts; BENCHMARKS.md, "Agent runs").
 */
import type { Document } from '../types.js';

/** What kind of read this is: a whole file, a deliberate window of one, or a search. */
export type ReadKind = 'file' | 'window' | 'grep';

export interface ReadFacts {
  kind: ReadKind;
  /** Characters in the read's output. */
  chars: number;
  /** The run's task was given next to the read's query (lines are scored against both). */
  hasTask: boolean;
  /** Earlier reads of this path in the session (0 without a session or a path). */
  priorReads: number;
  /** Reads the session made before this one (0 without a session). */
  readIndex: number;
}

/** The gate's inputs, in the order of ReadGate.weights: log chars, grep, window, log prior reads, log read index. */
export function gateFeatures(f: ReadFacts): number[] {
  return [Math.log1p(f.chars), f.kind === 'grep' ? 1 : 0, f.kind === 'window' ? 1 : 0, Math.log1p(f.priorReads), Math.log1p(f.readIndex)];
}

/** One fitted gate: P(the read shows a fix line) = σ(bias + weights · features), then the ladder. */
export interface ReadGate {
  task: boolean;
  bias: number;
  weights: number[];
  /** Bands in rising order: a read whose probability is below `below` gets τ x `tauScale`; above all, whole. */
  ladder: { below: number; tauScale: number }[];
}

export interface ReadDecision {
  /** Multiplier of the calibrated τ, or null: leave the read whole (session memory still applies). */
  tauScale: number | null;
  /** Short description for results and --explain, e.g. "gate+task p=0.31: whole". */
  label: string;
  /** The read is longer than the runs the policy was fitted on (FITTED_CHARS): its τ is a default, not a judgement. */
  beyondFit?: true;
}

/**
 * Reads longer than this are beyond what the policy was fitted on (the agent harness of the runs
 * cut longer outputs to their head and tail): they get the calibrated threshold.
 */
export const FITTED_CHARS = 10_000;

/** Fitted by scripts/fit-read-policy.ts on trajectories-dev (training runs). */
export const READ_POLICY: ReadGate[] = [
  {
    task: false,
    bias: -1.094,
    weights: [0.1153, -4.857, 0.808, 1.075, -1.139],
    ladder: [
      { below: 0.15, tauScale: 32 },
      { below: 0.2, tauScale: 1 },
    ],
  },
  {
    task: true,
    bias: -1.094,
    weights: [0.1153, -4.857, 0.808, 1.075, -1.139],
    ladder: [
      { below: 0.2, tauScale: 32 },
      { below: 0.3, tauScale: 1 },
    ],
  },
];

export function readProbability(gate: ReadGate, facts: ReadFacts): number {
  const x = gateFeatures(facts);
  const z = x.reduce((s, v, i) => s + v * gate.weights[i], gate.bias);
  return 1 / (1 + Math.exp(-z));
}

export function decideRead(facts: ReadFacts, policy: ReadGate[] = READ_POLICY): ReadDecision {
  if (facts.chars > FITTED_CHARS) return { tauScale: 1, label: `over ${FITTED_CHARS} characters: tau x1`, beyondFit: true };
  const gate = policy.find((g) => g.task === facts.hasTask);
  if (!gate) return { tauScale: 1, label: 'no gate: tau x1' };
  const p = readProbability(gate, facts);
  const band = gate.ladder.find((b) => p < b.below);
  const tauScale = band ? band.tauScale : null;
  return { tauScale, label: `gate${gate.task ? '+task' : ''} p=${p.toFixed(2)}: ${tauScale === null ? 'whole' : `tau x${tauScale}`}` };
}

/** The read is a whole file, a deliberate window of one, or a search. */
export function readKindOf(doc: Document, window?: boolean): ReadKind {
  if (doc.shape === 'grep' || doc.segments.length > 1) return 'grep';
  if (window) return 'window';
  const first = doc.lines.find((l) => l.lineNo !== null)?.lineNo ?? 1;
  return first > 1 ? 'window' : 'file';
}
