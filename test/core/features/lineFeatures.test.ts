import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyBridge } from '../../../src/core/features/bridge.js';
import { COL, FEATURE_NAMES, NUM_FEATURES } from '../../../src/core/features/columns.js';
import { lineFeatures, writeLineFeatures } from '../../../src/core/features/lineFeatures.js';
import { analyzeQuery, callEndsLine, indentedLine } from '../../../src/core/features/queryAnalysis.js';
import { buildSyntaxIndex, ensureGrammar } from '../../../src/core/syntax/index.js';
import { buildSimpleSyntaxIndex } from '../../helpers/simpleSyntax.js';
import { countMatchWork } from '../../helpers/work.js';

const code = [
  'import os',
  '',
  'def load_config(path):',
  '    with open(path) as fh:',
  '        return parse(fh.read())',
  '',
  'def render_bar(progress):',
  '    width = 40',
  '    return "#" * int(progress * width)',
];
const col = (name: string) => FEATURE_NAMES.indexOf(name);

describe('lineFeatures', () => {
  const syntax = buildSimpleSyntaxIndex(code, 'python');
  const X = lineFeatures(
    { query: 'How is the progress bar width computed in render_bar?', lines: code, syntax, language: 'python' },
    { bridge: emptyBridge() },
  );
  const at = (i: number, name: string) => X[i * NUM_FEATURES + col(name)];

  it('has one row per line and finite values', () => {
    expect(X.length).toBe(code.length * NUM_FEATURES);
    for (const v of X) expect(Number.isFinite(v)).toBe(true);
    expect(new Set(FEATURE_NAMES).size).toBe(NUM_FEATURES);
  });

  it('ranks the matching lines and scope above the unrelated ones', () => {
    expect(at(8, 'bm25_norm')).toBeGreaterThan(at(4, 'bm25_norm'));
    expect(at(7, 'scope_inner_cov')).toBeGreaterThan(at(3, 'scope_inner_cov'));
    expect(at(7, 'in_best_scope')).toBe(1);
    expect(at(3, 'in_best_scope')).toBe(0);
  });

  it('gives each matching line its BM25 rank percentile, ties sharing one, and 0 to lines without a match', () => {
    const bm = code.map((_, i) => at(i, 'bm25_norm'));
    const pct = code.map((_, i) => at(i, 'bm25_rank_pct'));
    for (let i = 0; i < code.length; i++) {
      if (bm[i] === 0) expect(pct[i]).toBe(0);
      else expect(pct[i]).toBe(1 - bm.filter((v) => v > bm[i]).length / code.length);
    }
    expect(Math.max(...pct)).toBe(1);
    // two identical lines score alike and share their rank
    const twice = [...code, code[8]];
    const X2 = lineFeatures(
      { query: 'How is the progress bar width computed in render_bar?', lines: twice, syntax: buildSimpleSyntaxIndex(twice, 'python'), language: 'python' },
      { bridge: emptyBridge() },
    );
    const r = (i: number) => X2[i * NUM_FEATURES + col('bm25_rank_pct')];
    expect(r(9)).toBe(r(8));
    expect(r(8)).toBeGreaterThan(0);
  });

  it('sees the scope name and the defined symbol mentioned verbatim in the query', () => {
    expect(at(6, 'defines_query_symbol')).toBe(1);
    expect(at(7, 'scope_name_in_query')).toBe(1);
    expect(at(3, 'scope_name_in_query')).toBe(0);
    expect(at(6, 'kind_header')).toBe(1);
    expect(at(0, 'kind_import')).toBe(1);
    expect(at(0, 'query_is_question')).toBe(1);
  });

  it('uses the bridge: a code term associated with a query word lights up without lexical overlap', () => {
    const bridge = emptyBridge();
    bridge.table.set('config', [['pars', 2]]);
    const Y = lineFeatures({ query: 'config', lines: code, syntax, language: 'python' }, { bridge });
    expect(Y[4 * NUM_FEATURES + col('bridge_norm')]).toBe(1);
    expect(Y[7 * NUM_FEATURES + col('bridge_norm')]).toBe(0);
  });
});

