/**
 * prune(): the pipeline, one stage after another (src/core/pipeline/types.ts lists what each hands
 * the next). Misuse of the API throws SkimError before any stage runs; problems in the content
 * (binary input, a scorer failure, an oversized file) become diagnostics on the result, and where
 * nothing useful can be pruned the input comes back whole (fail open).
 */
import { diagnostic } from './diagnostics.js';
import { admit } from './ingest/admit.js';
import { ingestInput } from './ingest/ingestInput.js';
import { TOKENS } from './layout/measure.js';
import { fitBudget } from './outputLimit.js';
import { readRequest } from './pipeline/job.js';
import { round4 } from './pipeline/round.js';
import type { PruneJob, Selection, Whole } from './pipeline/types.js';
import { READ_POLICY, type ReadGate, readKindOf } from './policy/readPolicy.js';
import { renderResult } from './render/result.js';
import { wholeOf } from './render/whole.js';
import { createRepairer, materializeStyle } from './repair/repairer.js';
import { checkPruneRequest } from './request.js';
import { resolveScorer, type ScorerChoice } from './score/resolveScorer.js';
import { scoreLines } from './score/scoreLines.js';
import { selectWithinBudget } from './select/budget.js';
import { selectAllButSeen } from './select/keepAll.js';
import { pinnedIndexes, planSelection, selectionScores } from './select/plan.js';
import { selectAboveThreshold } from './select/threshold.js';
import { rememberShown } from './session/shown.js';
import { analyse } from './syntax/analyse.js';
import type { Document, PruneRequest, PruneResult, Scorer } from './types.js';

export { queryAsRead } from './pipeline/job.js';
export { relativeScore, relativeTau } from './select/threshold.js';

export interface PrunerOptions extends ScorerChoice {
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

export async function pruneWith(scorer: Scorer, req: PruneRequest, opts: { readPolicy?: ReadGate[] } = {}): Promise<PruneResult> {
  checkPruneRequest(req);
  const policy = opts.readPolicy ?? READ_POLICY;
  const job = readRequest(scorer, req, policy);
  const { result, doc } = await readWithinLimit(scorer, req, policy, job);
  // Session memory remembers what this result shows the agent (kept lines, at their file line
  // numbers), and counts the read (the read policy weighs how often and how late a path is read).
  if (req.session) {
    rememberShown(req.session, req, doc, result);
    req.session.noteRead(req.path, job.readKey);
  }
  return result;
}

/**
 * A whole-file read longer than the harness shows whole (fitBudget) is read in budget mode to what
 * it shows: the lines that best match the goal hint, rather than the harness's blind cut to a head
 * and a tail (on the agent runs' whole files it cut: 74% of the fix lines against 41%, in 6% fewer
 * characters). In the default mode that is the read whatever the read policy would show: the
 * harness shows that much of the file anyway. A read in a mode the caller chose is fitted only
 * when its answer is longer than what it fits to. Only a read with something to choose by (a goal hint or the
 * task) is fitted. A window the agent chose, a grep's output and a command's output are not: the
 * harness's head and tail show more of the lines agents use next there (scripts/fit-limit.ts).
 */
async function readWithinLimit(scorer: Scorer, req: PruneRequest, policy: ReadGate[], job: PruneJob): Promise<{ result: PruneResult; doc: Document | null }> {
  const fit = fitBudget(req);
  // a file the harness would show whole is not fitted (nor one without a hint, nor a window)
  if (fit === null || job.code.length < fit.cutFrom || (job.query === '' && job.task === '') || job.window === true) return runStages(job);
  const { chars } = fit;
  const isFile = (doc: Document | null) => doc !== null && readKindOf(doc, job.window) === 'file';
  // the read as the agent asked it (its readKey: a read made again is served in full), in budget mode
  const fitted = () =>
    runStages({ ...readRequest(scorer, { ...req, ratio: undefined, tokens: undefined, maxChars: chars }, policy), started: job.started, readKey: job.readKey });
  const defaultMode = job.mode.kind === 'threshold' && job.mode.tau.kind === 'calibrated';
  if (defaultMode) {
    const filled = await fitted();
    // a fit that keeps no line (a line longer than the limit) shows less than the harness's cut would
    if (isFile(filled.doc) && filled.result.kept.length > 0) return withFitNote(filled, chars);
    return runStages(job);
  }
  const first = await runStages(job);
  if (first.result.text.length <= chars || !isFile(first.doc)) return first;
  const second = await fitted();
  return second.doc && second.result.text.length < first.result.text.length && second.result.kept.length > 0 ? withFitNote(second, chars) : first;
}

function withFitNote(r: { result: PruneResult; doc: Document | null }, chars: number): { result: PruneResult; doc: Document | null } {
  const note = diagnostic(
    'fitted-to-limit',
    `pruned to fit the harness's output limit (${chars} characters shown whole): the lines that best match the goal hint; read a range for the rest`,
  );
  return { result: { ...r.result, diagnostics: [...r.result.diagnostics, note], warnings: [...r.result.warnings, note.message] }, doc: r.doc };
}

/** The stages in order; `doc` is null when the input came back whole before it was ingested. */
async function runStages(job: PruneJob): Promise<{ result: PruneResult; doc: Document | null }> {
  const admitted = admit(job);
  if (admitted.kind === 'whole') return { result: wholeOf(job, admitted, admitted.tokensIn, null), doc: null };
  const input = ingestInput(job, admitted);
  const { doc, tokensIn } = input;
  const whole = (w: Whole) => ({ result: wholeOf(job, w, tokensIn, doc), doc });
  if (input.keepAll && !doc.seen) return whole({ kind: 'whole', why: input.keepAll.why, score: 1 });
  const analyses = await analyse(doc, job.code, job.diagnostics);
  // what selection ranks by: weak files collapsed, pinned lines pinned (the scorer's scores untouched)
  const scored = selectionScores(doc, scoreLines(job, input, analyses), job.pinLines);
  const plan = planSelection(job, input, scored);
  if (plan.kind === 'whole') return whole(plan);
  // Budget mode spends on the lines that matter: repair keeps only what readability and syntax
  // need; threshold mode also brings whole signatures, decorators, and the imports/definitions of
  // used names. Keeping all but what the session has seen needs no more than syntax either.
  const measure = input.mode.kind === 'budget' ? input.mode.measure : TOKENS;
  const repairer = createRepairer(doc, analyses, {
    repair: job.repair,
    ...materializeStyle(plan.strategy),
    measure,
    chars: job.code.length,
    pinned: pinnedMask(doc, job.pinLines),
  });
  let selection: Selection | Whole;
  if (plan.strategy === 'keep-all') selection = selectAllButSeen(doc, repairer, plan.why, round4(scored.docScore));
  else if (input.mode.kind === 'budget')
    selection = selectWithinBudget(doc, analyses, scored, { limit: input.mode.budget, measure }, repairer, job.diagnostics);
  else selection = selectAboveThreshold(job, doc, scored, input.mode.tau, plan.decision, repairer);
  if (selection.kind === 'whole') return whole(selection);
  return { result: renderResult(job, input, scored, plan, selection), doc };
}

/** Per input line, 1 for the lines the request pins; undefined when none are. */
function pinnedMask(doc: Document, pins: readonly number[]): Uint8Array | undefined {
  if (pins.length === 0) return undefined;
  const mask = new Uint8Array(doc.lines.length);
  for (const i of pinnedIndexes(doc, pins)) mask[i] = 1;
  return mask;
}
