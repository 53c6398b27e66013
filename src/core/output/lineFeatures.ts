/**
 * The features of an output line for the learned judgement of which plain lines an agent will use
 * (lineModel.ts): what the rules say of it and of the lines around it, how much of the question
 * (the goal hint, the task) it names, word by word and by the parts of its identifiers, how
 * particular its words are in this output, what it prints (numbers, values, warnings, a listed
 * entry), where it sits, and what kind of output and command it is in.
 */
import { COMMAND_PATTERNS, withoutCd } from './commands.js';
import { indentOf, isBlank, shapeOf, termsOf } from './lines.js';
import { RARE_IN_OUTPUT } from './relevance.js';
import type { ShapeKind } from './shapes/index.js';
import type { LineRole } from './types.js';

export const LINE_FEATURES = [
  'role-signal',
  'role-routine',
  'relevant',
  'query-terms',
  'task-terms',
  'query-parts',
  'task-parts',
  'entry-stem-in-question',
  'question-stems',
  'rare-terms',
  'unique-terms',
  'new-terms',
  'new-numbers',
  'new-compound-terms',
  'command-terms',
  'numbers',
  'value',
  'warning',
  'code-like',
  'decoration',
  'log-length',
  'blank',
  'indent',
  'first-lines',
  'last-lines',
  'relative-position',
  'log-from-end',
  'log-output-lines',
  'log-alike-run',
  'log-alike-in-output',
  'path-like',
  'frame',
  'log-signal-above',
  'log-signal-below',
  'log-relevant-near',
  'neighbour-relevant',
  'prev-blank',
  'next-deeper',
  'signal-share',
  'log-relevant-lines',
  'kind',
  'command-family',
] as const;

export interface LineFeatureInput {
  lines: readonly string[];
  roles: readonly LineRole[];
  relevant: Uint8Array;
  query: string;
  task: string;
  command: string;
  kind: ShapeKind;
  /** Per line: 1 when its features are wanted (the rest stay 0, for speed); all lines when absent. */
  rows?: Uint8Array;
}

const SHAPE_KINDS: readonly string[] = ['test', 'listing', 'script', 'build', 'vcs', 'package'];
/** The command families a judgement may tell apart, in the order of their codes (the 'command-family' feature). */
const COMMAND_FAMILIES: readonly ((command: string) => boolean)[] = [
  (c) => COMMAND_PATTERNS.test.test(c),
  (c) => COMMAND_PATTERNS.diff.test(c),
  (c) => COMMAND_PATTERNS.listing.test(c),
  (c) => COMMAND_PATTERNS.search.test(c) || COMMAND_PATTERNS.searchPipe.test(c),
  (c) => COMMAND_PATTERNS.read.test(c),
  (c) => COMMAND_PATTERNS.script.test(c),
];

/** How many command families commandFamily() tells apart (the last: anything else). */
export const COMMAND_FAMILY_COUNT = COMMAND_FAMILIES.length + 1;

/** The family of a command (an index into COMMAND_FAMILIES, or its length for anything else). */
export function commandFamily(command: string): number {
  const c = withoutCd(command);
  const k = COMMAND_FAMILIES.findIndex((is) => is(c));
  return k < 0 ? COMMAND_FAMILIES.length : k;
}

const IDENT_RE = /[A-Za-z_][A-Za-z0-9_]*/g;

/** The parts of the identifiers a text names (`get_fooBar.baz` -> get, foo, bar, baz), lower-cased, 3+ letters. */
export function identifierParts(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENT_RE)) {
    const id = m[0];
    if (!/[_A-Z]/.test(id)) {
      if (id.length >= 3) out.push(id);
      continue;
    }
    for (const p of id.split(/_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) if (p.length >= 3) out.push(p.toLowerCase());
  }
  return out;
}

