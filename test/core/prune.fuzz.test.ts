/**
 * Fuzzing prune() with hostile input: never crash, never hang, never mislead.
 * Generated inputs mix real code lines with binary bytes, invalid UTF-8 (as decoded: U+FFFD),
 * lone surrogates, a byte order mark, NUL, runs of CR, spaces and tabs, unbalanced and deeply
 * nested brackets, deep indentation, huge lines and tokenizer control strings (`<|endoftext|>`),
 * joined by any line ending; a few fixed inputs are large (MBs). Each goes through threshold mode
 * (default policy and explicit τ), budget mode (ratio, tokens, maxChars) and session mode (the
 * same read twice), and every result must:
 *   - keep its lines verbatim and in order, one marker per omitted run naming its range, and cover
 *     the input (test/helpers/invariants.ts);
 *   - hold its budget, but for the documented exceptions (a budget too small for one marker gets
 *     that marker; binary input and input over the size ceiling come back whole);
 *   - come back without a throw, the same on a second run, with work linear in the input: the
 *     characters given to tree-sitter and the byte-pair merge steps of token counting, counted
 *     (src/core/work.ts), within a bound per input character (a quadratic path, such as a repair
 *     loop that parses the file again per omitted run or BPE over a whole 100 KB run, exceeds it).
 *     The time prune() takes on large inputs is measured by scripts/scaling.ts, not here.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MARKER_RE } from '../../src/core/layout/layout.js';
import { createPruner } from '../../src/core/prune.js';
import { SessionMemory } from '../../src/core/session/memory.js';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';
import { type WorkCounts, workSince, workSnapshot } from '../../src/core/work.js';
import { checkInvariants } from '../helpers/invariants.js';

const pruner = createPruner();
const ROOT = path.resolve(__dirname, '../..');

/** Real code lines to mix the hostile fragments into (shipped examples and golden inputs). */
const CODE_LINES = [
  'examples/logging.py',
  'examples/playground-lru_cache.go',
  'examples/playground-rate_limiter.ts',
  'test/fixtures/golden/inputs/java.java',
  'test/fixtures/golden/inputs/c_sharp.cs',
].flatMap((f) => readFileSync(path.join(ROOT, f), 'utf8').split('\n'));

const SPECIAL = ['<|endoftext|>', '<|im_start|>user', '<|im_end|>', '<|fim_prefix|>', '<|fim_middle|>', '<|endofprompt|>', '<|startoftext|>'];

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** One piece of a line: real code, or something hostile. */
const fragment = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...CODE_LINES) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 1, arbitrary: fc.constantFrom('\uFEFF', '\u0000', '\uFFFD', '\uD800', '\uDFFF', 'a\uD83D', '\u2028', '\u00A0', '\x1b[31m', '\f', '\v') },
  // binary bytes as a string (latin1) and invalid UTF-8 as a decoder sees it
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('utf8')) },
  { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 200 }) },
  // runs
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map((n) => '\r'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 30_000 }).map((n) => ' '.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => '\t'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('(', '[', '{', ')', ']', '}', '"', "'", '`', '/*', '*/', '"""'), fc.integer({ min: 1, max: 3000 }))
      .map(([s, n]) => s.repeat(n)),
  },
  // a huge line
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 250_000 }).map((n) => `x = "${'ab '.repeat(n / 3)}"`) },
);

const eol = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', '', '\n\n\n');

/** A few hundred lines of code with hostile pieces spliced in. */
const mixed = fc.array(fc.tuple(fragment, eol), { minLength: 1, maxLength: 300 }).map((parts) => parts.map(([f, e]) => f + e).join(''));

/** Deep nesting: brackets, blocks, indentation. */
const nested = fc.tuple(fc.constantFrom('js', 'py', 'brackets', 'c'), fc.integer({ min: 50, max: 4000 })).map(([kind, d]) => {
  if (kind === 'js') return 'function f() {\n'.repeat(d) + '  return compute(x);\n' + '}\n'.repeat(d);
  if (kind === 'py')
    return ['def f():', ...Array.from({ length: d }, (_, i) => `${' '.repeat(i + 1)}if x${i}:`), `${' '.repeat(d + 1)}return compute(x)`].join('\n') + '\n';
  if (kind === 'c') return 'int f() {\n' + '  if (x) {\n'.repeat(d) + '  compute(x);\n' + '  }\n'.repeat(d) + '}\n';
  return `x = ${'['.repeat(d)}1${']'.repeat(d)}\n`.repeat(3);
});

const input = fc.oneof({ weight: 4, arbitrary: mixed }, { weight: 1, arbitrary: nested });

