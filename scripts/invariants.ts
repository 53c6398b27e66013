/**
 * Property check of prune() / pruneToolOutput() on real inputs, every mode and input shape:
 *
 *   npx tsx scripts/invariants.ts --cases 2000 --seed 1 [--out FILE] [--only shape|mode] [--verbose]
 *
 * Draws real files (polyglot-dev, swebench-dev, goalhint-dev from ../shared/bench, the repository's
 * examples and golden inputs: 12 languages) and real agent observations with their commands
 * (trajectories-dev), real and random queries, every mode (default, threshold, relativeThreshold,
 * ratio 2..16, tokens, maxChars, fitChars), input shapes (raw, raw window, `cat -n`, `nl -ba`
 * window, `grep -n`, `==>` multi-file, tool outputs with their command) and edge cases (CRLF,
 * tabs, no final newline, one huge line, unicode, blank lines only, BOM), plus sessions of calls
 * (a read, the same read again, the file edited, an overlapping window, a command run twice).
 * Each answer is checked mechanically, independently of skim's own ingest: kept lines verbatim and
 * in order, one marker per omitted run naming its file line numbers, kept/omitted/keepMask/files
 * agree with the text, enclosing headers of kept lines kept, parse kept when the input parsed,
 * budgets held, same answer twice, no throw, session folds only of lines really shown unchanged.
 * Prints one line per violation and a summary; `digest` is a hash of every answer (run it twice
 * in fresh processes with the same seed: the digests must agree). Seeded: same flags, same cases.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAllRecords } from '../src/bench/cases.js';
import { SkimError } from '../src/core/errors.js';
import { ingest, splitLines } from '../src/core/ingest/ingest.js';
import { MARKER_RE, SEEN_VERB } from '../src/core/layout/layout.js';
import { fitBudget, type OutputLimit, parseOutputLimit } from '../src/core/outputLimit.js';
import { createPruner } from '../src/core/prune.js';
import { pruneToolOutput } from '../src/core/pruneToolOutput.js';
import { SessionMemory } from '../src/core/session/memory.js';
import { analyse } from '../src/core/syntax/analyse.js';
import { checkSyntax, detectLanguage } from '../src/core/syntax/index.js';
import { countTokens } from '../src/core/tokens/count.js';
import type { PruneRequest, PruneResult } from '../src/core/types.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const SHARED = resolve(ROOT, '..', 'shared', 'bench');

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}
const CASES = Number(arg('cases', '500'));
const SEED = Number(arg('seed', '1'));
const ONLY = arg('only', '');
const VERBOSE = process.argv.includes('--verbose');
/** Run only this case (each case draws from its own seed: `--case K` repeats case K of a run). */
const ONE_CASE = arg('case', '');

// ---------------------------------------------------------------------------------------------
// seeded randomness (mulberry32)

let state = SEED >>> 0;
function rand(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

// ---------------------------------------------------------------------------------------------
// real inputs

interface SourceFile {
  code: string;
  path: string;
  query: string;
}
interface Observation {
  text: string;
  command: string;
  query: string;
  task: string;
}

async function loadFiles(): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const r of await readAllRecords<{ code: string; path: string; query: string }>(join(SHARED, 'polyglot-dev.jsonl.gz')))
    out.push({ code: r.code, path: r.path, query: r.query });
  for (const name of ['swebench-dev', 'goalhint-dev'])
    for (const r of await readAllRecords<{ query: string; files: { path: string; content: string }[] }>(join(SHARED, `${name}.jsonl.gz`)))
      for (const f of r.files) out.push({ code: f.content, path: f.path, query: r.query });
  for (const f of ['logging.py', 'playground-http_session.py', 'playground-lru_cache.go', 'playground-rate_limiter.ts'])
    out.push({ code: readFileSync(join(ROOT, 'examples', f), 'utf8'), path: f, query: 'where is the state reset?' });
  const golden = join(ROOT, 'test/fixtures/golden/inputs');
  for (const f of ['c_sharp.cs', 'cpp.cc', 'go.go', 'java.java', 'javascript.js', 'kotlin.kt', 'python.py', 'ruby.rb', 'rust.rs', 'typescript.ts'])
    out.push({ code: readFileSync(join(golden, f), 'utf8'), path: f, query: 'how are errors handled?' });
  // a few very long files cost minutes per case on this machine: cap at 120 KB
  return out.filter((f) => f.code.length <= 120_000);
}

/** One agent run of trajectories-dev: its messages and the steps that ran a command. */
interface Run {
  task: string;
  messages: { content: string }[];
  steps: { message: number; command: string; thought: string; truncated: boolean }[];
}

