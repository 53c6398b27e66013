/**
 * What the agent fixing a build is shown of a compiler's or linter's output (src/core/output/blocks.ts),
 * on real outputs: every error whole, the warnings around it folded whole with markers that count
 * them by kind, a warning naming the goal's identifier kept, a build without errors keeping the
 * first examples of each kind; the summaries always; `skim show` giving back the folded lines.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planBlocks } from '../../../src/core/output/blocks.js';
import { droppedNote } from '../../../src/core/output/dropped.js';
import { planFolds } from '../../../src/core/output/fold.js';
import { OutputMemory } from '../../../src/core/output/memory.js';
import { analyseOutput, pruneOutput } from '../../../src/core/output/pruneOutput.js';
import { questionTermsByLine } from '../../../src/core/output/relevance.js';
import { diagnosticBlocks } from '../../../src/core/output/shapes/diagnostics.js';
import { storedLines } from '../../../src/core/output/stored.js';
import type { OutputResult } from '../../../src/core/output/types.js';

const fixture = (name: string) => ({
  text: readFileSync(new URL(`../../fixtures/outputs/${name}.txt`, import.meta.url), 'utf8'),
  ...(JSON.parse(readFileSync(new URL(`../../fixtures/outputs/${name}.json`, import.meta.url), 'utf8')) as { command: string; thought: string }),
});
const WITH_ERRORS = ['cargo-build-error', 'gcc-hiredis', 'javac-commons-lang', 'eslint-marked'];
/** Each build's summary, as the tool printed it. */
const SUMMARIES: Record<string, string[]> = {
  'cargo-build-error': [
    'For more information about this error, try `rustc --explain E0499`.',
    'warning: `ledger` (bin "ledger") generated 56 warnings',
    'error: could not compile `ledger` (bin "ledger") due to 1 previous error; 56 warnings emitted',
  ],
  'javac-commons-lang': ['1 error', '69 warnings'],
  'eslint-marked': ['✖ 55 problems (11 errors, 44 warnings)', '  1 error and 13 warnings potentially fixable with the `--fix` option.'],
  'cargo-build-warnings': ['warning: `ledger` (bin "ledger") generated 89 warnings (run `cargo fix --bin "ledger" -p ledger` to apply 56 suggestions)'],
};
const WARNINGS_MARKER = /^\[skim: (\d+) lines of (\d+) warnings? \((.*)\) omitted \((\d+)-(\d+)\)(; skim show ([0-9a-f]+):(\d+)-(\d+)|, not stored)\]$/;

/** Per output line (0-based): shown verbatim. */
function shownLines(r: OutputResult): Uint8Array {
  return r.keepMask;
}

/** Each diagnostic is shown whole or folded whole: never a fragment of one. */
function expectWhole(lines: readonly string[], r: OutputResult): void {
  const shown = shownLines(r);
  for (const b of diagnosticBlocks(lines)) {
    const kept = new Set<number>();
    for (let i = b.from; i <= b.to; i++) if (lines[i].trim() !== '') kept.add(shown[i]);
    expect(kept.size, `lines ${b.from + 1}-${b.to + 1}`).toBe(1);
  }
}

