/**
 * pruneOutput(): any command's output, pruned for what the agent needs now. Its stages:
 * split (no byte lost) -> detect the shape -> classify lines by its rules -> find the lines the
 * goal hint or task names -> find what the previous run of this command showed -> plan folds ->
 * render markers -> remember the output in the session. Outputs skim cannot make sense of (binary,
 * short, nothing to fold) come back whole; the output is never damaged, only folded.
 */
import { stripVTControlCharacters } from 'node:util';
import { diagnostic } from '../diagnostics.js';
import { SkimError } from '../errors.js';
import { OUTPUT_LIMIT_HELP, type OutputLimit, parseOutputLimit, visibleSpans } from '../outputLimit.js';
import { keepDiagnosticsWhole, planBlocks } from './blocks.js';
import { classifyLines } from './classify.js';
import { expandsMarker } from './commands.js';
import { type DetectedShape, detectShape } from './detect.js';
import { type FoldInput, planFolds } from './fold.js';
import { LINE_MODEL, unlikelyLines } from './lineModel.js';
import { splitOutput } from './lines.js';
import { commandKey, NOT_STORED_WARNING, type OutputMemory, outputHandle } from './memory.js';
import { questionTermsByLine, rareHolders } from './relevance.js';
import { rangesOf, renderOutput } from './render.js';
import { diagnosticBlocks, directoryOfEntries } from './shapes/index.js';
import type { OutputRequest, OutputResult } from './types.js';

/** Outputs shorter than this come back whole (unless the previous run folds them). */
export const MIN_OUTPUT_LINES = 20;
/** Outputs over this many characters come back whole (as prune()'s ceiling). */
export const MAX_OUTPUT_CHARS = 16 * 1024 * 1024;
/** Pruning that saves less than this share of the characters is not worth its markers. */
const MIN_SAVING = 0.1;

export function pruneOutput(req: OutputRequest): OutputResult {
  if (typeof req?.text !== 'string') throw new SkimError('an output request needs "text" (a string)', 'EUSAGE');
  const limit = req.outputLimit === undefined ? null : parseOutputLimit(req.outputLimit);
  if (req.outputLimit !== undefined && !limit) throw new SkimError(`outputLimit must be ${OUTPUT_LIMIT_HELP}, got "${req.outputLimit}"`, 'EUSAGE');
  const command = req.command ?? '';
  const { lines, ends } = splitOutput(req.text);
  let shapeName = 'text';
  const whole = (why?: string): OutputResult => remember(req, lines, wholeResult(req.text, lines.length, why), limit);
  if (req.text.length > MAX_OUTPUT_CHARS) return whole(`output over ${MAX_OUTPUT_CHARS} characters: not pruned`);
  if (req.text.includes('\0')) return whole('binary output: not pruned');
  if (expandsMarker(command)) return whole();
  const short = lines.length < (req.minLines ?? MIN_OUTPUT_LINES);
  if (short && !req.memory) return whole();
  const shown = terminalLines(lines);
  const shape = detectShape(shown, command);
  const seen = seenBefore(lines, req.memory, command, shape.main.kind === 'listing');
  if (short && !seen) return whole();

  const a = analyseOutput(shown, req, seen, shape);
  shapeName = a.shape.main.name;
  const judge = req.judge;
  const folds = planFolds({ ...a, unlikely: judge === false ? null : (undecided) => unlikelyLines(a, judge ?? LINE_MODEL, undecided, req.memory?.size.lines) });
  const keepMask = new Uint8Array(lines.length).fill(1);
  for (const f of folds) keepMask.fill(0, f.from - 1, f.to);
  // A marker names a handle only when the session really keeps the output (`skim show` finds it).
  const keepable = req.memory?.canKeep(command, req.text) ?? false;
  const handle = keepable ? outputHandle(command, req.text) : null;
  const text = renderOutput(lines, ends, folds, handle);
  if (folds.length === 0 || text.length > req.text.length * (1 - MIN_SAVING)) return whole();
  const diagnostics = req.memory && !keepable ? [diagnostic('output-not-stored', NOT_STORED_WARNING)] : [];
  const result: OutputResult = {
    text,
    shape: shapeName,
    keepMask,
    kept: rangesOf(keepMask, 1),
    omitted: rangesOf(keepMask, 0),
    folds,
    handle,
    linesIn: lines.length,
    charsIn: req.text.length,
    charsOut: text.length,
    warnings: diagnostics.map((d) => d.message),
    diagnostics,
  };
  return remember(req, lines, result, limit);

  function wholeResult(text: string, n: number, why?: string): OutputResult {
    const diagnostics = why ? [diagnostic('output-whole', why)] : [];
    return {
      text,
      shape: shapeName,
      keepMask: new Uint8Array(n).fill(1),
      kept: n > 0 ? [[1, n]] : [],
      omitted: [],
      folds: [],
      handle: null,
      linesIn: n,
      charsIn: text.length,
      charsOut: text.length,
      warnings: diagnostics.map((d) => d.message),
      diagnostics,
    };
  }
}

export interface OutputAnalysis extends Omit<FoldInput, 'unlikely'> {
  shape: DetectedShape;
  query: string;
  task: string;
  command: string;
}