const OUTPUT_RE = /<output>\n([\s\S]*)<\/output>\s*$/;
async function loadObservations(): Promise<Observation[]> {
  const out: Observation[] = [];
  for (const run of await readAllRecords<Run>(join(SHARED, 'trajectories-dev.jsonl.gz'))) {
    for (const s of run.steps) {
      if (s.truncated) continue;
      const m = OUTPUT_RE.exec(run.messages[s.message].content);
      if (!m || m[1].length > 60_000) continue;
      out.push({ text: m[1], command: s.command, query: s.thought, task: run.task.slice(0, 2000) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// input shapes: the text, and per input line the file and the file line number it shows

interface Shaped {
  text: string;
  /** Per input line: its file line number (null for structural lines). */
  nos: (number | null)[];
  /** Per input line: its file (index into paths; -1 structural). */
  file: number[];
  paths: string[];
  req: Partial<PruneRequest>;
  /** The file(s) code, for the header and parse checks (raw input only). */
  rawCode?: string;
  command?: string;
}

function linesOf(code: string): string[] {
  return splitLines(code).lines.map((l) => l.text);
}

function raw(f: SourceFile): Shaped {
  const n = linesOf(f.code).length;
  return { text: f.code, nos: range(1, n), file: Array(n).fill(0), paths: [f.path], req: { path: f.path }, rawCode: f.code };
}

function range(a: number, b: number): number[] {
  return Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
}

/** A window [a, b] of the file, 1-based. */
function windowOf(code: string): [number, number] {
  const n = linesOf(code).length;
  const a = int(1, Math.max(1, n - 5));
  return [a, Math.min(n, a + int(20, 400))];
}

function numbered(f: SourceFile, window: boolean): Shaped {
  const { lines, eol } = splitLines(f.code);
  const [a, b] = window ? windowOf(f.code) : [1, lines.length];
  // `cat -n` / `nl -ba`, or the `     1→code` of an agent's read tool
  const sep = rand() < 0.2 ? '→' : '\t';
  const body = lines.slice(a - 1, b).map((l, i) => `${String(a + i).padStart(6)}${sep}${l.text}${eol}`);
  return { text: body.join(''), nos: range(a, b), file: Array(b - a + 1).fill(0), paths: [f.path], req: { path: f.path } };
}

/** `nl F` (without -ba): blank lines unnumbered (the width and separator as spaces), the others numbered 1, 2, ... as printed. */
function nlPlain(f: SourceFile): Shaped {
  const { lines, eol } = splitLines(f.code);
  let no = 0;
  const nos: (number | null)[] = [];
  const body = lines.map((l) => {
    if (l.text === '') {
      nos.push(null);
      return `       ${eol}`;
    }
    nos.push(++no);
    return `${String(no).padStart(6)}\t${l.text}${eol}`;
  });
  return { text: body.join(''), nos, file: Array(lines.length).fill(0), paths: [f.path], req: { path: f.path } };
}

function rawWindow(f: SourceFile): Shaped {
  const { lines } = splitLines(f.code);
  const [a, b] = windowOf(f.code);
  const text = lines
    .slice(a - 1, b)
    .map((l) => l.text + (l.eol || '\n'))
    .join('');
  return { text, nos: range(a, b), file: Array(b - a + 1).fill(0), paths: [f.path], req: { path: f.path, firstLine: a } };
}

const IDENT_RE = /[A-Za-z_][A-Za-z0-9_]{3,}/g;

/** `grep -n [-C k] PAT FILE...` output over one or more files. */
function grep(files: SourceFile[]): Shaped {
  const ctx = int(0, 3);
  const withPath = files.length > 1 || rand() < 0.7;
  const words = [...(files[0].code.match(IDENT_RE) ?? ['def'])];
  const pat = pick(words);
  const out: string[] = [];
  const nos: (number | null)[] = [];
  const file: number[] = [];
  files.forEach((f, fi) => {
    const ls = linesOf(f.code);
    const show = new Uint8Array(ls.length);
    const match = new Uint8Array(ls.length);
    ls.forEach((l, i) => {
      if (l.includes(pat)) {
        match[i] = 1;
        for (let k = Math.max(0, i - ctx); k <= Math.min(ls.length - 1, i + ctx); k++) show[k] = 1;
      }
    });
    let last = -2;
    for (let i = 0; i < ls.length; i++) {
      if (!show[i]) continue;
      if (ctx > 0 && last >= -1 && last !== i - 1 && out.length > 0) {
        out.push('--');
        nos.push(null);
        file.push(-1);
      }
      const sep = match[i] ? ':' : '-';
      out.push(`${withPath ? f.path + sep : ''}${i + 1}${sep}${ls[i]}`);
      nos.push(i + 1);
      file.push(fi);
      last = i;
    }
  });
  const text = out.length ? `${out.join('\n')}\n` : '';
  return {
    text,
    nos,
    file,
    paths: files.map((f) => f.path),
    req: {},
    command: `grep -n${ctx ? ` -C ${ctx}` : ''} ${pat} ${files.map((f) => f.path).join(' ')}`,
  };
}

/** `head -n N a b` / `tail` style `==> path <==` output. */
function multi(files: SourceFile[]): Shaped {
  const out: string[] = [];
  const nos: (number | null)[] = [];
  const file: number[] = [];
  files.forEach((f, fi) => {
    if (fi > 0) {
      out.push('');
      nos.push(null);
      file.push(-1);
    }
    out.push(`==> ${f.path} <==`);
    nos.push(null);
    file.push(-1);
    const ls = linesOf(f.code).slice(0, int(30, 600));
    ls.forEach((l, i) => {
      out.push(l);
      nos.push(i + 1);
      file.push(fi);
    });
  });
  return { text: `${out.join('\n')}\n`, nos, file, paths: files.map((f) => f.path), req: {} };
}

// ---------------------------------------------------------------------------------------------
// edge cases, applied to a source file before it is shaped

const EDGES = [
  'none',
  'none',
  'none',
  'none',
  'crlf',
  'tabs',
  'no-eol',
  'huge-line',
  'unicode',
  'blank-only',
  'bom',
  'small',
  'mixed-eol',
  'one-line',
  'binary',
  'empty',
] as const;
type Edge = (typeof EDGES)[number];

function edged(f: SourceFile, edge: Edge): SourceFile {
  const code = f.code;
  switch (edge) {
    case 'crlf':
      return { ...f, code: code.replace(/\r?\n/g, '\r\n') };
    case 'tabs':
      return { ...f, code: code.replace(/^( {4})+/gm, (m) => '\t'.repeat(m.length / 4)) };
    case 'no-eol':
      return { ...f, code: code.replace(/\s+$/, '') };
    case 'huge-line': {
      const ls = code.split('\n');
      const at = int(0, ls.length);
      ls.splice(at, 0, `x = "${'abc def '.repeat(int(2000, 20000))}"`);
      return { ...f, code: ls.join('\n') };
    }
    case 'unicode': {
      const ls = code.split('\n');
      for (let k = 0; k < 5; k++) {
        const at = int(0, ls.length - 1);
        ls[at] = `${ls[at]} ${pick(['# ünïcödé ✓', '// 日本語のコメント', '/* 🚀🔥 */', '# \u00a0nbsp', '// ＦＵＬＬ'])}`;
      }
      return { ...f, code: ls.join('\n') };
    }
    case 'blank-only':
      return { ...f, code: '\n'.repeat(int(1, 300)) };
    case 'bom':
      return { ...f, code: `\uFEFF${code}` };
    case 'empty':
      return { ...f, code: pick(['', '\n', '\r\n', ' ', '\uFEFF']) };
    case 'mixed-eol':
      return { ...f, code: code.replace(/\r?\n/g, () => (rand() < 0.3 ? '\r\n' : '\n')) };
    case 'one-line':
      return { ...f, code: code.replace(/\r?\n/g, ' ').slice(0, int(100, 200_000)) };
    case 'binary': {
      const ls = code.split('\n');
      ls.splice(int(0, ls.length), 0, '\u0000\u0001\u0002\uFFFD\u0000 PNG');
      return { ...f, code: ls.join('\n') };
    }
    case 'small':
      return { ...f, code: code.split('\n').slice(0, int(1, 12)).join('\n') };
    default:
      return f;
  }
}

// ---------------------------------------------------------------------------------------------
// modes

type Mode = { name: string; req: Partial<PruneRequest> };
function drawMode(): Mode {
  switch (int(0, 8)) {
    case 0:
    case 1:
      return { name: 'default', req: {} };
    case 2:
      return { name: 'threshold', req: { threshold: pick([0, 0.0005, 0.002, 0.01, 0.05, 0.2, 0.5, 0.9, 1]) } };
    case 3:
      return { name: 'relativeThreshold', req: { relativeThreshold: Math.round(rand() * 100) / 100 } };
    case 4:
      return { name: 'ratio', req: { ratio: int(2, 16) } };
    case 5:
      return { name: 'tokens', req: { tokens: pick([0, 1, 5, 20, int(20, 500), int(500, 5000)]) } };
    case 6:
      return { name: 'maxChars', req: { maxChars: pick([0, 10, 50, int(50, 2000), int(2000, 40000)]) } };
    default:
      return rand() < 0.5
        ? { name: 'fitChars', req: { fitChars: pick([int(500, 2000), int(2000, 20000)]) } }
        : { name: 'outputLimit', req: { outputLimit: pick(['mini-swe-agent', 'head:4000', 'head+tail:3000', '2000']) } };
  }
}

function drawQuery(f: SourceFile, files: SourceFile[]): string {
  const r = rand();
  if (r < 0.5) return f.query;
  if (r < 0.65) return pick(files).query;
  if (r < 0.85) {
    const ws = f.code.match(IDENT_RE) ?? [];
    return `where is ${ws.length ? pick(ws) : 'it'} ${ws.length ? pick(ws) : ''} used?`;
  }
  if (r < 0.92) return '';
  return pick(['   ', '日本語 クエリ', '<|endoftext|>', 'x'.repeat(5000), 'why?? ()[]{}']);
}

// ---------------------------------------------------------------------------------------------
// checks

const violations = new Map<string, { count: number; examples: string[] }>();
const stats = {
  cases: 0,
  calls: 0,
  results: 0,
  pruned: 0,
  pinsOverBudget: 0,
  oneLineMarkers: 0,
  markers: 0,
  seenMarkers: 0,
  headerChecks: 0,
  parseChecks: 0,
  outputs: 0,
  folds: 0,
  throws: 0,
};
const digest = createHash('sha256');

/** The request being checked: with INV_DUMP=DIR each violation writes it there as JSON, to replay by hand. */
let currentReq: PruneRequest | null = null;
let dumped = 0;

function fail(kind: string, where: string, detail: string): void {
  if (process.env.INV_DUMP && currentReq && dumped++ < 50)
    writeFileSync(`${process.env.INV_DUMP}/violation-${dumped}.json`, JSON.stringify({ kind, where, detail, req: { ...currentReq, session: undefined } }));
  const v = violations.get(kind) ?? { count: 0, examples: [] };
  v.count++;
  if (v.examples.length < 5) v.examples.push(`${where}: ${detail}`);
  violations.set(kind, v);
  if (VERBOSE) console.log(`VIOLATION ${kind} ${where}: ${detail}`);
}

interface Shown {
  /** path -> line number -> the text the agent was last shown there in this session. */
  lines: Map<string, Map<number, string>>;
}

/** Input lines of the last answer checked that a marker folded as seen and moved ("then at"): the agent was told where they are now. */
let lastMoved: number[] = [];
/** Per input line the last answer kept: the character span of its output line (offsets in the answer's text). */
let lastSpans = new Map<number, [number, number]>();

/**
 * Walks the answer against the input: every output line is the next input line verbatim or a
 * marker standing for the next N input lines (N from the marker itself), and the marker's range
 * is the file line numbers of those lines. Returns the keep mask read from the text.
 */
function checkText(where: string, sh: Shaped, r: PruneResult, shown: Shown | null): Uint8Array | null {
  const inLines = splitLines(sh.text).lines;
  const inFull = inLines.map((l) => l.text);
  const outLines = splitLines(r.text).lines;
  const out = outLines.map((l) => l.text);
  const mask = new Uint8Array(inLines.length);
  lastMoved = [];
  lastSpans = new Map();
  let p = 0;
  let at = 0;
  for (let o = 0; o < out.length; o++) {
    const line = out[o];
    const start = at;
    at += line.length + outLines[o].eol.length;
    if (p < inFull.length && line === inFull[p]) {
      lastSpans.set(p, [start, start + line.length]);
      mask[p++] = 1;
      continue;
    }
    const m = MARKER_RE.exec(line);
    if (!m) {
      fail(
        'text: output line not the next input line',
        where,
        `out ${JSON.stringify(line.slice(0, 120))} vs in[${p + 1}] ${JSON.stringify((inFull[p] ?? '<end>').slice(0, 120))}`,
      );
      return null;
    }
    stats.markers++;
    const count = Number(m[1]);
    // "a one-line gap is kept rather than marked" (README): counted, not failed (session memory
    // splits runs where "seen before" changes, a placeholder's block ends a run)
    if (count === 1 && !line.includes(SEEN_VERB) && !/^\s*(?:\d+[\t→])?\s*\.\.\.\s+#/.test(line)) {
      stats.oneLineMarkers++;
      if (process.env.INV_STRICT) fail('marker: stands for one line', where, `${line.trim().slice(0, 100)} hides ${JSON.stringify(inFull[p].slice(0, 60))}`);
    }
    const a = Number(m[3]);
    const b = Number(m[4]);
    if (count < 1 || p + count > inFull.length) {
      fail('marker: count past the input', where, `${line.slice(0, 120)} at input line ${p + 1} of ${inFull.length}`);
      return null;
    }
    const run = range(p, p + count - 1);
    const files = new Set(run.map((i) => sh.file[i]).filter((x) => x >= 0));
    const nos = run.map((i) => sh.nos[i]).filter((x): x is number => x !== null);
    if (files.size > 1 && !(count === inFull.length && a === 1 && b === count)) fail('marker: run spans files', where, line.slice(0, 120));
    // a budget too small for the files' markers: one marker for the whole input, by input position (collapseAll)
    const wholeInput = count === inFull.length && a === 1 && b === count && r.diagnostics.some((d) => d.code === 'budget-too-small');
    const grepShape = sh.command?.startsWith('grep') === true;
    if (wholeInput) {
      // named by input position
    } else if (nos.length === 0) {
      // (an input with no numbered line at all is a raw file of blank lines: named by position)
      if (sh.nos.some((x) => x !== null))
        fail('marker: run of structural lines only', where, `${line.slice(0, 120)} hides ${JSON.stringify(run.map((i) => inFull[i]).slice(0, 3))}`);
    } else {
      if (nos[0] !== a || nos[nos.length - 1] !== b)
        fail(
          'marker: range names the wrong lines',
          where,
          `${line.trim().slice(0, 120)}: hides file lines ${nos[0]}-${nos[nos.length - 1]} (input ${p + 1}-${p + count})`,
        );
      // a grep marker names the span of the lines it hides; those between were never in the input (docs/cli.md)
      if (!grepShape)
        for (let k = 1; k < nos.length; k++)
          if (nos[k] !== nos[k - 1] + 1) {
            fail('marker: run is not consecutive file lines', where, `${line.trim().slice(0, 120)}: ${nos[k - 1]} then ${nos[k]}`);
            break;
          }
    }
    if (m[2] !== undefined && files.size === 1 && sh.paths[[...files][0]] !== m[2])
      fail('marker: wrong path', where, `${line.slice(0, 120)} vs ${sh.paths[[...files][0]]}`);
    if (line.includes(SEEN_VERB)) {
      stats.seenMarkers++;
      if (!shown) fail('session: seen marker without a session', where, line.slice(0, 120));
      else {
        const moved = /then at (\d+)-(\d+)/.exec(line);
        const shift = moved ? Number(moved[1]) - a : 0;
        if (moved) lastMoved.push(...run);
        for (const i of run) {
          const no = sh.nos[i];
          const path = sh.paths[sh.file[i]] ?? '';
          const text = textOf(sh, inFull[i]);
          if (no === null) continue;
          if (shown.lines.get(path)?.get(no + shift) !== text) {
            fail('session: folded as seen but not shown so', where, `${path}:${no} (shown at ${no + shift}?) ${JSON.stringify(text.slice(0, 80))}`);
            break;
          }
        }
      }
    }
    p += count;
  }
  if (p !== inFull.length) {
    fail('text: output ends before the input', where, `at input line ${p + 1} of ${inFull.length}`);
    return null;
  }
  return mask;
}

/** The code part of an input line of this shape (numbered/grep prefixes off). */
function textOf(sh: Shaped, line: string): string {
  if (sh.command?.startsWith('grep')) return line.replace(/^(?:.*?[:-])?\d+[:-]/, '');
  const m = /^\s*\d+[\t→]/.exec(line);
  return m && sh.req.firstLine === undefined && !sh.rawCode ? line.slice(m[0].length) : line;
}

function ranges(mask: Uint8Array, v: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== v) continue;
    if (out.length && out[out.length - 1][1] === i) out[out.length - 1][1] = i + 1;
    else out.push([i + 1, i + 1]);
  }
  return out;
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

function checkAccounting(where: string, sh: Shaped, r: PruneResult, mask: Uint8Array): void {
  if (!same([...r.keepMask], [...mask]))
    fail('accounting: keepMask disagrees with the text', where, `${ranges(r.keepMask, 1).length} vs ${ranges(mask, 1).length} kept ranges`);
  // kept/omitted may split a run where the answer's markers split it: compare the lines covered
  const cover = (rs: [number, number][]) => {
    const m = new Uint8Array(mask.length);
    for (const [a, b] of rs) for (let i = a; i <= b; i++) m[i - 1]++;
    return m;
  };
  const k = cover(r.kept);
  const o = cover(r.omitted);
  for (let i = 0; i < mask.length; i++)
    if (k[i] !== mask[i] || o[i] !== 1 - mask[i]) {
      fail(
        'accounting: kept/omitted disagree with the text',
        where,
        `input line ${i + 1}: text ${mask[i] ? 'kept' : 'omitted'}, kept ${k[i]}, omitted ${o[i]}`,
      );
      break;
    }
  if (r.files) {
    for (let f = 0; f < sh.paths.length; f++) {
      const want: { kept: Set<number>; omitted: Set<number> } = { kept: new Set(), omitted: new Set() };
      sh.nos.forEach((no, i) => {
        if (no !== null && sh.file[i] === f) want[mask[i] ? 'kept' : 'omitted'].add(no);
      });
      if (want.kept.size + want.omitted.size === 0) continue;
      const fr = r.files.find((x) => x.path === sh.paths[f]) ?? (r.files.length === 1 && sh.paths.length === 1 ? r.files[0] : undefined);
      if (!fr) {
        fail('accounting: files lacks a file', where, `${sh.paths[f]} not in ${JSON.stringify(r.files.map((x) => x.path))}`);
        continue;
      }
      const got = { kept: new Set<number>(), omitted: new Set<number>() };
      for (const kind of ['kept', 'omitted'] as const) for (const [a, b] of fr[kind]) for (let i = a; i <= b; i++) got[kind].add(i);
      for (const kind of ['kept', 'omitted'] as const)
        if (
          !same(
            [...want[kind]].sort((x, y) => x - y),
            [...got[kind]].sort((x, y) => x - y),
          )
        )
          fail('accounting: files disagree with the text', where, `${sh.paths[f]} ${kind}: ${want[kind].size} lines in the text, ${got[kind].size} in files`);
    }
  }
}

function checkBudget(where: string, req: PruneRequest, r: PruneResult): void {
  const tokensOut = countTokens(r.text);
  if (tokensOut !== r.tokensOut && !r.tokensEstimated)
    fail("accounting: tokensOut is not the answer's tokens", where, `${r.tokensOut} reported, ${tokensOut} counted`);
  const lone = r.diagnostics.some((d) => d.code === 'budget-too-small' && /even for a marker/.test(d.message));
  const whole = r.text === req.code;
  const over = (what: string, got: number, limit: number) => {
    if (got <= limit || lone) return;
    // binary input and input over the size ceiling come back whole (docs/cli.md)
    if (whole && r.diagnostics.some((d) => d.code === 'binary-input' || d.code === 'over-ceiling')) return;
    fail(`budget: ${what} exceeded`, where, `${got} > ${limit}${whole ? ' (input whole)' : ''}; ${r.diagnostics.map((d) => d.code).join(',')}`);
  };
  if (req.ratio !== undefined) over('ratio', tokensOut, Math.floor(r.tokensIn / req.ratio));
  if (req.tokens !== undefined) over('tokens', tokensOut, req.tokens);
  if (req.maxChars !== undefined) over('maxChars', r.text.length, req.maxChars);
  const fit = fitBudget(req);
  if (fit && r.diagnostics.some((d) => d.code === 'fitted-to-limit'))
    over(req.fitChars !== undefined ? 'fitChars' : 'outputLimit fit', r.text.length, fit.chars);
}

/** Every scope enclosing a kept line has its first line kept (raw input of one file). */
async function checkHeaders(where: string, sh: Shaped, r: PruneResult): Promise<void> {
  if (sh.command?.startsWith('grep') || r.kept.length === 0 || r.omitted.length === 0) return;
  const doc = ingest(sh.text, { path: sh.paths[0], detectLanguage, firstLine: sh.req.firstLine, language: r.language });
  if (doc.shape === 'grep') return;
  const analyses = await analyse(doc, sh.text, []);
  doc.segments.forEach((seg, si) => {
    const a = analyses[si];
    if (!a.syntax.hasGrammar || !a.syntax.parseOk || !seg.contiguous) return;
    stats.headerChecks++;
    for (let k = 0; k < seg.lines.length; k++) {
      const i = seg.lines[k];
      // a blank line belongs to no clause a reader could misplace
      if (!r.keepMask[i] || doc.lines[i].text.trim() === '') continue;
      for (const s of a.syntax.lines[k]?.scopes ?? []) {
        const sc = a.syntax.scopes[s];
        if (!r.keepMask[seg.lines[sc.start]]) {
          fail(
            `headers: enclosing ${sc.isDefinition ? 'definition' : 'block'} header omitted`,
            where,
            `input line ${i + 1} kept, its ${sc.kind} ${sc.name ?? ''} header at input line ${seg.lines[sc.start] + 1} omitted`,
          );
          return;
        }
      }
    }
  });
}

async function checkParse(where: string, sh: Shaped, r: PruneResult, lang: string): Promise<void> {
  if (!sh.rawCode || r.omitted.length === 0 || sh.rawCode.length > 200_000) return;
  const input = await checkSyntax(sh.rawCode, lang);
  if (!input.hasGrammar || !input.ok) return;
  stats.parseChecks++;
  const out = await checkSyntax(r.text, lang);
  if (!out.ok) fail(`parse: output does not parse (${lang})`, where, `${r.omitted.length} markers; ${r.diagnostics.map((d) => d.code).join(',')}`);
}

// ---------------------------------------------------------------------------------------------
// one call, checked

const pruner = createPruner();

/** The shipped scorer with a fault drawn per call: a throw, NaN, a short array, scores out of [0,1]. */
let fault: 'none' | 'throw' | 'nan' | 'short' | 'range' | 'empty' = 'none';
const faulty = createPruner({
  scorer: {
    name: 'faulty',
    get defaultThreshold() {
      return fault === 'nan' ? Number.NaN : 0.01;
    },
    score(input) {
      if (fault === 'throw') throw new Error('injected fault');
      const n = input.lines.length;
      const keep = new Float64Array(fault === 'short' ? Math.floor(n / 2) : fault === 'empty' ? 0 : n);
      for (let i = 0; i < keep.length; i++)
        keep[i] = fault === 'nan' && i % 3 === 0 ? Number.NaN : fault === 'range' ? (i % 5) - 2 : ((i * 2654435761) % 1000) / 1000;
      return { keep, docScore: fault === 'nan' ? Number.NaN : 0.5 };
    },
  },
});
let useFaulty = false;

async function call(where: string, req: PruneRequest): Promise<PruneResult | null> {
  stats.calls++;
  try {
    return await (useFaulty ? faulty : pruner).prune(req);
  } catch (e) {
    stats.throws++;
    if (e instanceof SkimError && e.code === 'EUSAGE') {
      if (VERBOSE) console.log(`usage error ${where}: ${(e as Error).message}`);
      return null;
    }
    fail('fail-open: prune() threw', where, String((e as Error)?.stack ?? e).slice(0, 300));
    return null;
  }
}

async function checkedPrune(where: string, sh: Shaped, req: PruneRequest, shown: Shown | null, opts: { twice?: boolean } = {}): Promise<PruneResult | null> {
  currentReq = req;
  const r = await call(where, req);
  if (!r) return null;
  stats.results++;
  if (r.omitted.length > 0) stats.pruned++;
  digest.update(r.text);
  const mask = checkText(where, sh, r, shown);
  if (mask) checkAccounting(where, sh, r, mask);
  checkBudget(where, req, r);
  // a pinned line is always kept, but for a budget that cannot afford it (with what it needs: its
  // header chain, the docstring around it): the budget is never exceeded (docs/cli.md)
  const budgetMode = req.ratio !== undefined || req.tokens !== undefined || req.maxChars !== undefined || r.threshold === undefined;
  if (req.pinLines && r.omitted.length > 0 && budgetMode) {
    for (const pin of req.pinLines) if (pin <= r.keepMask.length && !r.keepMask[pin - 1]) stats.pinsOverBudget++;
  } else if (req.pinLines && r.omitted.length > 0)
    for (const pin of req.pinLines)
      if (pin <= r.keepMask.length && !r.keepMask[pin - 1]) {
        fail(
          'pinned line omitted in threshold mode',
          where,
          `line ${pin} of ${r.keepMask.length} ${JSON.stringify(splitLines(req.code).lines[pin - 1].text.slice(0, 60))}; ${r.diagnostics.map((d) => d.code).join(',')}`,
        );
        break;
      }
  if (r.warnings.length !== r.diagnostics.length) fail('accounting: warnings and diagnostics differ', where, `${r.warnings.length} vs ${r.diagnostics.length}`);
  if (opts.twice) {
    const again = await call(`${where} (again)`, req);
    if (again && (again.text !== r.text || !same([...again.keepMask], [...r.keepMask])))
      fail('determinism: a second call differs', where, `${r.text.length} vs ${again.text.length} chars`);
  }
  if (!shown) {
    await checkHeaders(where, sh, r);
    await checkParse(where, sh, r, r.language);
  }
  return r;
}

function remember(shown: Shown, sh: Shaped, r: PruneResult, limit: OutputLimit | null): void {
  const inFull = splitLines(sh.text).lines.map((l) => l.text);
  // under a harness limit only what it lets through was shown (and no moved run is vouched for)
  const moved = new Set(limit ? [] : lastMoved);
  const spans: [number, number][] = !limit
    ? [[0, r.text.length]]
    : limit.cut === 'head'
      ? [[0, limit.chars]]
      : r.text.length < limit.chars
        ? [[0, r.text.length]]
        : [
            [0, Math.floor(limit.chars / 2)],
            [r.text.length - Math.floor(limit.chars / 2), r.text.length],
          ];
  const visible = (i: number) => {
    const sp = lastSpans.get(i);
    return sp !== undefined && spans.some(([a, b]) => sp[0] >= a && sp[1] <= b);
  };
  r.keepMask.forEach((k, i) => {
    const no = sh.nos[i];
    if ((!(k && visible(i)) && !moved.has(i)) || no === null || sh.file[i] < 0) return;
    const path = sh.paths[sh.file[i]];
    const m = shown.lines.get(path) ?? new Map<number, string>();
    m.set(no, textOf(sh, inFull[i]));
    shown.lines.set(path, m);
  });
}

// ---------------------------------------------------------------------------------------------
// cases

async function singleCase(k: number, files: SourceFile[], obs: Observation[]): Promise<void> {
  const f0 = pick(files);
  const edge = pick(EDGES);
  const f = edged(f0, edge);
  const shapeName =
    ONLY && ['raw', 'raw-window', 'cat-n', 'nl-window', 'grep', 'multi', 'tool-read', 'observation', 'nl'].includes(ONLY)
      ? ONLY
      : pick(['raw', 'raw', 'raw', 'raw-window', 'cat-n', 'nl-window', 'grep', 'grep', 'multi', 'tool-read', 'observation', 'nl']);
  const mode = drawMode();
  const query = drawQuery(f, files);
  const where = `#${k} ${shapeName}/${mode.name}${JSON.stringify(mode.req)}/${edge} ${f.path}`;
  if (shapeName === 'observation' || shapeName === 'tool-read') {
    const o = shapeName === 'observation' ? pick(obs) : toolRead(f);
    await checkToolOutput(where, o, query || o.query, rand() < 0.5 ? o.task : undefined);
    return;
  }
  const others = () =>
    Array.from({ length: int(1, 3) }, () => pick(files)).filter((x, i, xs) => xs.findIndex((y) => y.path === x.path) === i && x.path !== f.path);
  const sh =
    shapeName === 'raw'
      ? raw(f)
      : shapeName === 'raw-window'
        ? rawWindow(f)
        : shapeName === 'cat-n'
          ? numbered(f, false)
          : shapeName === 'nl-window'
            ? numbered(f, true)
            : shapeName === 'nl'
              ? nlPlain(f)
              : shapeName === 'grep'
                ? grep([f, ...(rand() < 0.4 ? others() : [])])
                : multi([f, ...others()]);
  const req: PruneRequest = {
    code: sh.text,
    query,
    ...sh.req,
    ...mode.req,
    ...(rand() < 0.2 ? { task: pick(files).query } : {}),
    ...(rand() < 0.3 ? { keepSmall: false } : {}),
  };
  // lines the caller pins (SWE-Pruner's always_keep_first_frags), a language forced on the input
  const n = splitLines(sh.text).lines.length;
  if (rand() < 0.1 && n > 0) req.pinLines = Array.from({ length: int(1, 5) }, () => int(1, n));
  if (rand() < 0.05) req.language = pick(['python', 'rust', 'go', 'typescript', 'c', 'ruby', 'kotlin', 'text']);
  // INV_NO_REPAIR=1: the repair stage off, to see the header and parse checks fail
  if (process.env.INV_NO_REPAIR) req.repair = false;
  useFaulty = rand() < 0.08;
  fault = useFaulty ? pick(['throw', 'nan', 'short', 'range', 'empty'] as const) : 'none';
  await checkedPrune(useFaulty ? `${where} [scorer fault: ${fault}]` : where, sh, req, null, { twice: rand() < 0.3 });
  useFaulty = false;
}

/** A read command of a real file and what it printed. */
function toolRead(f: SourceFile): Observation {
  const { lines, eol } = splitLines(f.code);
  const [a, b] = windowOf(f.code);
  const cmd = pick(['cat', 'cat-n', 'nl-sed', 'head']);
  if (cmd === 'cat') return { text: f.code, command: `cat ${f.path}`, query: f.query, task: '' };
  if (cmd === 'head') {
    const n = int(5, 300);
    return {
      text: lines
        .slice(0, n)
        .map((l) => l.text + (l.eol || eol))
        .join(''),
      command: `head -n ${n} ${f.path}`,
      query: f.query,
      task: '',
    };
  }
  const from = cmd === 'cat-n' ? 1 : a;
  const to = cmd === 'cat-n' ? lines.length : b;
  const text = lines
    .slice(from - 1, to)
    .map((l, i) => `${String(from + i).padStart(6)}\t${l.text}${eol}`)
    .join('');
  return { text, command: cmd === 'cat-n' ? `cat -n ${f.path}` : `nl -ba ${f.path} | sed -n '${a},${b}p'`, query: f.query, task: '' };
}

/** pruneToolOutput: a read is checked as a read (file lines from the command), an output by its own markers. */
async function checkToolOutput(
  where: string,
  o: Observation,
  query: string,
  task: string | undefined,
  session?: SessionMemory,
  prev?: string[],
): Promise<string[] | null> {
  stats.calls++;
  let res: Awaited<ReturnType<typeof pruneToolOutput>>;
  try {
    res = await pruneToolOutput({ text: o.text, command: o.command, query, task, session, outputLimit: rand() < 0.2 ? 'mini-swe-agent' : undefined });
  } catch (e) {
    stats.throws++;
    fail('fail-open: pruneToolOutput() threw', where, String((e as Error)?.stack ?? e).slice(0, 300));
    return null;
  }
  digest.update(res.result.text);
  if (res.via === 'read') {
    stats.results++;
    const r = res.result;
    // the command's own numbering decides the file lines: numbered input carries it, raw starts at firstLine
    const n = splitLines(o.text).lines.length;
    const numberedText = /^\s*\d+\t/.test(o.text);
    const first = res.read.firstLine ?? 1;
    const nos = numberedText ? splitLines(o.text).lines.map((l) => Number(/^\s*(\d+)\t/.exec(l.text)?.[1] ?? Number.NaN)) : range(first, first + n - 1);
    const sh: Shaped = { text: o.text, nos, file: Array(n).fill(0), paths: [res.read.path], req: { path: res.read.path } };
    const mask = checkText(where, sh, r, session ? { lines: new Map() } : null);
    if (mask) checkAccounting(where, sh, r, mask);
    return null;
  }
  stats.outputs++;
  const r = res.result;
  const lines = splitLines(o.text).lines.map((l) => l.text);
  const out = splitLines(r.text).lines.map((l) => l.text);
  const mask = new Uint8Array(lines.length);
  let p = 0;
  const foldAt = new Map(r.folds.map((f) => [f.from, f]));
  for (const line of out) {
    const fold = foldAt.get(p + 1);
    if (fold && line.startsWith('[skim: ')) {
      stats.folds++;
      const m = /omitted \((\d+)-(\d+)\)/.exec(line);
      if (!m || Number(m[1]) !== fold.from || Number(m[2]) !== fold.to)
        fail('output: marker range differs from its fold', where, `${line.slice(0, 120)} vs ${fold.from}-${fold.to}`);
      const n = /^\[skim: (\d+)/.exec(line);
      if (n && Number(n[1]) !== fold.to - fold.from + 1) fail('output: marker count differs from its range', where, line.slice(0, 120));
      if (fold.reason === 'seen' && fold.label === 'previous run') {
        const before = new Set(prev ?? []);
        for (let i = fold.from - 1; i < fold.to; i++)
          if (!before.has(lines[i])) {
            fail('session: output line folded as in the previous run but not shown there', where, JSON.stringify(lines[i].slice(0, 100)));
            break;
          }
      }
      if (fold.reason === 'seen' && fold.label === 'above') {
        const above = new Set(lines.slice(0, fold.from - 1).filter((_, i) => mask[i]));
        for (let i = fold.from - 1; i < fold.to; i++)
          if (!above.has(lines[i])) {
            fail('session: output line folded as repeating lines above, not kept above', where, JSON.stringify(lines[i].slice(0, 100)));
            break;
          }
      }
      p = fold.to;
      continue;
    }
    if (p < lines.length && line === lines[p]) {
      mask[p++] = 1;
      continue;
    }
    fail('output: line not the next input line', where, `${JSON.stringify(line.slice(0, 100))} vs ${JSON.stringify((lines[p] ?? '<end>').slice(0, 100))}`);
    return null;
  }
  if (p !== lines.length) fail('output: ends before the input', where, `${p} of ${lines.length}`);
  else if (!same([...r.keepMask], [...mask])) fail('output: keepMask disagrees with the text', where, '');
  else if (!same(r.kept, ranges(mask, 1)) || !same(r.omitted, ranges(mask, 0))) fail('output: kept/omitted disagree with the text', where, '');
  return lines.filter((_, i) => mask[i]);
}

/** A session: a read, the same read again, the file edited and read, an overlapping window; a command run twice. */
async function sessionCase(k: number, files: SourceFile[], obs: Observation[]): Promise<void> {
  const session = new SessionMemory();
  const shown: Shown = { lines: new Map() };
  const f = edged(pick(files), pick(['none', 'none', 'crlf', 'no-eol', 'tabs'] as Edge[]));
  const query = drawQuery(f, files);
  const where = (step: string) => `#${k} session/${step} ${f.path}`;
  const readWith = async (step: string, sh: Shaped, extra: Partial<PruneRequest> = {}) => {
    const req: PruneRequest = { code: sh.text, query, session, ...sh.req, ...extra };
    const r = await checkedPrune(where(step), sh, req, shown);
    if (process.env.INV_DUMP_SESSIONS)
      writeFileSync(
        `${process.env.INV_DUMP_SESSIONS}/${k}-${step.replace(/ /g, '_')}.txt`,
        `${JSON.stringify({ ...req, session: undefined })}\n${r?.text ?? ''}`,
      );
    if (r) remember(shown, sh, r, req.outputLimit ? parseOutputLimit(req.outputLimit) : null);
    return r;
  };
  const first = pick(['raw', 'cat-n']);
  const mk = (src: SourceFile) => (first === 'raw' ? raw(src) : numbered(src, false));
  const mode: Partial<PruneRequest> = rand() < 0.3 ? drawMode().req : {};
  // a harness that cuts long answers: what it cut was never shown
  if (rand() < 0.3 && mode.outputLimit === undefined) mode.outputLimit = pick(['head:1500', 'head:4000', '3000', 'head+tail:3000', 'mini-swe-agent']);
  const firstRead = mk(f);
  const r1 = await readWith('read', firstRead, mode);
  // the same read again is served in full
  const r2 = await readWith('read again', firstRead, mode);
  if (r1 && r2?.text.includes(SEEN_VERB)) fail('session: a read asked again is folded', where('read again'), `${r2.seenLines} lines folded`);
  // an edit: lines changed, inserted and deleted; then the file again
  const ls = f.code.split('\n');
  for (let e = 0; e < int(1, 4); e++) {
    const at = int(0, Math.max(0, ls.length - 1));
    const op = int(0, 2);
    if (op === 0) ls[at] = `${ls[at]} # edited`;
    else if (op === 1) ls.splice(at, 0, '    x = compute(y)  # inserted', '');
    else ls.splice(at, int(1, 5));
  }
  const edited = { ...f, code: ls.join('\n') };
  const harness: Partial<PruneRequest> = mode.outputLimit ? { outputLimit: mode.outputLimit } : {};
  await readWith('edited', mk(edited), { ...harness, ...(rand() < 0.5 ? { query: `${query} again` } : {}) });
  // a window overlapping earlier reads (numbered or raw with firstLine)
  const w = rand() < 0.5 ? numbered(edited, true) : rawWindow(edited);
  await readWith('window', w, { ...harness, query: `${query} in this part` });
  // a grep over the file: never folded
  const g = grep([edited]);
  const rg = await readWith('grep', g, harness);
  if (rg?.text.includes(SEEN_VERB)) fail('session: grep output folded', where('grep'), '');
  // a command run twice in the session
  const o = pick(obs);
  const prev = await checkToolOutput(`${where('output')} ${o.command.slice(0, 60)}`, o, o.query, o.task, session);
  if (prev) await checkToolOutput(`${where('output again')} ${o.command.slice(0, 60)}`, o, o.query, o.task, session, prev);
}

async function main(): Promise<void> {
  const files = await loadFiles();
  const obs = await loadObservations();
  console.log(`inputs: ${files.length} files, ${obs.length} observations; ${CASES} cases, seed ${SEED}`);
  const started = Date.now();
  for (let k = ONE_CASE ? Number(ONE_CASE) : 0; k < (ONE_CASE ? Number(ONE_CASE) + 1 : CASES); k++) {
    stats.cases++;
    state = (SEED * 1_000_003 + k * 7919) >>> 0;
    if (ONLY === 'session' || (!ONLY && rand() < 0.15)) await sessionCase(k, files, obs);
    else await singleCase(k, files, obs);
    if ((k + 1) % 100 === 0) console.log(`${k + 1} cases, ${violations.size} kinds of violation, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  for (const [kind, v] of [...violations].sort((x, y) => y[1].count - x[1].count)) {
    console.log(`\n${v.count} x ${kind}`);
    for (const e of v.examples) console.log(`   ${e}`);
  }
  console.log(`\n${JSON.stringify(stats)}`);
  console.log(`digest ${digest.digest('hex').slice(0, 16)}`);
  process.exitCode = violations.size > 0 ? 1 : 0;
}

await main();
