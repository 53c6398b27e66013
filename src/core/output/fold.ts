/**
 * Which lines fold, and into which markers. A line folds when its shape's rules call it routine,
 * when it repeats the shape of the lines just before it, when the previous run of the same command
 * (or a kept line above it in this output) showed it, when it is one of many entries of a
 * directory the question does not name, when it belongs to a compiler's warning the agent does not
 * need (blocks.ts), or when the learned judgement expects it unused; a signal line, a relevant line
 * and the last lines of the output never fold, and a diagnostic folds whole or not at all. Only
 * runs that save more than their marker costs become markers.
 */
import { type BlockPlan, blocksLabel, contextKey } from './blocks.js';
import { DROPPED_NOTE_RE } from './dropped.js';
import { isBlank, shapeOf } from './lines.js';
import { directoryOfEntries, testOutcomesLabel } from './shapes/index.js';
import type { FoldReason, LineRole, OutputFold } from './types.js';

/** Lines of one shape in a row before the rest of the row folds (the first stays as the example). */
export const SIMILAR_RUN = 5;
/** Entries of one directory in a row before the rest fold (the first ones stay as examples). */
export const LISTING_RUN = 12;
const LISTING_EXAMPLES = 3;
/** The shortest run worth a marker. */
export const MIN_FOLD = 3;
/** The last lines of an output (a summary, an exit status) are always shown. */
const TAIL_KEPT = 2;
/**
 * The fewest characters a fold must hide: a marker costs about 70, and a few header lines are not
 * worth the chance that the agent wanted one of them. Lines the agent was shown before are in its
 * context: a fold of those only has to pay for its marker.
 */
const MIN_FOLD_CHARS = 400;
const MIN_SEEN_FOLD_CHARS = 160;
/**
 * Lines the learned judgement folds already had their risk weighed against their characters
 * (lineModel.ts): a fold of them only has to pay for its marker.
 */
const MIN_UNLIKELY_FOLD = 2;
const MIN_UNLIKELY_FOLD_CHARS = 200;

export interface FoldInput {
  lines: readonly string[];
  roles: readonly LineRole[];
  labels: readonly (string | undefined)[];
  relevant: Uint8Array;
  /**
   * Per line: where the session showed it before ('previous run' of this command, 'earlier'), or
   * undefined. Such a line is in the agent's context already.
   */
  seen: readonly (string | undefined)[] | null;
  /** The output is a listing: entries of one directory fold by directory. */
  listing: boolean;
  /** Terms of the question, to keep directories it names. */
  question: string;
  /** A compiler's or linter's diagnostics, which stay or fold whole (null: the output prints none). */
  blocks?: BlockPlan | null;
  /**
   * The learned judgement: given the lines the rules leave undecided, 1 for each it expects the
   * agent not to use (null: the rules alone).
   */
  unlikely: ((undecided: Uint8Array) => Uint8Array | null) | null;
}

export function planFolds(o: FoldInput): OutputFold[] {
  const n = o.lines.length;
  const reason: (FoldReason | null)[] = new Array(n).fill(null);
  const label: (string | undefined)[] = new Array(n).fill(undefined);
  const seen = o.blocks && o.seen ? seenWhole(o.blocks, o.lines, o.seen) : o.seen;
  for (let i = 0; i < n; i++) {
    // the note of a dropped middle says this output has a hole: shown however often it was shown before
    if (seen?.[i] && !DROPPED_NOTE_RE.test(o.lines[i])) {
      reason[i] = 'seen';
      label[i] = seen[i];
    } else if (o.blocks?.state[i] === 2) reason[i] = 'warnings';
    else if (o.roles[i] === 'signal' || o.relevant[i]) continue;
    else if (o.roles[i] === 'routine') {
      reason[i] = 'routine';
      label[i] = o.labels[i];
    }
  }
  // Entries of a listing are all alike: they fold by directory, never by shape.
  if (o.listing) markListingRuns(o, reason, label);
  else markSimilarRuns(o, reason);
  // The judgement is asked only about the plain lines the rules leave undecided.
  const undecided = new Uint8Array(n);
  for (let i = 0; i < n; i++) undecided[i] = reason[i] === null && o.roles[i] === 'plain' && !o.relevant[i] ? 1 : 0;
  const unlikely = o.unlikely?.(undecided) ?? null;
  if (unlikely) for (let i = 0; i < n; i++) if (undecided[i] && unlikely[i]) reason[i] = 'unlikely';
  markRepeats(o, reason, label);
  if (unlikely) mergeUnlikely(o.lines, reason, label);
  for (let k = 0, i = n - 1; i >= 0 && k < TAIL_KEPT; i--) {
    if (isBlank(o.lines[i])) continue;
    reason[i] = null;
    k++;
  }
  if (o.blocks) blocksWhole(o.blocks, o.lines, reason);
  return namedExamples(foldsOf(o.lines, reason, label, o.blocks ?? null));
}

/**
 * A diagnostic the session showed before folds as shown only when all of it was: a diagnostic is
 * shown whole or folded whole, never a fragment of one (its source line alone repeats elsewhere).
 */