describe('query words the file uses in another form', () => {
  // sympy's assumptions handlers: the hint says "positivity", the code "positive"
  const handlers = [
    '@PositivePredicate.register(Pow)',
    'def _(expr, assumptions):',
    '    if expr.is_number:',
    '        return _PositivePredicate_number(expr, assumptions)',
    '    if ask(Q.positive(expr.base), assumptions):',
    '        return True',
    '',
    '@NegativePredicate.register(Abs)',
    'def _(expr, assumptions):',
    '    return ask(Q.zero(expr.args[0]), assumptions)',
  ];
  const syntax = buildSimpleSyntaxIndex(handlers, 'python');
  const features = (query: string) => lineFeatures({ query, lines: handlers, syntax, language: 'python' }, { bridge: emptyBridge() });
  const at = (X: Float64Array, i: number, name: string) => X[i * NUM_FEATURES + col(name)];

  it('match the form the file uses, weighed below the word itself', () => {
    const variant = features('positivity of a power');
    const word = features('positive of a power');
    for (const i of [0, 3, 4]) expect(at(variant, i, 'bm25_log'), `line ${i + 1}`).toBeGreaterThan(0);
    for (const i of [1, 5, 7, 8, 9]) expect(at(variant, i, 'bm25_log'), `line ${i + 1}`).toBe(0);
    expect(at(variant, 4, 'bm25_log')).toBeLessThan(at(word, 4, 'bm25_log'));
  });

  it('leave a word the file contains alone: its other forms do not join it', () => {
    const lines = ['def serialize(data):', '    return dumps(data)', '', 'class Serializer:', '    pass'];
    const X = lineFeatures(
      { query: 'where does serialize write', lines, syntax: buildSimpleSyntaxIndex(lines, 'python'), language: 'python' },
      { bridge: emptyBridge() },
    );
    expect(at(X, 0, 'bm25_log')).toBeGreaterThan(0);
    expect(at(X, 3, 'bm25_log')).toBe(0);
  });
});

describe('row layout', () => {
  it('names every column once, in FEATURE_NAMES order', () => {
    expect(FEATURE_NAMES.length).toBe(NUM_FEATURES);
    expect(new Set(FEATURE_NAMES).size).toBe(NUM_FEATURES);
    expect(Object.keys(COL)).toEqual(FEATURE_NAMES);
    FEATURE_NAMES.forEach((name, i) => expect(COL[name as keyof typeof COL]).toBe(i));
  });

  // every index of the matrix written exactly once: no column left out, none written twice or past the row
  const writes = (query: string, lines: string[], syntax: ReturnType<typeof buildSyntaxIndex>, path?: string) => {
    const count = new Map<number, number>();
    const X = new Proxy(new Float64Array(lines.length * NUM_FEATURES), {
      set(target, key, value) {
        const i = Number(key);
        count.set(i, (count.get(i) ?? 0) + 1);
        return Reflect.set(target, key, value);
      },
    });
    writeLineFeatures(X, { query, lines, syntax, language: syntax.language, path }, { bridge: emptyBridge() });
    return count;
  };
  const expectEachOnce = (count: Map<number, number>, n: number) => {
    expect(count.size).toBe(n * NUM_FEATURES);
    for (let i = 0; i < n * NUM_FEATURES; i++) expect(count.get(i), `row ${Math.floor(i / NUM_FEATURES)}, ${FEATURE_NAMES[i % NUM_FEATURES]}`).toBe(1);
  };

  it('writes every column of every row exactly once, with a grammar and with the fallback index', async () => {
    const lines = readFileSync(fileURLToPath(new URL('../../../examples/logging.py', import.meta.url)), 'utf8').split('\n');
    await ensureGrammar('python');
    const query = 'Traceback (most recent call last):\n  File "x.py", line 3, in format\nWhy does `PercentStyleMultiline.format` lose the auto indent?';
    expectEachOnce(writes(query, lines, buildSyntaxIndex(lines, 'python'), 'src/_pytest/logging.py'), lines.length);
    expectEachOnce(writes('render_bar width', code, buildSimpleSyntaxIndex(code, 'python')), code.length);
    expect(writes('anything', [], buildSimpleSyntaxIndex([], 'python')).size).toBe(0);
  });
});

describe('codeTermsOf', () => {
  it('takes terms from identifiers, calls, backticks and code lines of an issue, not from its prose', async () => {
    const { codeTermsOf } = await import('../../../src/core/features/queryAnalysis.js');
    const t = codeTermsOf('The result is wrong when calling `Point.distance(p)`.\n\n>>> simplify(x)\nin _eval_power the check is_zero fails');
    for (const w of ['point', 'distanc', 'simplify', 'iszero']) expect(t.has(w)).toBe(true);
    for (const w of ['result', 'wrong', 'check', 'fail']) expect(t.has(w)).toBe(false);
  });
});

