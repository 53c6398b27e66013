/**
 * prune(): the pipeline stages in order.
 *   ingest -> syntax index -> score -> select (threshold | budget) -> repair -> render
 * Problems in the content (binary input, a scorer failure, an oversized file) become warnings on
 * the result and the original text is returned (fail open); misuse of the API throws SkimError.
 */
import { countLines, ingest } from './ingest/ingest.js';
import { computePlaceholders } from './repair/placeholders.js';
import { dropOrphans, type KeepReason, repairClosure } from './repair/repair.js';
import { syntaxErrorRows } from './repair/validate.js';
import { estimateTokens, fileRanges, joinPieces, layout, markerText, maskRanges, omittedRuns, type RenderPiece, type SegmentRenderInfo, segmentPositions } from './render/render.js';
import { createHeuristicScorer, HEURISTIC_THRESHOLD } from './score/heuristic.js';
import { fillCheapGaps, type GapCosts } from './select/gaps.js';
import { openedPriorities, priorityOrder, segmentThresholds, selectByBudget, selectByThreshold } from './select/select.js';
import { buildSyntaxIndex, detectLanguage, ensureGrammar, languageInfo, normalizeLanguage } from './syntax/index.js';
import { countLineTokens, countTokens } from './tokens/count.js';
import type { Document, LineExplain, LineScores, PruneRequest, PruneResult, Scorer, SyntaxIndex } from './types.js';
import { SkimError } from './errors.js';
import { checkPruneRequest } from './request.js';
import { FIX_PARSE_FACTOR, FIX_PARSE_FLOOR, MAX_PARSE_CHARS, MAX_PARSE_LINES, MAX_PRUNE_CHARS, MAX_PRUNE_LINES, MAX_QUERY_CHARS } from './limits.js';
import { decideRead, READ_POLICY, readKindOf, type ReadDecision, type ReadGate } from './policy/readPolicy.js';

/** Inputs smaller than this are returned whole unless a budget forces pruning. */
export const SMALL_LINES = 40;
export const SMALL_TOKENS = 500;
/** In multi-file input, files whose best line scores below this share of the best file's collapse. */
const COLLAPSE_BELOW = 0.25;
/**
 * Budget mode ranks a line no higher than the best run of this many non-blank lines around it
 * (chosen on the commit val split and the held-back teacher slice: 2, 3 and 4 tie there).
 */
const PEAK_WIDTH = 2;
/** Keep probability given to pinned lines: above any threshold, first in any budget order. */
const PINNED = 2;

export interface PrunerOptions {
  /** A Scorer, or 'heuristic' / 'learned' (learned falls back to heuristic when weights are missing). Default: 'learned'. */
  scorer?: Scorer | 'heuristic' | 'learned';
  /** Directory with learned weights (default: the shipped models/default). */
  modelDir?: string;
  /** The read policy of the default mode (default: READ_POLICY, fitted on agent runs). */
  readPolicy?: ReadGate[];
}

export interface Pruner {
  prune(req: PruneRequest): Promise<PruneResult>;
  /** The scorer in use (resolves lazily on first call). */
  scorer(): Promise<Scorer>;
}

export function createPruner(opts: PrunerOptions = {}): Pruner {
  let scorerPromise: Promise<Scorer> | null = null;
  const getScorer = () => (scorerPromise ??= resolveScorer(opts));
  return {
    scorer: getScorer,
    async prune(req: PruneRequest) {
      return pruneWith(await getScorer(), req, { readPolicy: opts.readPolicy });
    },
  };
}

let defaultPruner: Pruner | null = null;

/** Prune with the default scorer (the shipped learned model, or the heuristic when it is missing). */
export function prune(req: PruneRequest): Promise<PruneResult> {
  defaultPruner ??= createPruner();
  return defaultPruner.prune(req);
}

type LoadedScorer = { scorer: Scorer | null; problem?: string; missing?: boolean };