const query = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'where are the records replaced instead of cleared?',
      'How is the retry delay computed?',
      'compute(x) returns the wrong value for negative x',
      'LRU eviction order',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '<|endoftext|>', '   ', '\u0000\uFFFD') },
  { weight: 1, arbitrary: fc.integer({ min: 20_001, max: 40_000 }).map((n) => 'q'.repeat(n)) },
);

const language = fc.constantFrom(undefined, 'python', 'javascript', 'typescript', 'go', 'c', 'java', 'rust', 'ruby', 'kotlin', 'text');

type Mode = { name: string; extra: Partial<PruneRequest> };

const mode: fc.Arbitrary<Mode> = fc.oneof(
  fc.constant({ name: 'default', extra: {} }),
  fc.double({ min: 0, max: 1, noNaN: true }).map((threshold) => ({ name: `threshold ${threshold}`, extra: { threshold } })),
  fc.double({ min: 1, max: 64, noNaN: true }).map((ratio) => ({ name: `ratio ${ratio}`, extra: { ratio } })),
  fc.integer({ min: 0, max: 5000 }).map((tokens) => ({ name: `tokens ${tokens}`, extra: { tokens } })),
  fc.integer({ min: 0, max: 20_000 }).map((maxChars) => ({ name: `maxChars ${maxChars}`, extra: { maxChars } })),
);

/**
 * The work bound, linear in the input's characters. tree-sitter is given the input once (segment
 * analyses are cached) and the repair's checks of the output: at most 1.0 characters parsed per
 * input character on the fuzz corpus and 1.22 on the large inputs (FUZZ_RUNS=100, seed 2020). Byte-pair
 * merging costs about L/2 steps per character of a pre-token L long, and no pre-token over 2,000
 * characters is merged (src/core/tokens/count.ts): at most 1,069 steps per character measured, on
 * a 1,709-character input. A quadratic path (a parse per omitted run, BPE over a whole 30,000-space
 * run) exceeds these bounds by orders of magnitude.
 */
const PARSED_CHARS_PER_CHAR = 4;
const PARSED_CHARS_BASE = 100_000;
const BPE_STEPS_PER_CHAR = 1_200;
const BPE_STEPS_BASE = 1_000_000;

/** The one exception to a budget: a budget too small for even one marker gets that marker (and says so). */
function loneMarkerOverBudget(r: PruneResult): boolean {
  const lines = r.text.split('\n').filter((l) => l !== '');
  return lines.length === 1 && MARKER_RE.test(lines[0]!) && r.warnings.some((w) => w.includes('too small even for a marker'));
}

/** Problems with one result, or [] (the invariants, the budget and the work bound). */
function problems(req: PruneRequest, r: PruneResult, w: WorkCounts): string[] {
  const out: string[] = [];
  const bad = checkInvariants(req.code, r);
  if (bad) out.push(bad);
  // the documented exceptions: one marker over a budget too small for it; binary input and input
  // over the size ceiling come back whole (fail open) in every mode
  const whole = r.tokensEstimated || r.warnings.includes('binary input returned unchanged');
  if (!whole && !loneMarkerOverBudget(r)) {
    if (req.ratio !== undefined && r.tokensOut > Math.floor(r.tokensIn / req.ratio)) out.push(`over budget: ${r.tokensOut} > ${r.tokensIn}/${req.ratio}`);
    if (req.tokens !== undefined && r.tokensOut > req.tokens) out.push(`over budget: ${r.tokensOut} > ${req.tokens} tokens`);
    if (req.maxChars !== undefined && r.text.length > req.maxChars) out.push(`over budget: ${r.text.length} > ${req.maxChars} characters`);
  }
  const n = req.code.length;
  const parseLimit = PARSED_CHARS_BASE + PARSED_CHARS_PER_CHAR * n;
  if (w.parsedChars > parseLimit) out.push(`parsed ${w.parsedChars} characters for ${n} (limit ${parseLimit})`);
  const bpeLimit = BPE_STEPS_BASE + BPE_STEPS_PER_CHAR * n;
  if (w.bpeSteps > bpeLimit) out.push(`${w.bpeSteps} BPE merge steps for ${n} characters (limit ${bpeLimit})`);
  return out;
}

/** Prune `req`, counting the work done. */
async function counted(req: PruneRequest): Promise<{ r: PruneResult; w: WorkCounts }> {
  const before = workSnapshot();
  const r = await pruner.prune(req);
  return { r, w: workSince(before) };
}