function seenWhole(plan: BlockPlan, lines: readonly string[], seen: readonly (string | undefined)[]): (string | undefined)[] {
  const out = [...seen];
  for (const b of plan.blocks) {
    let all = true;
    for (let i = b.from; i <= b.to && all; i++) all = isBlank(lines[i]) || seen[i] !== undefined;
    if (!all) out.fill(undefined, b.from, b.to + 1);
  }
  return out;
}

/**
 * A folded diagnostic some of whose lines stay (the output's last lines are always shown) stays
 * whole, and so does the context of a diagnostic that stays; so does one the session showed
 * before when some of its lines are shown again (its last lines, not the rest as shown before).
 */
function blocksWhole(plan: BlockPlan, lines: readonly string[], reason: (FoldReason | null)[]): void {
  const stays = (b: { from: number; to: number }) => {
    for (let i = b.from; i <= b.to; i++) if (reason[i] !== 'warnings' && !isBlank(lines[i])) return true;
    return false;
  };
  // (a context many diagnostics share is cleared once, not once for each)
  const cleared = new Set<string>();
  for (const b of plan.blocks) {
    if (!stays(b)) continue;
    let shown = false;
    for (let i = b.from; i <= b.to && !shown; i++) shown = reason[i] === null && !isBlank(lines[i]);
    for (let i = b.from; i <= b.to; i++) if (reason[i] === 'warnings' || (shown && reason[i] === 'seen')) reason[i] = null;
    if (!b.context || cleared.has(contextKey(b.context))) continue;
    cleared.add(contextKey(b.context));
    for (let i = b.context[0]; i <= b.context[1]; i++) if (reason[i] === 'warnings') reason[i] = null;
  }
}

/**
 * A run of alike lines folds after its first line, the example "above" its marker. When that line
 * is itself folded (a repeat of a kept line), the marker names it by its line instead.
 */
function namedExamples(folds: OutputFold[]): OutputFold[] {
  for (let k = 1; k < folds.length; k++) {
    const f = folds[k];
    if (f.reason === 'similar' && folds[k - 1].to === f.from - 1) folds[k] = { ...f, label: String(f.from - 1) };
  }
  return folds;
}

/**
 * A line whose exact text a kept line above it already shows (a test's failure printed twice, a
 * traceback repeated in captured output) is in the agent's context: it folds as seen 'above'.
 */
function markRepeats(o: FoldInput, reason: (FoldReason | null)[], label: (string | undefined)[]): void {
  // A listing's entries repeat across directories (each package's `__init__.py`): not the same entry.
  if (o.listing) return;
  const keptAbove = new Set<string>();
  for (let i = 0; i < o.lines.length; i++) {
    const line = o.lines[i];
    if (reason[i] !== null || isBlank(line)) continue;
    // (a diagnostic that stays is shown whole: its source line may repeat another's)
    if (keptAbove.has(line) && !o.blocks?.state[i]) {
      reason[i] = 'seen';
      label[i] = 'above';
    } else keptAbove.add(line);
  }
}

/**
 * Lines the judgement expects unused and the lines the rules fold next to them (blank lines
 * between) become one marker, as unlikely to matter: one marker, not several short ones that do
 * not pay for themselves. What the rules said of the lines they folded stays in its label when
 * they said one thing ("12 of them passed tests").
 */
function mergeUnlikely(lines: readonly string[], reason: (FoldReason | null)[], label: (string | undefined)[]): void {
  const n = lines.length;
  // (a fold of diagnostics keeps its own marker, which counts them by kind)
  const merges = (k: number) => reason[k] !== null && reason[k] !== 'seen' && reason[k] !== 'warnings';
  let i = 0;
  while (i < n) {
    if (!merges(i)) {
      i++;
      continue;
    }
    let j = i;
    let any = false;
    while (j < n && (merges(j) || (isBlank(lines[j]) && reason[j] === null && j + 1 < n && merges(j + 1)))) {
      if (reason[j] === 'unlikely') any = true;
      j++;
    }
    const kinds = new Set(reason.slice(i, j).filter((r) => r !== null));
    if (any && kinds.size > 1)
      for (let k = i; k < j; k++) {
        if (reason[k] === null) continue;
        // a line the rules folded keeps what they said of it, for the marker's label (unlikelyLabel)
        if (reason[k] !== 'unlikely') label[k] = reason[k] === 'routine' && label[k] !== undefined ? label[k] : UNNAMED_RULE;
        reason[k] = 'unlikely';
      }
    i = j;
  }
}

/** The label of a line a rule folds without saying what it is (alike lines, listing entries). */
const UNNAMED_RULE = '\0';

/**
 * An unlikely fold's label: "N of them LABEL" when every line of it the rules folded was routine
 * of one kind, counted over the fold as it stands (the output's last lines are shown whatever).
 */