async function resolveScorer(opts: PrunerOptions): Promise<Scorer> {
  const s = opts.scorer ?? 'learned';
  if (typeof s === 'object') return s;
  if (s === 'heuristic') return createHeuristicScorer();
  let problem: string;
  try {
    // The model module is optional at runtime: a build without weights still prunes.
    const model: { loadDefault?: () => LoadedScorer; loadLearnedScorer?: (dir?: string) => LoadedScorer } = await import('./model/index.js');
    const loaded = (opts.modelDir ? model.loadLearnedScorer?.(opts.modelDir) : model.loadDefault?.()) ?? { scorer: null, problem: 'the model module has no loader' };
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
  return { name: heuristic.name, warnings: [`learned model not used: ${problem}; heuristic scorer used instead`], score: (input) => heuristic.score(input) };
}

/** Scores that can decide something: every keep probability and the document score are finite. */
function finiteScores(s: LineScores): boolean {
  if (!Number.isFinite(s.docScore)) return false;
  for (let i = 0; i < s.keep.length; i++) if (!Number.isFinite(s.keep[i])) return false;
  return true;
}

/** How budget mode measures an output: o200k tokens, or characters for `maxChars`. */
interface Measure {
  /** Upper bound from the laid-out pieces (cached per-line counts). */
  estimate(pieces: RenderPiece[]): number;
  /** Exact cost of the joined text. */
  exact(text: string): number;
}

const TOKENS: Measure = { estimate: estimateTokens, exact: countTokens };
const CHARS: Measure = {
  estimate: (pieces) => pieces.reduce((t, p) => t + p.line.length + Math.max(1, p.eol.length), 0),
  exact: (text) => text.length,
};

/** A query (or task) as prune() reads it: trimmed, at most MAX_QUERY_CHARS characters. */
export function queryAsRead(query: string | null | undefined): string {
  return (query ?? '').trim().slice(0, MAX_QUERY_CHARS);
}

/**
 * Why the input is over the ceiling (MAX_PRUNE_CHARS / MAX_PRUNE_LINES), or null. Beyond it the
 * input comes back whole with a warning, in every mode.
 */
export function overCeiling(code: string): string | null {
  if (code.length > MAX_PRUNE_CHARS) return `input larger than ${MAX_PRUNE_CHARS.toLocaleString('en')} characters`;
  if (countLines(code, MAX_PRUNE_LINES + 1) > MAX_PRUNE_LINES) return `input longer than ${MAX_PRUNE_LINES.toLocaleString('en')} lines`;
  return null;
}

/** A token count that costs nothing: about 4 characters per o200k token (results flag it: `tokensEstimated`). */
export function estimateTokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** NUL bytes or a high share of control characters: not text an agent can use pruned. */
export function looksBinary(code: string): boolean {
  const sample = code.slice(0, 8192);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

interface SegmentAnalysis {
  syntax: SyntaxIndex;
  texts: string[];
  info: { lineComment: string | null; placeholder: string | null; braces: boolean };
}

export async function pruneWith(scorer: Scorer, req: PruneRequest, opts: { readPolicy?: ReadGate[] } = {}): Promise<PruneResult> {
  checkPruneRequest(req);
  const { result, doc } = await pruneStages(scorer, req, opts.readPolicy ?? READ_POLICY);
  // Session memory remembers what this result shows (kept lines, at their file line numbers),
  // and counts the read (the read policy weighs how often and how late a path is read).
  if (req.session) {
    if (doc) req.session.recordShown(doc, result.keepMask);
    req.session.noteRead(req.path);
  }
  return result;
}

async function pruneStages(scorer: Scorer, req: PruneRequest, readPolicy: ReadGate[]): Promise<{ result: PruneResult; doc: Document | null }> {
  const t0 = performance.now();
  const warnings: string[] = [...(scorer.warnings ?? [])];
  const code = req.code;
  const language = req.language ? normalizeLanguage(req.language) : undefined;
  const query = queryAsRead(req.query);
  if ((req.query ?? '').trim().length > MAX_QUERY_CHARS) warnings.push(`query truncated to ${MAX_QUERY_CHARS} characters`);

  const whole = (doc: Document | null, tokensIn: number, why?: string, score = 1): PruneResult => {
    if (why) warnings.push(why);
    // `kept` covers every returned line, also when the input was never ingested (binary input)
    const n = doc ? doc.lines.length : countLines(code);
    return {
      text: code,
      kept: n ? [[1, n]] : [],
      omitted: [],
      score,
      tokensIn,
      tokensOut: tokensIn,
      language: doc?.segments[0]?.language ?? language ?? 'text',
      ms: performance.now() - t0,
      shape: doc?.shape ?? 'raw',
      warnings,
      keepMask: new Uint8Array(n).fill(1),
    };
  };

  if (code.length === 0) return { result: whole(null, 0, 'empty input'), doc: null };
  const over = overCeiling(code);
  if (over) {
    // Not even counted: tokenizing it would cost more than the ceiling is there to bound.
    const r = whole(null, estimateTokenCount(code), `${over}: returned unchanged (not pruned; token counts estimated)`);
    return { result: { ...r, tokensEstimated: true }, doc: null };
  }
  const tokensIn = countTokens(code);
  const measure = req.maxChars !== undefined ? CHARS : TOKENS;
  const budgetMode = req.ratio !== undefined || req.tokens !== undefined || req.maxChars !== undefined;
  const budget = req.maxChars ?? req.tokens ?? Math.floor(tokensIn / (req.ratio ?? 1));
  // Not text to prune: back unchanged, in every mode (fail open; a budget is not applied).
  if (looksBinary(code)) return { result: whole(null, tokensIn, 'binary input returned unchanged'), doc: null };

  const doc = ingest(code, { path: req.path, language, detectLanguage, firstLine: req.firstLine });
  const small = doc.lines.length < SMALL_LINES || tokensIn < SMALL_TOKENS;
  // Session memory: lines the session was shown before, unchanged, never need showing again.
  const seen = req.session?.seenMask(doc);
  if (seen?.some((v) => v === 1)) doc.seen = seen;
  const done = (result: PruneResult) => ({ result, doc });

  // Nothing to prune for the question: the input whole, except what session memory collapses.
  let keepAll: { why?: string } | null = null;
  if (budgetMode && measure.exact(code) <= budget) keepAll = {};
  else if (!budgetMode && query === '') keepAll = { why: 'no query: returned unchanged' };
  else if (!budgetMode && small && (req.keepSmall ?? true)) keepAll = {};
  if (keepAll && !doc.seen) return done(whole(doc, tokensIn, keepAll.why));
  const task = queryAsRead(req.task);

  // Syntax and scores per segment.
  const n = doc.lines.length;
  const probs = new Float64Array(n);
  const prior = new Float64Array(n);
  const gate = req.explain ? new Float64Array(n).fill(NaN) : null;
  const analyses: SegmentAnalysis[] = [];
  const huge = code.length > MAX_PARSE_CHARS || n > MAX_PARSE_LINES;
  if (huge) warnings.push('input too large for a full parse: indentation/bracket fallback used');
  let docScore = 0;
  let docWeight = 0;
  let nonFinite = false;
  for (const seg of doc.segments) {
    const texts = seg.lines.map((i) => doc.lines[i].text);
    const lang = huge ? 'text' : seg.language;
    let syntax: SyntaxIndex;
    try {
      if (!huge) await ensureGrammar(lang);
      const notes: string[] = [];
      syntax = buildSyntaxIndex(texts, lang, notes);
      for (const note of notes) if (!warnings.includes(note)) warnings.push(note);
    } catch (err) {
      warnings.push(`syntax analysis failed for ${seg.path ?? 'input'} (${(err as Error).message}); fallback used`);
      syntax = buildSyntaxIndex(texts, 'text');
    }
    const info = languageInfo(seg.language);
    analyses.push({ syntax, texts, info: { lineComment: info.lineComment, placeholder: info.placeholder, braces: info.blockEnd === 'braces' } });
    const scoreFor = (q: string): LineScores => {
      if (keepAll) return { keep: new Float64Array(texts.length), docScore: 0 };
      const input = { query: q, lines: texts, syntax, language: seg.language, path: seg.path };
      try {
        const s = scorer.score(input);
        if (finiteScores(s)) return s;
        // NaN never decides anything: threshold mode returns the input whole below, a budget
        // (which must hold) ranks by the heuristic scores instead
        if (!nonFinite) warnings.push(`scorer ${scorer.name} produced non-finite scores (NaN or infinite)${budgetMode ? '; heuristic used' : ': returned unchanged'}`);
        nonFinite = true;
      } catch (err) {
        warnings.push(`scorer ${scorer.name} failed (${(err as Error).message}); heuristic used`);
      }
      return createHeuristicScorer().score(input);
    };
    const scores = scoreFor(query);
    // A line that serves the run's task is worth keeping even when this read's goal is narrower.
    if (task !== '' && !keepAll) {
      const byTask = scoreFor(task);
      for (let k = 0; k < texts.length; k++) scores.keep[k] = Math.max(scores.keep[k], byTask.keep[k]);
      scores.docScore = Math.max(scores.docScore, byTask.docScore);
    }
    seg.lines.forEach((idx, k) => {
      probs[idx] = scores.keep[k] ?? 0;
      const kind = syntax.lines[k]?.kind;
      prior[idx] = kind === 'header' ? 2 : kind === 'import' ? 1 : 0;
      if (gate && scores.gateSemantic) gate[idx] = scores.gateSemantic[k];
    });
    docScore += scores.docScore * seg.lines.length;
    docWeight += seg.lines.length;
  }
  docScore = docWeight ? docScore / docWeight : 0;
  if (nonFinite && !budgetMode) return done(whole(doc, tokensIn, undefined, 1));
  // Multi-file input (grep over many files, ==> headers): a file far below the best one collapses
  // to its marker, which names it, its line range and (for grep) its match count.
  const segScores = doc.segments.map((seg) => seg.lines.reduce((m, i) => Math.max(m, probs[i]), 0));
  if (doc.segments.length > 1) {
    const best = Math.max(...segScores);
    doc.segments.forEach((seg, s) => {
      if (segScores[s] < COLLAPSE_BELOW * best) for (const i of seg.lines) probs[i] = 0;
    });
  }
  for (const line of req.pinLines ?? []) if (line <= n && doc.lines[line - 1].segment !== -1) probs[line - 1] = PINNED;

  const doRepair = req.repair ?? true;
  const infos: SegmentRenderInfo[] = [];
  // The read policy (default threshold mode only): how hard to prune this read, or not at all.
  const defaultMode = !budgetMode && !keepAll && req.threshold === undefined && req.relativeThreshold === undefined;
  const facts = {
    kind: readKindOf(doc, req.window),
    chars: code.length,
    hasTask: task !== '',
    priorReads: req.session?.readsOf(req.path) ?? 0,
    readIndex: req.session?.readCount ?? 0,
  };
  const decision: ReadDecision | null = defaultMode ? decideRead(facts, readPolicy) : null;
  if (decision && decision.tauScale === null) {
    if (!doc.seen) return done({ ...whole(doc, tokensIn, undefined, round(docScore)), scorer: scorer.name, policy: decision.label });
    keepAll = {};
  }
  // Lines the session has seen are never seeds: what repair needs of them still comes back.
  const unseen = (i: number) => !doc.seen?.[i];

  // Budget mode spends tokens on the lines that matter: repair keeps only what readability and
  // syntax need (headers' first/last lines, closers, owners of clauses); threshold mode also
  // brings whole signatures, decorators, and the imports/definitions of used names. Keeping all
  // but what the session has seen needs no more than syntax either.
  const economy = budgetMode || keepAll !== null;
  const materializeWith = (repair: boolean) => (seeds: Uint8Array, banned?: Uint8Array) =>
    materializeSelection(doc, analyses, seeds, repair, infos, banned, economy, measure);
  const materialize = materializeWith(doRepair);
  // Syntax repair re-parses the output after each fix, and a large file has many error sites:
  // its parsing is bounded by a multiple of the input (linear time), see fixSyntax.
  const fixWork = { left: Math.max(FIX_PARSE_FLOOR, FIX_PARSE_FACTOR * code.length) };

  let chosen: Materialized;
  let seeds: Uint8Array;
  // threshold mode: the τ applied and the scorer's calibrated one (absent in budget mode)
  let thresholdInfo: { threshold: number; calibratedThreshold: number } | undefined;
  if (keepAll) {
    seeds = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (doc.lines[i].segment !== -1 && unseen(i)) seeds[i] = 1;
    chosen = materialize(seeds);
    if (doRepair) {
      const notes: string[] = [];
      chosen = fixSyntax(doc, analyses, chosen, seeds, materialize, null, notes, fixWork);
      if (notes.length > 0) return done(whole(doc, tokensIn, keepAll.why, round(docScore)));
    }
  } else if (budgetMode) {
    // A lone high-scoring line would cost its tokens plus a marker: it ranks with its better
    // neighbour. Not in grep fragments, where each line is a match of its own.
    const isBlank = (i: number) => doc.lines[i].text.trim() === '';
    const contiguous = doc.segments.filter((s) => s.contiguous).map((s) => s.lines);
    const ranked = openedPriorities(probs, contiguous, isBlank, PEAK_WIDTH);
    let order = priorityOrder(ranked, prior).filter((i) => doc.lines[i].segment !== -1 && unseen(i));
    const seedsFor = (k: number) => {
      const seeds = new Uint8Array(n);
      for (let j = 0; j < k; j++) seeds[order[j]] = 1;
      return seeds;
    };
    let { k, result } = selectByBudget(order.length, budget, (kk) => materialize(seedsFor(kk)));
    if (k === 0 && order.length > 0) {
      // Not even the best line fits with the context it needs (a header chain, an if/else pair).
      // Lower-ranked lines may need less: keep, in rank order, those that still fit, rather than
      // hand back nothing. The seeds are then these lines (in rank order) instead of a prefix.
      const picked: number[] = [];
      const trial = new Uint8Array(n);
      // (blank lines only split the markers around them: never worth a probe)
      for (const i of order.filter((i) => !isBlank(i)).slice(0, FALLBACK_PROBES)) {
        trial[i] = 1;
        const m = materialize(trial);
        if (m.cost <= budget) {
          picked.push(i);
          result = m;
        } else trial[i] = 0;
      }
      if (picked.length > 0) {
        order = [...picked, ...order.filter((i) => !trial[i])];
        k = picked.length;
      }
    }
    // Exact check on the joined text: per-line counts are an upper bound, but verify anyway.
    while (result && measure.exact(joinPieces(result.pieces)) > budget) {
      k = k > 0 ? Math.floor(k * 0.9) : -1;
      result = k >= 0 ? materialize(seedsFor(k)) : null;
    }
    seeds = seedsFor(Math.max(0, k));
    chosen = result ?? collapseAll(doc, analyses, budget, warnings, measure);
    if (result && doRepair) {
      // When the syntax fix cannot converge within the budget it collapses a segment, or it gets
      // there by dropping the selected lines one error at a time (down to none at all). A smaller
      // selection has fewer trouble spots: try 70% of it, and so on. The first fix that keeps at
      // least half of its selection without a warning wins; otherwise the one that kept the most
      // score mass of what was selected.
      let best: { fixed: Materialized; notes: string[]; mass: number } | null = null;
      const massOf = (m: Materialized, kk: number) => {
        let kept = 0;
        let mass = 0;
        for (let j = 0; j < kk; j++) {
          if (m.mask[order[j]] !== 1) continue;
          kept++;
          mass += Math.min(1, probs[order[j]]);
        }
        return { kept, mass };
      };
      for (let kk = k, attempt = 0; ; kk = Math.floor(kk * 0.7), attempt++) {
        const start = kk === k ? result : materialize(seedsFor(kk));
        const notes: string[] = [];
        let fixed = fixSyntax(doc, analyses, start, seedsFor(kk), materialize, budget, notes, fixWork);
        const last = kk <= 1 || attempt >= MAX_SHRINK_ATTEMPTS;
        if (measure.exact(joinPieces(fixed.pieces)) <= budget) {
          let { kept, mass } = massOf(fixed, kk);
          // The fix dropped lines to make the output parse: a slightly shorter prefix that parses
          // as it is often keeps more (the fix may have cut a header or closer the rest needs).
          if (kk === k && notes.length === 0 && fixed !== start && dropsAny(start.mask, fixed.mask)) {
            const clean = cleanShorterPrefix(k, (kk2) => {
              const seeds2 = seedsFor(kk2);
              const m = materialize(seeds2);
              const probeNotes: string[] = [];
              return fixSyntax(doc, analyses, m, seeds2, materialize, budget, probeNotes, fixWork) === m && probeNotes.length === 0 ? m : null;
            });
            if (clean && massOf(clean.m, k).mass >= mass) {
              fixed = clean.m;
              ({ kept, mass } = massOf(fixed, k));
            }
          }
          if (notes.length === 0 && kept * 2 >= kk) {
            best = { fixed, notes, mass: Infinity };
            break;
          }
          if (!best || mass > best.mass) best = { fixed, notes, mass };
        }
        // (without parsing work left, a smaller selection would go unchecked too)
        if (last || fixWork.left <= 0) break;
      }
      if (best) {
        chosen = best.fixed;
        warnings.push(...best.notes);
      }
    }
  } else {
    const base = scorer.defaultThreshold ?? HEURISTIC_THRESHOLD;
    // a threshold that is not a probability would decide everything (NaN, 5) or nothing: fail open
    if (!(base > 0 && base <= 1) && req.threshold === undefined)
      return done(whole(doc, tokensIn, `scorer ${scorer.name} has no usable threshold (${base}): returned unchanged`, round(docScore)));
    const tau = req.threshold ?? (req.relativeThreshold !== undefined ? relativeTau(req.relativeThreshold, base) : Math.min(1, base * (decision?.tauScale ?? 1)));
    // the calibrated relative floor goes with the calibrated threshold, not with a caller's own
    const floor = req.threshold === undefined && Number.isFinite(scorer.relativeFloor) ? (scorer.relativeFloor ?? 0) : 0;
    thresholdInfo = { threshold: tau, calibratedThreshold: base };
    seeds = selectByThreshold(probs, segmentThresholds(probs, doc.segments.map((s) => s.lines), tau, floor));
    for (let i = 0; i < n; i++) if (!unseen(i) && probs[i] <= 1) seeds[i] = 0;
    chosen = materialize(seeds);
    if (doRepair) {
      const notes: string[] = [];
      chosen = fixSyntax(doc, analyses, chosen, seeds, materialize, null, notes, fixWork);
      if (notes.length > 0) {
        // Without a budget there is no reason to drop what the scorer chose: fail open. First the
        // selection without the repair closure (it may parse where the repaired one did not),
        // then, if that cannot be made to parse either, the input whole.
        const plainMaterialize = materializeWith(false);
        const plainNotes: string[] = [];
        const plain = fixSyntax(doc, analyses, plainMaterialize(seeds), seeds, plainMaterialize, null, plainNotes, fixWork);
        if (plainNotes.length > 0)
          return done(whole(doc, tokensIn, 'syntax repair could not make the pruned output parse: returned unchanged', round(docScore)));
        chosen = plain;
        warnings.push('syntax repair could not converge: the selected lines are shown without repair (the output parses)');
      }
    }
  }

  const text = joinPieces(chosen.pieces);
  const tokensOut = countTokens(text);
  const explainLines = (mask: Uint8Array): LineExplain[] =>
    doc.lines.map((l, i): LineExplain => {
      const e: LineExplain = { line: i + 1, score: roundSignificant(Math.min(1, probs[i])), kept: mask[i] === 1 };
      if (gate && !Number.isNaN(gate[i])) e.gateSemantic = round(gate[i]);
      const why = chosen.reasons[i];
      if (!e.kept) return e;
      if (l.segment === -1) e.reason = 'layout';
      else if (chosen.mask[i] !== 1) e.reason = 'whole';
      else e.reason = why === 'score' || why === undefined ? 'score' : why === 'gap' ? 'gap' : `repair:${why}`;
      return e;
    });
  // Markers cost tokens too: an output that saves nothing is worse than the input itself. The
  // scores still go out: a caller asked for them, and they say which lines would have been kept.
  const policy = decision ? { policy: decision.label } : {};
  if (!budgetMode && tokensOut >= tokensIn) {
    const r: PruneResult = { ...whole(doc, tokensIn, undefined, round(docScore)), scorer: scorer.name, ...thresholdInfo, ...policy };
    if (req.explain) r.explain = explainLines(r.keepMask);
    return done(r);
  }
  const keptNone = n > 0 && !chosen.mask.some((v, i) => v === 1 && doc.lines[i].segment !== -1);
  if (budgetMode && keptNone && !warnings.some((w) => w.includes('too small')))
    warnings.push(`budget of ${budget} tokens too small to keep any line with the context it needs: every line omitted`);
  // A whole file omitted is a judgement about the file, not a failure: say so, so a caller can
  // tell "unrelated to the question" from "lost" and read it another way if the judgement is wrong.
  if (!budgetMode && !keepAll && keptNone && !doc.seen)
    warnings.push(`no line reached the threshold (${thresholdInfo?.threshold}): everything was omitted as unrelated to the question (document score ${round(docScore)})`);
  const result: PruneResult = {
    text,
    kept: maskRanges(chosen.mask, 1),
    // One range per marker: runs split where the file changes (grep/multi input).
    omitted: chosen.wholeMarker ? [[1, n]] : omittedRuns(doc, chosen.mask).map((r): [number, number] => [r.start + 1, r.end + 1]),
    ...(doc.shape === 'raw' ? {} : { files: fileRanges(doc, chosen.mask) }),
    score: round(docScore),
    tokensIn,
    tokensOut,
    language: doc.segments[0]?.language ?? 'text',
    ms: 0,
    shape: doc.shape,
    scorer: scorer.name,
    ...thresholdInfo,
    ...policy,
    warnings,
    keepMask: chosen.mask,
  };
  if (doc.seen) result.seenLines = doc.seen.reduce((a, v, i) => a + (v && !chosen.mask[i] ? 1 : 0), 0);
  if (req.explain) result.explain = explainLines(chosen.mask);
  result.ms = round(performance.now() - t0);
  return done(result);
}

interface Materialized {
  mask: Uint8Array;
  reasons: (KeepReason | undefined)[];
  pieces: RenderPiece[];
  /** One marker stands for the whole input (across files): `omitted` is then that one range. */
  wholeMarker?: boolean;
  cost: number;
}

/** Seeds -> repaired mask -> laid-out output and its token cost. */
function materializeSelection(
  doc: Document,
  analyses: SegmentAnalysis[],
  seeds: Uint8Array,
  doRepair: boolean,
  infos: SegmentRenderInfo[],
  banned?: Uint8Array,
  economy = false,
  measure: Measure = TOKENS,
): Materialized {
  const n = doc.lines.length;
  const mask = new Uint8Array(n);
  const reasons: (KeepReason | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (doc.lines[i].segment === -1) mask[i] = 1;
    else if (seeds[i]) {
      mask[i] = 1;
      reasons[i] = 'score';
    }
  }
  doc.segments.forEach((seg, s) => {
    const a = analyses[s];
    const local = new Uint8Array(seg.lines.length);
    const localReasons: (KeepReason | undefined)[] = new Array(seg.lines.length);
    seg.lines.forEach((idx, k) => {
      local[k] = mask[idx];
      localReasons[k] = reasons[idx];
    });
    // Grep fragments are not a program: structural repair over them would pull unrelated lines.
    const repairHere = doRepair && seg.contiguous;
    if (local.some((v) => v === 1)) {
      if (repairHere) repairClosure(local, a.syntax, a.texts, localReasons, { braces: a.info.braces, dependencies: !economy, fullHeaders: !economy });
      // A gap no dearer than its marker is kept rather than marked; what it brings back may need repair too.
      const gapCosts: GapCosts = {
        line: (k) => countLineTokens(doc.lines[seg.lines[k]].prefix + doc.lines[seg.lines[k]].text),
        marker: (start, end) => countLineTokens(markerText(doc, { start: seg.lines[start], end: seg.lines[end] }, { lineComment: a.info.lineComment, placeholders: new Map() }, undefined)),
      };
      for (let round = 0; round < 3; round++) {
        if (fillCheapGaps(local, localReasons, gapCosts) === 0) break;
        if (repairHere) repairClosure(local, a.syntax, a.texts, localReasons, { dependencies: false, braces: a.info.braces, fullHeaders: !economy });
      }
    }
    let anyBanned = false;
    seg.lines.forEach((idx, k) => {
      if (banned?.[idx] && local[k]) {
        local[k] = 0;
        anyBanned = true;
      }
    });
    // What a banned line headed goes with it: never a body under the wrong block or clause.
    if (repairHere && anyBanned) dropOrphans(local, a.syntax);
    seg.lines.forEach((idx, k) => {
      mask[idx] = local[k];
      reasons[idx] = localReasons[k];
    });
    infos[s] = {
      lineComment: a.info.lineComment,
      placeholders: repairHere ? computePlaceholders(local, a.syntax, a.texts, a.info.placeholder) : new Map(),
    };
  });
  const pieces = layout(doc, mask, infos);
  return { mask, reasons, pieces, cost: measure.estimate(pieces) };
}

/** Budget mode: how many times the selection may shrink (x0.7) when its syntax fix would collapse a segment. */
const MAX_SHRINK_ATTEMPTS = 6;
/** Budget mode, when not even the best line fits: how many ranked lines to try one by one instead. */
const FALLBACK_PROBES = 64;
const LOCAL_FIX_ROUNDS = 12;
/** Threshold mode has no budget to protect: more local rounds before coarse fixes (a long file may have many error sites). */
const LOCAL_FIX_ROUNDS_UNBUDGETED = 64;
const COARSE_FIX_ROUNDS = 24;

/**
 * The validation step of repair: parse each segment's output; where the grammar finds an error
 * that the input did not have, first bring back the omitted runs next to it (when the budget
 * allows) or drop the kept lines at it; if that does not converge, do the same for the scopes
 * around the error, innermost first (a test file is often one top-level `describe` block: dropping
 * it whole would drop the file); as a last resort the segment collapses to one marker (which
 * always parses) and a warning says so. Bounded rounds, deterministic. Every parse draws on
 * `work` (characters): when it runs out (a large input with many error sites), the repair stops
 * where it is with a warning that the output may not parse. `warnings` receives only these two,
 * so callers read a non-empty list as "not repaired".
 */
function fixSyntax(
  doc: Document,
  analyses: SegmentAnalysis[],
  start: Materialized,
  startSeeds: Uint8Array,
  materialize: (seeds: Uint8Array, banned?: Uint8Array) => Materialized,
  budget: number | null,
  warnings: string[],
  work: { left: number },
): Materialized {
  let cur = start;
  const seeds = startSeeds.slice();
  const banned = new Uint8Array(doc.lines.length);
  const fits = (m: Materialized) => budget === null || m.cost <= budget;
  doc.segments.forEach((seg, s) => {
    const a = analyses[s];
    if (!a.syntax.hasGrammar || !a.syntax.parseOk || !seg.contiguous) return;
    const local = segmentPositions(doc);
    const widened = new Set<number>();
    const triedScopes = new Set<number>();
    const localRounds = budget === null ? LOCAL_FIX_ROUNDS_UNBUDGETED : LOCAL_FIX_ROUNDS;
    for (let round = 0; ; round++) {
      const rows = cur.pieces.filter((p) => p.segment === s);
      if (!rows.some((p) => p.source < 0)) return; // nothing omitted: the input itself
      if (work.left <= 0) {
        warnings.push(`syntax repair of ${seg.path ?? 'the output'} stopped early (a large input): the output may not parse`);
        return;
      }
      const text = rows.map((p) => p.code).join('\n');
      work.left -= text.length;
      const errors = syntaxErrorRows(text, seg.language, 1);
      if (!errors || errors.length === 0) return;
      const r = Math.min(errors[0], rows.length - 1);
      let next: Materialized | null = null;
      if (round < localRounds) {
        const runs = rows.slice(Math.max(0, r - 2), r + 2).filter((p) => p.run && !widened.has(p.run.start)).map((p) => p.run!);
        if (runs.length > 0) {
          const trial = seeds.slice();
          for (const run of runs) for (let i = run.start; i <= run.end; i++) if (!banned[i]) trial[i] = 1;
          const m = materialize(trial, banned);
          if (fits(m)) {
            for (const run of runs) widened.add(run.start);
            seeds.set(trial);
            next = m;
          }
        }
        if (!next) {
          for (const p of rows.slice(Math.max(0, r - 1), r + 2)) if (p.source >= 0) ban(p.source);
          next = materialize(seeds, banned);
        }
      } else if (round < localRounds + COARSE_FIX_ROUNDS) {
        // The innermost scope around the error not tried yet: all of it back if allowed, else none of it.
        const at = rows[r].source >= 0 ? rows[r].source : rows[r].run!.start;
        const [from, to] = enclosingItem(a.syntax, local[at], triedScopes);
        const trial = seeds.slice();
        for (let k = from; k <= to; k++) if (!banned[seg.lines[k]]) trial[seg.lines[k]] = 1;
        const m = materialize(trial, banned);
        if (fits(m)) {
          seeds.set(trial);
          next = m;
        } else {
          for (let k = from; k <= to; k++) ban(seg.lines[k]);
          next = materialize(seeds, banned);
        }
      } else {
        for (const idx of seg.lines) ban(idx);
        cur = materialize(seeds, banned);
        warnings.push(`syntax repair could not make ${seg.path ?? 'the output'} parse${budget === null ? '' : ' within the budget'}: collapsed to a marker`);
        return;
      }
      cur = next;
    }
  });
  return cur;

  function ban(idx: number) {
    banned[idx] = 1;
    seeds[idx] = 0;
  }
}

/**
 * Segment-local [start, end] of the innermost scope containing `line` that is not in `tried`
 * (which it joins), or of the line's statement when every enclosing scope has been tried.
 */
function enclosingItem(syntax: SyntaxIndex, line: number, tried: Set<number>): [number, number] {
  const ls = syntax.lines[line];
  if (!ls) return [line, line];
  for (let j = ls.scopes.length - 1; j >= 0; j--) {
    const k = ls.scopes[j];
    if (tried.has(k)) continue;
    tried.add(k);
    const sc = syntax.scopes[k];
    return [Math.min(sc.start, ...sc.decorators), sc.end];
  }
  return [Math.min(ls.stmtStart, line), Math.max(ls.stmtEnd, line)];
}

/** How many shorter prefixes budget mode tries when the syntax fix had to drop lines. */
const CLEAN_PREFIX_PROBES = 4;

/** The longest prefix among the next few shorter ones whose output parses without a fix. */
function cleanShorterPrefix(k: number, parsesAsIs: (k: number) => Materialized | null): { k: number; m: Materialized } | null {
  for (let kk = k - 1; kk >= Math.max(1, k - CLEAN_PREFIX_PROBES); kk--) {
    const m = parsesAsIs(kk);
    if (m) return { k: kk, m };
  }
  return null;
}

function dropsAny(before: Uint8Array, after: Uint8Array): boolean {
  for (let i = 0; i < before.length; i++) if (before[i] && !after[i]) return true;
  return false;
}

/**
 * Nothing fits: every file becomes its marker(s), named like any other marker (file line numbers,
 * grep paths), when those fit; else one marker for the whole input. When not even that fits, the
 * output is still that one marker, over the budget: an empty output would lose the lines silently.
 */
function collapseAll(doc: Document, analyses: SegmentAnalysis[], budget: number, warnings: string[], measure: Measure): Materialized {
  const n = doc.lines.length;
  const mask = new Uint8Array(n);
  const reasons: (KeepReason | undefined)[] = new Array(n);
  // layout lines (grep `--`, `==> a <==` headers) stay, as in any other output
  for (let i = 0; i < n; i++) if (doc.lines[i].segment === -1) mask[i] = 1;
  const infos: SegmentRenderInfo[] = analyses.map((a) => ({ lineComment: a.info.lineComment, placeholders: new Map() }));
  const unit = measure === CHARS ? 'characters' : 'tokens';
  const tooSmall = (cost: number) =>
    `budget of ${budget} ${unit} is too small even for a marker: the output is one marker (${cost} ${unit}), over the budget`;
  const perFile = layout(doc, mask, infos);
  const perFileCost = measure.exact(joinPieces(perFile));
  if (perFile.length === 1 || perFileCost <= budget) {
    if (perFileCost > budget) warnings.push(tooSmall(perFileCost));
    else warnings.push(`budget too small for any line: ${perFile.length === 1 ? 'whole input collapsed to one marker' : 'every file collapsed to its marker'}`);
    return { mask, reasons, pieces: perFile, cost: measure.estimate(perFile) };
  }
  mask.fill(0);
  // one marker across files is not in any one file's language (nor are grep markers comments)
  const comment = doc.shape === 'grep' || doc.segments.length > 1 ? null : analyses[0]?.info.lineComment;
  const noun = n === 1 ? 'line' : 'lines';
  const line = comment ? `${comment} ... ${n} ${noun} omitted (1-${n})` : `... ${n} ${noun} omitted (1-${n})`;
  const eol = doc.finalNewline ? doc.eol : '';
  const pieces: RenderPiece[] = [{ line, eol, source: -1, segment: -1, code: line, run: { start: 0, end: n - 1 } }];
  const cost = measure.exact(line + eol);
  warnings.push(cost <= budget ? 'budget too small for any line: whole input collapsed to one marker' : tooSmall(cost));
  return { mask, reasons, pieces, cost: measure.estimate(pieces), wholeMarker: true };
}

/** A threshold on the relative scale (0.5 = the calibrated τ) as a keep probability. */
export function relativeTau(r: number, calibrated: number): number {
  return Math.pow(relativeBase(calibrated), (1 - r) / 0.5);
}

/** The calibrated τ both directions of the relative scale are built on (kept in (0, 1]). */
function relativeBase(calibrated: number): number {
  return Math.min(Math.max(calibrated, 1e-6), 1);
}

/**
 * A keep probability on the relative scale, the inverse of relativeTau: a line scoring p passes
 * relativeThreshold r exactly when relativeScore(p) >= r (τ itself maps to 0.5, 1 to 1, τ² to 0).
 */
export function relativeScore(p: number, calibrated: number): number {
  const base = relativeBase(calibrated);
  if (base >= 1) return p >= 1 ? 1 : 0;
  if (!(p > 0)) return 0;
  return Math.min(1, Math.max(0, 1 - (0.5 * Math.log(p)) / Math.log(base)));
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Three significant digits: line scores near a calibrated τ of 0.0025 must stay comparable to it. */
function roundSignificant(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(3));
}

export { omittedRuns };