/** Prune `req` twice (fresh sessions) and check both runs; in session mode also a second read. */
async function check(req: PruneRequest, session: boolean): Promise<string[]> {
  const mk = (): PruneRequest => (session ? { ...req, path: 'src/fuzz.py', session: new SessionMemory() } : req);
  const first = mk();
  const a = await counted(first);
  const out = problems(first, a.r, a.w);
  const b = await counted(mk());
  if (b.r.text !== a.r.text || JSON.stringify(b.r.kept) !== JSON.stringify(a.r.kept)) out.push('not deterministic');
  if (session) {
    // the same read again: what the first showed folds into "unchanged" markers
    const again = { ...first, session: first.session };
    const c = await counted(again);
    out.push(...problems(again, c.r, c.w).map((p) => `second read: ${p}`));
  }
  return out;
}

/** A failure without the (megabytes of) counterexample fast-check would print: the check's own message says what failed. */
function shortReport<T>(out: fc.RunDetails<T>): void {
  if (!out.failed) return;
  const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error(`fuzz failed after ${out.numRuns} runs (seed ${out.seed}, path ${out.counterexamplePath}): ${why.slice(0, 2000)}`);
}

const describeInput = (req: PruneRequest) =>
  `${req.code.length} chars starting ${JSON.stringify(req.code.slice(0, 80))}, query ${JSON.stringify((req.query ?? '').slice(0, 40))} (${(req.query ?? '').length} chars), ${JSON.stringify({ ...req, code: undefined, query: undefined, session: undefined })}`;

describe('fuzz: hostile input through every mode', () => {
  it('generated inputs keep every invariant, in threshold, budget and session modes', async () => {
    await fc.assert(
      fc.asyncProperty(input, query, language, mode, fc.boolean(), async (code, q, lang, m, withSession) => {
        const req: PruneRequest = { code, query: q, ...(lang ? { language: lang } : {}), ...m.extra };
        // session memory applies to reads in the default mode (a budget re-prunes what it is given)
        const session = withSession && m.name === 'default';
        const found = await check(req, session);
        if (found.length) throw new Error(`${m.name}${session ? ' + session' : ''}: ${found.join('; ')} [${describeInput(req)}]`);
      }),
      // FUZZ_SEED / FUZZ_RUNS explore further (e.g. FUZZ_RUNS=2000 FUZZ_SEED=$RANDOM npx vitest run test/core/prune.fuzz.test.ts)
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100), seed: Number(process.env.FUZZ_SEED ?? 2020), reporter: shortReport },
    );
  }, 600_000);

  it('large inputs (MBs) stay within the work bound in every mode', async () => {
    const logging = readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8');
    const all: Mode[] = [
      { name: 'default', extra: {} },
      { name: 'ratio 4', extra: { ratio: 4 } },
      { name: 'maxChars 4000', extra: { maxChars: 4000 } },
    ];
    const big: Array<{ name: string; code: string; language?: string; modes: Mode[] }> = [
      { name: '2 MB of python', code: logging.repeat(Math.ceil(2e6 / logging.length)), language: 'python', modes: all },
      { name: '3 MB of spaces on one line', code: ' '.repeat(3e6), modes: all.slice(0, 2) },
      { name: '1 MB of blank lines and CR runs', code: '\n\r\r\r\n'.repeat(2e5), modes: all.slice(0, 2) },
      {
        name: 'javascript 10,000 deep',
        code: 'function f(){\n'.repeat(10_000) + 'return compute(x);\n' + '}\n'.repeat(10_000),
        language: 'javascript',
        modes: all.slice(1, 2),
      },
    ];
    const found: string[] = [];
    for (const b of big) {
      for (const m of b.modes) {
        const req: PruneRequest = { code: b.code, query: 'compute(x) returns the wrong value', ...(b.language ? { language: b.language } : {}), ...m.extra };
        const { r, w } = await counted(req);
        for (const p of problems(req, r, w)) found.push(`${b.name} [${m.name}]: ${p}`);
      }
    }
    expect(found).toEqual([]);
  }, 120_000);

  it('inputs over the size ceiling come back whole at once, with a warning and estimated counts', async () => {
    for (const code of ['x = 1\n'.repeat(250_000), 'y'.repeat(17 * 1024 * 1024)]) {
      const { r, w } = await counted({ code, query: 'where is x set?', ratio: 4 });
      expect(r.text).toBe(code);
      expect(r.tokensEstimated).toBe(true);
      expect(r.warnings.join(' ')).toMatch(/returned unchanged/);
      expect(checkInvariants(code, r)).toBeNull();
      // at once: nothing parsed, nothing tokenized
      expect(w).toEqual({ parses: 0, parsedChars: 0, bpeSteps: 0, tokenizedChars: 0, bodyBytesRead: 0 });
    }
  });
});
