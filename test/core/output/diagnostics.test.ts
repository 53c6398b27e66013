/**
 * Compiler and linter diagnostics as blocks (src/core/output/shapes/diagnostics.ts), on real
 * outputs: cargo build (rustc 1.95), gcc 12 -Wall -Wextra -Wconversion on hiredis, javac 17
 * -Xlint:all on commons-lang, eslint's stylish reporter on marked. Each tool's own summary says how
 * many errors and warnings it printed: the blocks found must count the same.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyLines } from '../../../src/core/output/classify.js';
import { detectShape } from '../../../src/core/output/detect.js';
import { diagnosticBlocks, KIND_READ_CHARS, messageKind } from '../../../src/core/output/shapes/diagnostics.js';

const lines = (name: string) => readFileSync(new URL(`../../fixtures/outputs/${name}.txt`, import.meta.url), 'utf8').split('\n');
const count = (blocks: { severity: string }[], severity: string) => blocks.filter((b) => b.severity === severity).length;

describe('diagnosticBlocks', () => {
  it('cargo build: one block per rustc diagnostic, as many as cargo counts, named by their lint', () => {
    const ls = lines('cargo-build-error');
    const blocks = diagnosticBlocks(ls);
    // `warning: `ledger` (bin "ledger") generated 56 warnings`, `due to 1 previous error`
    expect(count(blocks, 'warning')).toBe(56);
    expect(count(blocks, 'error')).toBe(1);
    const error = blocks.find((b) => b.severity === 'error')!;
    expect(ls.slice(error.from, error.to + 1)).toEqual(ls.slice(345, 354));
    expect(error.kind).toBe('E0499');
    // a warning: its header, where, the gutter, the source, the caret, up to the blank line
    const first = blocks[0];
    expect(ls.slice(first.from, first.to + 1)).toEqual([
      'warning: unused import: `std::fmt::Write`',
      ' --> src/importer.rs:4:5',
      '  |',
      '4 | use std::fmt::Write;',
      '  |     ^^^^^^^^^^^^^^^',
      '  |',
      '  = note: `#[warn(unused_imports)]` (part of `#[warn(unused)]`) on by default',
    ]);
    // the lint is named under the first warning of its kind only: the others take it from there
    const kinds = new Map<string, number>();
    for (const b of blocks) kinds.set(b.kind, (kinds.get(b.kind) ?? 0) + 1);
    expect(Object.fromEntries(kinds)).toEqual({ unused_imports: 4, unused_variables: 51, unused_mut: 1, E0499: 1 });
  });

  it('gcc: a warning with its source and caret lines and its notes; the include chain and the function are context', () => {
    const ls = lines('gcc-hiredis');
    const blocks = diagnosticBlocks(ls);
    expect(count(blocks, 'warning')).toBe(ls.filter((l) => /^\S+:\d+:\d+: warning: /.test(l)).length);
    expect(count(blocks, 'error')).toBe(1);
    expect(count(blocks, 'note')).toBe(0);
    const error = blocks.find((b) => b.severity === 'error')!;
    expect(ls.slice(error.from, error.to + 1)).toEqual([
      'read.c:307:48: error: ‘value’ undeclared (first use in this function)',
      '  307 |                 obj = r->fn->createInteger(cur,value);',
      '      |                                                ^~~~~',
      'read.c:307:48: note: each undeclared identifier is reported only once for each function it appears in',
    ]);
    expect(ls[error.context![0]]).toBe('read.c: In function ‘processLineItem’:');
    const first = blocks[0];
    expect(ls.slice(first.context![0], first.context![1] + 1)).toEqual(['In file included from dict.c:41:', 'dict.c: In function ‘dictExpand’:']);
    expect(new Set(blocks.map((b) => b.kind))).toEqual(
      new Set(['-Wsign-conversion', '-Wconversion', '-Wunused-function', 'undeclared (first use in this function)']),
    );
  });

  it('javac: a warning with its source, caret and details; as many as javac counts', () => {
    const ls = lines('javac-commons-lang');
    const blocks = diagnosticBlocks(ls);
    // `1 error` / `69 warnings`
    expect(count(blocks, 'error')).toBe(1);
    expect(count(blocks, 'warning')).toBe(69);
    const error = blocks.find((b) => b.severity === 'error')!;
    expect(ls.slice(error.from, error.to + 1)).toEqual([
      'src/main/java/org/apache/commons/lang3/StringUtils.java:3576: error: cannot find symbol',
      '        final int strLen = length(cs.toString().strip);',
      '                                               ^',
      '  symbol:   variable strip',
      '  location: class String',
    ]);
    expect(blocks.filter((b) => b.kind === 'rawtypes')).toHaveLength(11);
  });

  it("eslint: one block per message, named by its rule, with its file as context; as many as eslint's ✖ line counts", () => {
    const ls = lines('eslint-marked');
    const blocks = diagnosticBlocks(ls);
    // `✖ 55 problems (11 errors, 44 warnings)`
    expect(count(blocks, 'error')).toBe(11);
    expect(count(blocks, 'warning')).toBe(44);
    expect(blocks.every((b) => b.from === b.to)).toBe(true);
    expect(ls[blocks[0].context![0]]).toBe('/tmp/eco/marked/src/Lexer.ts');
    expect(blocks[0].kind).toBe('prefer-const');
    // a message without a rule is of the kind its text says
    expect(blocks.find((b) => ls[b.from].includes('Unused eslint-disable'))!.kind).toBe('Unused eslint-disable directive (no problems were reported');
  });

  it('tsc: a diagnostic runs to the next one, related locations and blank lines included (--pretty), or over its indented lines', () => {
    const pretty = [
      "src/Lexer.ts:186:11 - error TS2322: Type 'Blockquote | undefined' is not assignable to type 'Generic | undefined'.",
      "  Property 'raw' is missing in type 'Blockquote' but required in type 'Generic'.",
      '',
      '186       if (token = this.tokenizer.blockquote(src)) {',
      '              ~~~~~',
      '',
      '  src/Tokens.ts:98:5',
      '    98     raw: string;',
      '           ~~~',
      "    'raw' is declared here.",
      '',
      "src/Parser.ts:50:48 - error TS18048: 'anyToken' is possibly 'undefined'.",
      '',
      'Found 2 errors in 2 files.',
    ];
    expect(diagnosticBlocks(pretty).map((b) => [b.from, b.to, b.severity, b.kind])).toEqual([
      [0, 9, 'error', 'TS2322'],
      [11, 11, 'error', 'TS18048'],
    ]);
    const plain = [
      "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      '  Details here.',
      'src/b.ts(1,1): error TS1005: ";" expected.',
    ];
    expect(diagnosticBlocks(plain).map((b) => [b.from, b.to])).toEqual([
      [0, 1],
      [2, 2],
    ]);
  });

  it("rustc's note on two lines (expected, then found under it) and the notes after it are the error's: one block", () => {
    // real cargo build (rustc 1.95): E0308 with its types on two lines, then `note: function defined here`
    const ls = lines('cargo-build-mismatched');
    const blocks = diagnosticBlocks(ls);
    expect(blocks.map((b) => [b.from, b.to, b.severity, b.kind])).toEqual([[1, 15, 'error', 'E0308']]);
    expect(ls[10]).toBe('             found struct `Vec<i64>`');
  });

  it("the build's summary lines are no diagnostic", () => {
    const summaries = [
      'warning: `ledger` (bin "ledger") generated 56 warnings',
      'error: could not compile `ledger` (bin "ledger") due to 1 previous error; 56 warnings emitted',
      '2 errors generated.',
      '1 error',
      '69 warnings',
      '✖ 55 problems (11 errors, 44 warnings)',
      'Found 3 errors in 2 files.',
    ];
    expect(diagnosticBlocks(summaries)).toEqual([]);
    // and the compiler's rules always show them, clang's count of both kinds too
    const clang = ['1 warning and 1 error generated.', '12 warnings and 3 errors generated.', '2 errors generated.'];
    const { roles } = classifyLines(clang, detectShape(clang, 'clang -Wall -c dict.c read.c'));
    expect(roles).toEqual(['signal', 'signal', 'signal']);
  });

  it('a kind without the names in the message', () => {
    expect(messageKind('unused variable: `balance`')).toBe('unused variable');
    expect(messageKind('function `open_account` is never used')).toBe('function is never used');
    expect(messageKind('‘value’ undeclared (first use in this function)')).toBe('undeclared (first use in this function)');
  });

  it("one line megabytes long is read in one pass: a kind from its first characters, eslint's rule walked back to", () => {
    // a quote never closed, a run of punctuation: before, each was scanned to the line's end from every character
    const hostile = `unused ‘${'‘'.repeat(2 * KIND_READ_CHARS)}’ variable`;
    expect(messageKind(hostile)).toBe(messageKind(hostile.slice(0, KIND_READ_CHARS)));
    expect(messageKind('it’s ‘a ‘b’ c; ')).toBe('it’s c');
    // eslint: the rule is the last word after two spaces or more, however long the run before it
    const [long] = diagnosticBlocks([`  1:1  warning  Unexpected console statement${' '.repeat(1_000_000)}no-console`]);
    expect(long.kind).toBe('no-console');
    const [noRule] = diagnosticBlocks(['  1:1  warning  Unexpected console statement x y']);
    expect(noRule.kind).toBe('Unexpected console statement x y');
    expect(diagnosticBlocks(['  3:4  error   '])).toEqual([]);
  });
});