function unlikelyLabel(label: (string | undefined)[], from: number, to: number): string | undefined {
  const labels = new Set<string>();
  let n = 0;
  for (let k = from; k <= to; k++) {
    const l = label[k];
    if (l === undefined) continue;
    if (l === UNNAMED_RULE) return undefined;
    labels.add(l);
    n++;
  }
  const what = labels.size <= 1 ? [...labels][0] : testOutcomesLabel(labels);
  // (the label's name alone, without its parenthesised examples: the marker stays short)
  return what === undefined ? undefined : `${n} of them ${what.replace(/ \(.*\)$/, '')}`;
}

/**
 * Runs of plain lines of one shape: all but the first fold. A line the session showed before is
 * part of its run too (in the run again of a command, the previous run showed its example: were it
 * left out of the run, each run of the command would start its fold one line later).
 */
function markSimilarRuns(o: FoldInput, reason: (FoldReason | null)[]): void {
  const n = o.lines.length;
  const open = (k: number) => reason[k] === null || reason[k] === 'seen';
  let i = 0;
  while (i < n) {
    if (!open(i) || o.roles[i] !== 'plain' || isBlank(o.lines[i])) {
      i++;
      continue;
    }
    const shape = shapeOf(o.lines[i]);
    let j = i + 1;
    while (j < n && o.roles[j] === 'plain' && open(j) && shapeOf(o.lines[j]) === shape) j++;
    // (a line shown before keeps its reason: a fold of such lines says where they were shown)
    if (j - i >= SIMILAR_RUN) for (let k = i + 1; k < j; k++) if (reason[k] === null && !o.relevant[k]) reason[k] = 'similar';
    i = j;
  }
}

/**
 * Long runs of entries of one directory the question does not name: all but the first few fold.
 * Only in a listing of many directories (`ls -R`, `find`): the directory listed first, and a
 * listing of one directory, are what the agent asked to see.
 */
function markListingRuns(o: FoldInput, reason: (FoldReason | null)[], label: (string | undefined)[]): void {
  const dirs = directoryOfEntries(o.lines);
  const first = dirs.find((d) => d !== null);
  if (new Set(dirs.filter((d) => d !== null)).size < 2) return;
  const q = o.question.toLowerCase();
  const named = (dir: string) =>
    dir
      .split('/')
      .filter((p) => p.length >= 3 && p !== '.' && p !== '..')
      .some((p) => q.includes(p.toLowerCase()));
  let i = 0;
  while (i < o.lines.length) {
    const dir = dirs[i];
    if (dir === null) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < o.lines.length && dirs[j] === dir) j++;
    if (j - i >= LISTING_RUN && dir !== first && !named(dir)) {
      for (let k = i + LISTING_EXAMPLES; k < j; k++)
        if (reason[k] === null && !o.relevant[k] && o.roles[k] !== 'signal') {
          reason[k] = 'listing';
          label[k] = `entries of ${dir}`;
        }
    }
    i = j;
  }
}

/** Runs of lines with one reason (blank lines join the run around them) that pay for a marker. */
function foldsOf(lines: readonly string[], reason: (FoldReason | null)[], label: (string | undefined)[], blocks: BlockPlan | null): OutputFold[] {
  const folds: OutputFold[] = [];
  let i = 0;
  while (i < lines.length) {
    const r = reason[i];
    if (r === null || isBlank(lines[i])) {
      i++;
      continue;
    }
    let j = i + 1;
    let end = i; // last non-blank line of the run
    while (
      j < lines.length &&
      (reason[j] === r || (isBlank(lines[j]) && reason[j] !== null) || (isBlank(lines[j]) && j + 1 < lines.length && reason[j + 1] === r))
    ) {
      if (!isBlank(lines[j])) end = j;
      j++;
    }
    let chars = 0;
    for (let k = i; k <= end; k++) chars += lines[k].length + 1;
    const minChars = r === 'seen' ? MIN_SEEN_FOLD_CHARS : r === 'unlikely' ? MIN_UNLIKELY_FOLD_CHARS : MIN_FOLD_CHARS;
    const minLines = r === 'unlikely' ? MIN_UNLIKELY_FOLD : MIN_FOLD;
    if (end - i + 1 >= minLines && chars >= minChars)
      folds.push({
        from: i + 1,
        to: end + 1,
        reason: r,
        label:
          r === 'seen'
            ? seenLabel(label, i, end)
            : r === 'unlikely'
              ? unlikelyLabel(label, i, end)
              : r === 'warnings' && blocks
                ? blocksLabel(blocks, i, end)
                : commonLabel(label, i, end),
      });
    i = end + 1;
  }
  return folds;
}

/** Where a run of seen lines was shown: one place when they agree, else 'earlier' (true of each). */
function seenLabel(label: (string | undefined)[], from: number, to: number): string {
  const first = label[from] ?? 'earlier';
  for (let k = from + 1; k <= to; k++) if (label[k] !== undefined && label[k] !== first) return 'earlier';
  return first;
}

/** What the lines of a fold are: their one label, or passed and skipped tests together; else nothing. */
function commonLabel(label: (string | undefined)[], from: number, to: number): string | undefined {
  const labels = new Set<string>();
  for (let k = from; k <= to; k++) {
    const l = label[k];
    if (l !== undefined) labels.add(l);
  }
  if (labels.size <= 1) return [...labels][0];
  return testOutcomesLabel(labels);
}
