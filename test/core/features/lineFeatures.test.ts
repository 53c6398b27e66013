import { describe, expect, it } from 'vitest';
import { emptyBridge } from '../../../src/core/features/bridge.js';
import { FEATURE_NAMES, lineFeatures, NUM_FEATURES } from '../../../src/core/features/lineFeatures.js';
import { buildSimpleSyntaxIndex } from '../../../src/train/simpleSyntax.js';

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
  const X = lineFeatures({ query: 'How is the progress bar width computed in render_bar?', lines: code, syntax, language: 'python' }, { bridge: emptyBridge() });
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

describe('codeTermsOf', () => {
  it('takes terms from identifiers, calls, backticks and code lines of an issue, not from its prose', async () => {
    const { codeTermsOf } = await import('../../../src/core/features/lineFeatures.js');
    const t = codeTermsOf('The result is wrong when calling `Point.distance(p)`.\n\n>>> simplify(x)\nin _eval_power the check is_zero fails');
    for (const w of ['point', 'distanc', 'simplify', 'iszero']) expect(t.has(w)).toBe(true);
    for (const w of ['result', 'wrong', 'check', 'fail']) expect(t.has(w)).toBe(false);
  });
});