/**
 * What the rules say of each line: its shape, role, relevance to the question, and where the
 * session showed it. The rules read the lines as a terminal shows them, without colour codes
 * (`pytest --color=yes` prints `PASSED` inside them); the output keeps its bytes.
 */
export function analyseOutput(
  raw: readonly string[],
  req: Pick<OutputRequest, 'command' | 'query' | 'task'>,
  seen: FoldInput['seen'],
  shape?: DetectedShape,
): OutputAnalysis {
  const lines = terminalLines(raw);
  shape ??= detectShape(lines, req.command);
  const { roles, labels } = classifyLines(lines, shape);
  const question = [req.query ?? '', req.task ?? ''].join('\n');
  const termsByLine = questionTermsByLine(lines, question);
  const relevant = rareHolders(termsByLine);
  const blocks = [shape.main, ...shape.also].some((s) => s.diagnostics) ? planBlocks(termsByLine, diagnosticBlocks(lines), relevant) : null;
  if (blocks) keepDiagnosticsWhole(blocks, lines, roles, labels);
  return {
    lines,
    roles,
    labels,
    relevant,
    blocks,
    seen,
    listing: shape.main.kind === 'listing',
    question,
    shape,
    query: req.query ?? '',
    task: req.task ?? '',
    command: req.command ?? '',
  };
}

/** The lines as a terminal shows them: without colour codes. */
function terminalLines(raw: readonly string[]): readonly string[] {
  return raw.some((l) => l.includes('\x1b')) ? raw.map(stripVTControlCharacters) : raw;
}

/** A listing's lines as entries: each under the directory it lists (directoryOfEntries), other lines as they are. */
function entryKeys(lines: readonly string[]): string[] {
  return directoryOfEntries(lines).map((dir, i) => (dir === null ? lines[i] : `${dir}\0${lines[i]}`));
}

/**
 * Per line: 'previous run' when the previous run of this command showed a line with this text
 * (each shown line of that run vouches for one line of this one), 'earlier' when another output of
 * the session showed it; null when the session has shown none of them. In a listing an entry is its
 * text under its directory (`__init__.py` of one package is not that of another): the previous
 * run vouches for an entry of the same directory, and another output only for a line naming its
 * path.
 */
export function seenBefore(lines: readonly string[], memory: OutputMemory | undefined, command: string, listing = false): (string | undefined)[] | null {
  if (!memory) return null;
  const keys = listing ? entryKeys : (ls: readonly string[]) => ls;
  const available = new Map<string, number>();
  const prev = commandKey(command) ? memory.previousRun(command) : undefined;
  if (prev) {
    const prevLines = splitOutput(prev.text).lines;
    keys(prevLines).forEach((key, i) => {
      if (prev.shown[i]) available.set(key, (available.get(key) ?? 0) + 1);
    });
  }
  const current = keys(lines);
  const out: (string | undefined)[] = new Array(lines.length).fill(undefined);
  let any = false;
  for (let i = 0; i < lines.length; i++) {
    const left = available.get(current[i]) ?? 0;
    if (left > 0) {
      out[i] = 'previous run';
      available.set(current[i], left - 1);
    } else if ((!listing || lines[i].includes('/')) && memory.hasShown(lines[i])) out[i] = 'earlier';
    any ||= out[i] !== undefined;
  }
  return any ? out : null;
}

/**
 * Remember what the output showed: its kept lines the harness lets through (all of them without an
 * output limit), and the output itself behind its handle when it can be kept.
 */
function remember(req: OutputRequest, lines: readonly string[], r: OutputResult, limit: OutputLimit | null): OutputResult {
  if (!req.memory) return r;
  const visible = limit ? visibleLines(lines, r, limit) : r.keepMask;
  req.memory.recordShown(lines.filter((_, i) => visible[i]));
  const command = req.command ?? '';
  if (!req.memory.canKeep(command, req.text)) return r;
  // A line folded as shown before is in the agent's context all the same.
  const shown = Array.from(visible);
  for (const f of r.folds) if (f.reason === 'seen') shown.fill(1, f.from - 1, f.to);
  req.memory.put({ handle: r.handle ?? outputHandle(command, req.text), command, text: req.text, shown, ...(req.encoding ? { encoding: req.encoding } : {}) });
  return r;
}

/**
 * The kept lines that lie wholly inside what the harness shows of the rendered output (`r.text`:
 * kept lines and one marker line per fold, in order).
 */
function visibleLines(lines: readonly string[], r: OutputResult, limit: OutputLimit): Uint8Array {
  const spans = visibleSpans(r.text.length, limit);
  const out = new Uint8Array(lines.length);
  let pos = 0;
  let f = 0;
  for (let i = 0; i < lines.length; i++) {
    const fold = r.folds[f];
    if (fold && i === fold.from - 1) {
      const nl = r.text.indexOf('\n', pos);
      pos = nl === -1 ? r.text.length : nl + 1;
      i = fold.to - 1;
      f++;
      continue;
    }
    const end = pos + lines[i].length;
    if (spans.some(([s, e]) => pos >= s && end <= e)) out[i] = 1;
    const nl = r.text.indexOf('\n', end);
    pos = nl === -1 ? r.text.length : nl + 1;
  }
  return out;
}
