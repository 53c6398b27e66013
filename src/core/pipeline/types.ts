/**
 * What the stages of prune() hand each other, in order:
 *
 *   readRequest    PruneRequest          -> PruneJob            (query, task, language as read; the mode; diagnostics so far)
 *   admit          PruneJob              -> Admitted | Whole    (empty, binary, oversized input; token count; mode)
 *   ingestInput    PruneJob, Admitted    -> Ingested            (Document, lines seen before, keep-all triage)
 *   analyse        Document              -> SegmentAnalysis[]   (syntax per file)
 *   scoreLines     Ingested, analyses    -> ScoredLines         (keep probability per input line)
 *   selectionScores ScoredLines          -> ScoredLines         (a copy: weak files collapsed, pinned lines pinned)
 *   planSelection  ScoredLines           -> SelectionPlan | Whole (read policy, strategy)
 *   select...      plan, Repairer        -> Selection | Whole   (repair runs inside: a budget holds for repaired output)
 *   renderResult   Selection             -> PruneResult
 *
 * Every stage appends the problems it finds to PruneJob.diagnostics; a stage that decides the
 * input should come back as it is returns a Whole instead of its hand-off.
 */
import type { Diagnostic } from '../diagnostics.js';
import type { RenderPiece } from '../layout/layout.js';
import type { Measure } from '../layout/measure.js';
import type { ReadDecision, ReadGate } from '../policy/readPolicy.js';
import type { SessionMemory } from '../session/memory.js';
import type { Document, PruneResult, Scorer } from '../types.js';

/**
 * The request as the stages read it: every field resolved once (defaults applied, the mode
 * decided); no stage reads the raw request.
 */
export interface PruneJob {
  scorer: Scorer;
  readPolicy: ReadGate[];
  /** The input text. */
  code: string;
  path?: string;
  /** Raw input that is a window of its file: the file line number of its first line. */
  firstLine?: number;
  grepFiles?: string[];
  /** The caller says the read is a deliberate window of its file. */
  window?: boolean;
  session?: SessionMemory;
  /** How hard to prune, as asked: a threshold or one budget. */
  mode: RequestedMode;
  /** Small input comes back whole. */
  keepSmall: boolean;
  explain: boolean;
  repair: boolean;
  /** 1-based input lines to keep whatever they score. */
  pinLines: readonly number[];
  /** The query as read (trimmed, at most MAX_QUERY_CHARS). */
  query: string;
  /** The run's task as read, '' without one. */
  task: string;
  /** The caller's language, normalized. */
  language?: string;
  /** performance.now() when the job started. */
  started: number;
  /** Problems found so far, in the order found: the result's diagnostics. */
  diagnostics: Diagnostic[];
  /** With session memory: this read's key (readKeyOf), to tell a read asked again. */
  readKey?: string;
}

/**
 * The τ a threshold-mode request asks for: the caller's own (`threshold`), the caller's on the
 * relative scale (`relativeThreshold`, 0.5 = calibrated), or the scorer's calibrated τ scaled by
 * the read policy (the default).
 */
export type TauRule = { kind: 'given'; tau: number } | { kind: 'relative'; relative: number } | { kind: 'calibrated' };

/** The mode a request asks for, decided once from its fields: a threshold, or one budget (a ratio of the input's tokens, tokens, characters). */
export type RequestedMode =
  | { kind: 'threshold'; tau: TauRule }
  | { kind: 'ratio'; ratio: number }
  | { kind: 'tokens'; tokens: number }
  | { kind: 'chars'; chars: number };

/** Threshold mode keeps what scores high enough; budget mode the most that fits the budget (fixed once the input is counted). */
export type Mode = { kind: 'threshold'; tau: TauRule } | { kind: 'budget'; budget: number; measure: Measure };

/** Input worth ingesting: its exact token count and the mode the request asks for. */
export interface Admitted {
  kind: 'admitted';
  tokensIn: number;
  mode: Mode;
}

/**
 * The input comes back as it is. `why` is said on the result; `extra` carries what the stage
 * that decided it knows beyond that (the scorer, the policy, the threshold).
 */
export interface Whole {
  kind: 'whole';
  why?: Diagnostic;
  /** Document relevance on the result (1 when nothing was scored). */
  score: number;
  tokensEstimated?: boolean;
  extra?: Partial<PruneResult>;
}

export interface Ingested {
  doc: Document;
  tokensIn: number;
  mode: Mode;
  /**
   * Nothing to prune for the question (no query, a small input, a budget the input fits): every
   * line comes back except what session memory collapses. `why` is said when it comes back whole.
   */
  keepAll: { why?: Diagnostic } | null;
}

/** Scores per input line (layout lines score 0). */
export interface ScoredLines {
  /** Keep probability per input line; pinned lines get more than 1. */
  probs: Float64Array;
  /** Structural tie-break of the budget ranking: headers 2, imports 1. */
  prior: Float64Array;
  /** Per line the semantic share of the rubric gate (NaN: none), with `explain` only. */
  gate: Float64Array | null;
  /** Document relevance: the line-weighted mean of the segments' scores. */
  docScore: number;
  /** The scorer gave NaN or infinite scores somewhere (the heuristic's stand in for them). */
  nonFinite: boolean;
}

/**
 * How the lines will be selected, decided once scores are known: every line but those the session
 * has seen (nothing to prune for the question), by threshold, or within the budget.
 */
export interface SelectionPlan {
  kind: 'plan';
  strategy: 'keep-all' | 'threshold' | 'budget';
  /** Keep-all: what to say when the input comes back whole after all. */
  why?: Diagnostic;
  /** The read policy's judgement of this read (default threshold mode only). */
  decision: ReadDecision | null;
}

/** Why a line was kept: its score, a gap no dearer than its marker, or a repair rule. */
export type KeepReason = 'score' | 'header' | 'decorator' | 'statement' | 'closer' | 'pair' | 'import' | 'definition' | 'gap' | 'small';

/** A selection repaired and laid out: the output, before it is joined. */
export interface Materialized {
  mask: Uint8Array;
  reasons: (KeepReason | undefined)[];
  pieces: RenderPiece[];
  /** One marker stands for the whole input (across files): `omitted` is then that one range. */
  wholeMarker?: boolean;
  /** Cost of the output under the budget's measure (an upper bound). */
  cost: number;
}

/** A selection (seeds) and lines it may not keep -> the repaired, laid-out output. */
export type Materialize = (seeds: Uint8Array, banned?: Uint8Array) => Materialized;

export interface Selection {
  kind: 'selected';
  chosen: Materialized;
  /** Threshold mode: the τ applied and the scorer's calibrated one. */
  thresholdInfo?: { threshold: number; calibratedThreshold: number };
}