describe('diagnostics an agent fixing the build needs', () => {
  it.each(WITH_ERRORS)('%s: every error stays whole, byte for byte, and so does the summary', (name) => {
    const f = fixture(name);
    const lines = f.text.split('\n');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    const shown = r.text.split('\n');
    const errors = diagnosticBlocks(lines).filter((b) => b.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const b of errors) {
      // the error's lines, in order and next to each other in what the agent is shown
      const at = shown.indexOf(lines[b.from]);
      expect(at, lines[b.from]).toBeGreaterThanOrEqual(0);
      expect(shown.slice(at, at + b.to - b.from + 1)).toEqual(lines.slice(b.from, b.to + 1));
    }
    for (const s of SUMMARIES[name] ?? []) expect(shown).toContain(s);
    expectWhole(lines, r);
  });

  it.each(WITH_ERRORS)('%s: the warnings around the error fold whole, each marker counting them by kind, and `skim show` gives them back', (name) => {
    const f = fixture(name);
    const lines = f.text.split('\n');
    const memory = new OutputMemory();
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory });
    const blocks = diagnosticBlocks(lines);
    const markers = r.text
      .split('\n')
      .map((l) => WARNINGS_MARKER.exec(l))
      .filter((m) => m !== null);
    expect(markers.length).toBeGreaterThan(0);
    let folded = 0;
    for (const m of markers) {
      const [from, to] = [Number(m[4]), Number(m[5])];
      expect(Number(m[1])).toBe(to - from + 1);
      const inFold = blocks.filter((b) => b.from >= from - 1 && b.from <= to - 1);
      // whole blocks: the first and last of them lie inside the fold
      expect(inFold.every((b) => b.to <= to - 1 && b.severity === 'warning')).toBe(true);
      expect(Number(m[2])).toBe(inFold.length);
      const byKind = new Map<string, number>();
      for (const b of inFold) byKind.set(b.kind, (byKind.get(b.kind) ?? 0) + 1);
      // `52 unused_variables, 28 dead_code`, after the first four kinds `8 of 2 other kinds`
      let total = 0;
      for (const part of m[3].split(', ')) {
        const [, n, kind] = /^(\d+) (.+)$/.exec(part)!;
        total += Number(n);
        const other = /^of (\d+) other kinds$/.exec(kind);
        if (other) expect(byKind.size).toBe(4 + Number(other[1]));
        else expect(byKind.get(kind), kind).toBe(Number(n));
      }
      expect(total).toBe(inFold.length);
      // the handle gives back exactly the lines folded
      expect(m[7]).toBe(r.handle);
      const stored = memory.get(r.handle!)!;
      expect(storedLines(stored, { from, to }).text).toBe(`${lines.slice(from - 1, to).join('\n')}\n`);
      folded += inFold.length;
    }
    const warnings = blocks.filter((b) => b.severity === 'warning').length;
    // most of the warnings fold (a few stay: one the goal names, one too short to pay for a marker)
    expect(folded).toBeGreaterThan(warnings / 2);
    expect(r.charsOut).toBeLessThan(r.charsIn / 2);
  });

  it("a warning that names the goal's identifier stays, whole, while the others fold", () => {
    const f = fixture('cargo-build-error');
    const lines = f.text.split('\n');
    const r = pruneOutput({ text: f.text, command: f.command, query: 'cargo build fails: is `overdraft` in close_account used at all?' });
    const shown = r.text.split('\n');
    const named = diagnosticBlocks(lines).find((b) => lines[b.from] === 'warning: unused variable: `overdraft`')!;
    const at = shown.indexOf(lines[named.from]);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(shown.slice(at, at + named.to - named.from + 1)).toEqual(lines.slice(named.from, named.to + 1));
    expect(shown).not.toContain('warning: unused variable: `credit`');
    expectWhole(lines, r);
  });

  it('a build without errors: its warnings are what the agent looks at, so the first 3 of each kind stay and the repeats fold', () => {
    const f = fixture('cargo-build-warnings');
    const lines = f.text.split('\n');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought });
    const blocks = diagnosticBlocks(lines);
    expect(blocks.some((b) => b.severity === 'error')).toBe(false);
    const seen = new Map<string, number>();
    for (const b of blocks) {
      const k = seen.get(b.kind) ?? 0;
      seen.set(b.kind, k + 1);
      if (k < 3) expect(r.keepMask[b.from], lines[b.from]).toBe(1);
    }
    expect(r.text).toMatch(/^\[skim: \d+ lines of 41 warnings \(41 unused_variables\) omitted \(\d+-\d+\), not stored\]$/m);
    expect(r.folds.filter((x) => x.reason === 'warnings').length).toBeGreaterThan(2);
    for (const s of SUMMARIES['cargo-build-warnings']) expect(r.text.split('\n')).toContain(s);
    expectWhole(lines, r);
  });

  it('the learned judgement folds no part of a diagnostic that stays', () => {
    for (const name of [...WITH_ERRORS, 'cargo-build-warnings']) {
      const f = fixture(name);
      // with a session (a session's first output: the judgement folds the most there) and without
      for (const memory of [new OutputMemory(), undefined]) {
        const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory });
        expect(
          r.folds
            .filter((x) => x.reason === 'unlikely')
            .every((x) => diagnosticBlocks(f.text.split('\n')).every((b) => b.to < x.from - 1 || b.from > x.to - 1)),
        ).toBe(true);
        expectWhole(f.text.split('\n'), r);
      }
    }
  });

  it('the note of a middle the capture dropped is part of no diagnostic: shown, never in a fold of warnings', () => {
    // the 16 MiB capture cut an eslint run between two warnings of one file
    const f = fixture('eslint-marked');
    const cut = f.text.split('\n');
    cut.splice(5, 0, droppedNote(123456, '16 MiB'));
    const r = pruneOutput({ text: cut.join('\n'), command: f.command, query: f.thought });
    expect(r.text.split('\n')).toContain(cut[5]);
    expect(r.folds.every((x) => x.to < 6 || x.from > 6)).toBe(true);
    expect(diagnosticBlocks(cut).every((b) => (b.context === null || b.context[0] > 5 || b.context[1] < 5) && (b.to < 5 || b.from > 5))).toBe(true);
  });

  it("a context thousands of diagnostics share (a long include chain) is read once, not once for each: work linear in the output's lines", () => {
    // gcc's include chain sets the scene for every diagnostic after it (real gcc-hiredis lines),
    // here 2,000 lines of it before 2,000 errors: read for each, 4 million lines
    const hiredis = fixture('gcc-hiredis').text.split('\n');
    const error = hiredis.find((l) => / error: /.test(l))!;
    const lines = ['In file included from hiredis.c:42,', ...Array.from({ length: 2000 }, (_, i) => `                 from sds${i}.h:1:`)];
    for (let i = 0; i < 2000; i++) lines.push(error.replace(/:\d+:\d+:/, `:${i + 1}:5:`));
    const blocks = diagnosticBlocks(lines);
    expect(blocks).toHaveLength(2000);
    expect(blocks.every((b) => b.context?.[0] === 0 && b.context[1] === 2000)).toBe(true);
    // planBlocks: each line's terms read a bounded number of times
    let reads = 0;
    const counted = new Proxy(questionTermsByLine(lines, 'why does sds0.h fail to build'), {
      get: (target, key, receiver) => {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    planBlocks(counted, blocks, new Uint8Array(lines.length));
    expect(reads).toBeLessThan(4 * lines.length);
    // planFolds: each block's context looked at a bounded number of times
    const a = analyseOutput(lines, { command: 'gcc hiredis.c', query: 'why does it fail' }, null);
    let contextReads = 0;
    const plan = a.blocks!;
    const watched = plan.blocks.map((b) => {
      const copy = { ...b };
      Object.defineProperty(copy, 'context', {
        get: () => {
          contextReads++;
          return b.context;
        },
      });
      return copy;
    });
    planFolds({ ...a, blocks: { ...plan, blocks: watched }, unlikely: null });
    expect(contextReads).toBeLessThan(10 * plan.blocks.length);
  });

  it("rustc's own count of the warnings it printed is a summary, shown, and no warning the marker counts", () => {
    // real: rustc on a file with two warnings, then on one with an error (one output)
    const f = fixture('rustc-two-files');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought });
    expect(r.text.split('\n')).toContain('warning: 2 warnings emitted');
    expect(r.text).toMatch(/^\[skim: 13 lines of 2 warnings \(2 unused_variables\) omitted \(1-13\), not stored\]$/m);
  });

  it('the same build run again: a diagnostic the output ends with is shown whole, not its last lines alone', () => {
    // real gcc -Wall -Wextra: two -Wformat= warnings, the output's last lines the second one's
    const f = fixture('gcc-format');
    const lines = f.text.split('\n');
    const memory = new OutputMemory();
    pruneOutput({ text: f.text, command: f.command, query: f.thought, memory });
    const again = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory });
    // its lines were all shown by the previous run: they fold as such, or all stay (its last lines always do)
    const last = diagnosticBlocks(lines).at(-1)!;
    for (let i = last.from; i <= last.to; i++) expect(again.keepMask[i], lines[i]).toBe(1);
    expectWhole(lines, again);
  });
});
