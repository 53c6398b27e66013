import { describe, expect, it } from 'vitest';
import { rubricLabels } from '../../src/train/rubricLabels.js';
import { buildSimpleSyntaxIndex } from '../helpers/simpleSyntax.js';

const code = [
  'import os', // 0
  'from util import helper', // 1
  '', // 2
  '@cached', // 3
  'def load(path):', // 4
  '    x = 1', // 5
  '    return helper(os.path.join(path, "a"))', // 6
];

describe('rubricLabels', () => {
  it('adds enclosing header, decorator and imports of used names to the dependency rubric', () => {
    const syn = buildSimpleSyntaxIndex(code, 'python');
    const { labels, closure } = rubricLabels(syn, code.length, [6]);
    expect(Array.from(labels.agg)).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(labels.sem)).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(labels.dep[4]).toBe(1); // def header
    expect(labels.dep[3]).toBe(1); // decorator
    expect(labels.dep[1]).toBe(1); // helper import
    expect(labels.dep[0]).toBe(1); // os import
    expect(labels.dep[5]).toBe(0); // unrelated statement
    expect(closure.imports.has(1)).toBe(true);
  });

  it('adds teacher support lines to the dependency rubric', () => {
    const syn = buildSimpleSyntaxIndex(code, 'python');
    const { labels } = rubricLabels(syn, code.length, [6], [5]);
    expect(labels.dep[5]).toBe(1);
  });
});
