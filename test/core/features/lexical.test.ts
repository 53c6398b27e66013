import { describe, expect, it } from 'vitest';
import { rootOf, terms } from '../../../src/core/features/lexical.js';

const root = (word: string) => rootOf(terms(word)[0]);

describe('rootOf', () => {
  it('joins a word with the forms code uses for it', () => {
    for (const group of [
      ['serialization', 'serializer', 'serialize', 'serial'],
      ['positivity', 'positive'],
      ['computation', 'compute', 'computer'],
      ['construction', 'constructor', 'construct'],
      ['validation', 'validate', 'validator'],
      ['conditional', 'condition'],
      ['formatter', 'format'],
      ['handler', 'handle'],
      ['truncate', 'trunc'],
    ])
      expect(new Set(group.map(root)), group.join(' ')).toEqual(new Set([root(group[0])]));
  });

  it('keeps words apart whose root would be shorter than five characters', () => {
    for (const [a, b] of [
      ['global', 'glob'],
      ['signal', 'sign'],
      ['header', 'head'],
      ['format', 'form'],
      ['number', 'numb'],
      ['filter', 'filt'],
    ])
      expect(root(a), `${a} ${b}`).not.toBe(root(b));
  });
});