describe('definition names against the query', () => {
  // pytest's logging plugin: two classes each define `format`; only one of them is about multiline messages
  const lines = readFileSync(fileURLToPath(new URL('../../../examples/logging.py', import.meta.url)), 'utf8').split('\n');
  const lineOf = (text: string, from = 0) => lines.findIndex((l, i) => i >= from && l.includes(text));
  const features = async (query: string) => {
    await ensureGrammar('python');
    const syntax = buildSyntaxIndex(lines, 'python');
    const X = lineFeatures({ query, lines, syntax, language: 'python' }, { bridge: emptyBridge() });
    return (i: number, name: string) => X[i * NUM_FEATURES + col(name)];
  };

  it('scores a method whose name parts the query uses, rare parts counting most, and tells the classes apart', async () => {
    const at = await features('Multiline log messages lose their auto indent when they are formatted');
    const indent = lineOf('def _get_auto_indent') + 1;
    const colored = lineOf('def format(self, record', lineOf('class ColoredLevelFormatter')) + 1;
    const multiline = lineOf('def format(self, record', lineOf('class PercentStyleMultiline')) + 1;
    const unrelated = lineOf('def reset(self)') + 1;
    // "_get_auto_indent": "get" is a stopword, "auto" and "indent" are both in the query
    expect(at(indent, 'func_name_cov')).toBe(1);
    expect(at(colored, 'func_name_cov')).toBe(1); // "format" <- "formatted"
    expect(at(unrelated, 'func_name_cov')).toBe(0);
    // the classes: PercentStyleMultiline shares "multiline" with the query, ColoredLevelFormatter nothing
    expect(at(multiline, 'class_name_cov')).toBeGreaterThan(0);
    expect(at(colored, 'class_name_cov')).toBe(0);
    expect(at(multiline, 'name_cov_max')).toBe(1);
    expect(at(indent, 'name_cov_rank_pct')).toBeGreaterThan(at(unrelated, 'name_cov_rank_pct'));
    for (const i of [indent, colored, multiline, unrelated]) expect(at(i, 'name_bridge')).toBe(0);
  });

  it('reads name parts, not the compound: "_print_Symbol" is covered by a query about printing a symbol', () => {
    const code = [
      'class Printer:',
      '    def _print_Symbol(self, sym):',
      '        return sym.name',
      '    def _print_Add(self, expr):',
      '        return "+".join(expr.args)',
    ];
    const syntax = buildSimpleSyntaxIndex(code, 'python');
    const X = lineFeatures(
      { query: 'A symbol ending with a number is invisible when printing', lines: code, syntax, language: 'python' },
      { bridge: emptyBridge() },
    );
    const at = (i: number, name: string) => X[i * NUM_FEATURES + col(name)];
    expect(at(2, 'func_name_cov')).toBe(1);
    // "print" is in every name: it covers little of "_print_Add"
    expect(at(4, 'func_name_cov')).toBeLessThan(0.5);
    expect(at(4, 'func_name_cov')).toBeGreaterThan(0);
  });
});

describe('query flags in linear time', () => {
  // the regular expressions they replace, for comparison on random text
  const INDENTED = /^\s{4,}\S/m;
  const CALL_ENDS_LINE = /\w+\([^)]*\)\s*$/m;
  const alphabet = fc.constantFrom(' ', ' ', '\t', '\n', '\r', '\u2028', '\u00a0', 'a', 'b', '_', '(', ')', 'x', '1', '.');
  const text = fc.string({ unit: alphabet, maxLength: 40 });

  it('indentedLine and callEndsLine agree with the regular expressions', () => {
    fc.assert(
      fc.property(text, (q) => {
        expect(indentedLine(q)).toBe(INDENTED.test(q));
        expect(callEndsLine(q)).toBe(CALL_ENDS_LINE.test(q));
      }),
      { numRuns: 20_000, seed: 7 },
    );
  });

  it('read each character of 20,000 characters of blank lines, open calls or one long word a few times', () => {
    // the scans read 1-2.5 characters per query character; a rescan from every line start or open
    // call (what the regular expressions did) reads thousands (the regular expressions analyzeQuery
    // still uses are timed by scripts/hostile-timing.ts)
    for (const q of ['\n'.repeat(20_000) + 'x', 'a('.repeat(10_000), 'q'.repeat(20_000), 'a9'.repeat(10_000) + '('] as const) {
      const { reads } = countMatchWork(() => analyzeQuery(q, emptyBridge()));
      expect(reads).toBeLessThanOrEqual(4 * q.length);
    }
  });
});