/** The stem of the entry a line lists when it is one path (`./tests/test_utils.py` -> test_utils): its last component without an extension. */
function entryStem(line: string): string | undefined {
  const word = line.replace(/^[\s|`-]+/, '').trimEnd();
  if (/\s/.test(word)) return undefined;
  const name = word.replace(/\/$/, '').split('/').pop() ?? '';
  return /^([A-Za-z_][\w-]*)(?:\.\w+)?$/.exec(name)?.[1];
}
const NUMBER_RE = /\b\d+(?:\.\d+)?\b/g;
const VALUE_RE = /[:=]\s*\S|\S\s*[:=]/;
const WARNING_RE = /warn|deprecat|notice/i;
const CODE_RE = /^\s*(def|class|return|if|elif|else|for|while|import|from|try|except|with|raise|assert|print)\b|[{};:]\s*$|^\s*[@#]/;
const DECORATION_RE = /^[\s=\-_*#~+.|<>]+$/;
const PATH_RE = /[\w.-]+\/[\w./-]+/;
const FRAME_RE = /^\s+File "|^\s+at /;

/** Words sharing their first letters share a stem ("aggregate" and `aggregation`). */
const STEM = 5;

/** Row-major features: LINE_FEATURES.length values per line. */
export function lineFeatures(o: LineFeatureInput): Float64Array {
  const F = LINE_FEATURES.length;
  const n = o.lines.length;
  const out = new Float64Array(n * F);
  const queryTerms = new Set(termsOf(o.query));
  const taskTerms = new Set(termsOf(o.task));
  const commandTerms = new Set(termsOf(o.command));
  const queryParts = new Set(identifierParts(o.query));
  const taskParts = new Set(identifierParts(o.task));
  const questionStems = new Set([...queryParts, ...taskParts].filter((p) => p.length >= STEM).map((p) => p.slice(0, STEM)));
  const lineTerms = o.lines.map((l) => new Set(termsOf(l)));
  const holders = new Map<string, number>();
  for (const ts of lineTerms) for (const t of ts) holders.set(t, (holders.get(t) ?? 0) + 1);
  const shapes = o.lines.map(shapeOf);
  const shapeCount = new Map<string, number>();
  for (const s of shapes) shapeCount.set(s, (shapeCount.get(s) ?? 0) + 1);
  const alike = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && shapes[j] === shapes[i]) j++;
    for (let k = i; k < j; k++) alike[k] = j - i;
    i = j;
  }
  const signalAbove = distances(n, (i) => o.roles[i] === 'signal', 1);
  const signalBelow = distances(n, (i) => o.roles[i] === 'signal', -1);
  const relAbove = distances(n, (i) => o.relevant[i] === 1, 1);
  const relBelow = distances(n, (i) => o.relevant[i] === 1, -1);
  let signals = 0;
  let relevantCount = 0;
  for (let i = 0; i < n; i++) {
    if (o.roles[i] === 'signal') signals++;
    if (o.relevant[i]) relevantCount++;
  }
  const kind = SHAPE_KINDS.indexOf(o.kind);
  const family = commandFamily(o.command);
  for (let i = 0; i < n; i++) {
    if (o.rows && !o.rows[i]) continue;
    const l = o.lines[i];
    let q = 0;
    let t = 0;
    let rare = 0;
    let unique = 0;
    let fresh = 0;
    let inCommand = 0;
    let freshNumbers = 0;
    let freshCompound = 0;
    for (const term of lineTerms[i]) {
      if (queryTerms.has(term)) q++;
      if (taskTerms.has(term)) t++;
      const h = holders.get(term) ?? 0;
      if (h <= RARE_IN_OUTPUT) rare++;
      if (h === 1) unique++;
      if (commandTerms.has(term)) inCommand++;
      else if (h <= RARE_IN_OUTPUT) {
        fresh++;
        if (/^\d+$/.test(term)) freshNumbers++;
        else if (term.includes('_')) freshCompound++;
      }
    }
    let qp = 0;
    let tp = 0;
    let stems = 0;
    const parts = new Set(identifierParts(l));
    for (const p of parts) {
      if (queryParts.has(p)) qp++;
      if (taskParts.has(p)) tp++;
      if (p.length >= STEM && questionStems.has(p.slice(0, STEM))) stems++;
    }
    const entry = entryStem(l);
    const entryNamed = entry ? identifierParts(entry).some((p) => taskParts.has(p) || queryParts.has(p)) : false;
    const numbers = l.match(NUMBER_RE)?.length ?? 0;
    const v = [
      o.roles[i] === 'signal' ? 1 : 0,
      o.roles[i] === 'routine' ? 1 : 0,
      o.relevant[i],
      Math.min(q, 4),
      Math.min(t, 4),
      Math.min(qp, 6),
      Math.min(tp, 6),
      entryNamed ? 1 : 0,
      Math.min(stems, 6),
      Math.min(rare, 8),
      Math.min(unique, 8),
      Math.min(fresh, 8),
      Math.min(freshNumbers, 4),
      Math.min(freshCompound, 4),
      Math.min(inCommand, 4),
      Math.min(numbers, 8),
      VALUE_RE.test(l) ? 1 : 0,
      WARNING_RE.test(l) ? 1 : 0,
      CODE_RE.test(l) ? 1 : 0,
      DECORATION_RE.test(l) && !isBlank(l) ? 1 : 0,
      Math.log1p(l.length),
      isBlank(l) ? 1 : 0,
      Math.min(indentOf(l), 16),
      i < 3 ? 1 : 0,
      i >= n - 3 ? 1 : 0,
      n > 1 ? i / (n - 1) : 0,
      Math.log1p(n - 1 - i),
      Math.log1p(n),
      Math.log1p(alike[i]),
      Math.log1p(shapeCount.get(shapes[i]) ?? 1),
      PATH_RE.test(l) ? 1 : 0,
      FRAME_RE.test(l) ? 1 : 0,
      Math.log1p(signalAbove[i]),
      Math.log1p(signalBelow[i]),
      Math.log1p(Math.min(relAbove[i], relBelow[i])),
      (i > 0 && o.relevant[i - 1]) || (i + 1 < n && o.relevant[i + 1]) ? 1 : 0,
      i > 0 && isBlank(o.lines[i - 1]) ? 1 : 0,
      i + 1 < n && !isBlank(o.lines[i + 1]) && indentOf(o.lines[i + 1]) > indentOf(l) ? 1 : 0,
      n > 0 ? signals / n : 0,
      Math.log1p(relevantCount),
      kind,
      family,
    ];
    out.set(v, i * F);
  }
  return out;
}

/** Per line: how many lines back (dir 1) or ahead (dir -1) the nearest line that `is` lies (n + 1 when none). */
function distances(n: number, is: (i: number) => boolean, dir: 1 | -1): Float64Array {
  const d = new Float64Array(n);
  let last = -1;
  for (let k = 0; k < n; k++) {
    const i = dir === 1 ? k : n - 1 - k;
    if (is(i)) last = k;
    d[i] = last < 0 ? n + 1 : k - last;
  }
  return d;
}
