/** Token counting: special-token strings are text, and degenerate inputs count in linear time. */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { prune } from '../../../src/core/prune.js';
import { countLineTokens, countTokens } from '../../../src/core/tokens/count.js';
import { workSince, workSnapshot } from '../../../src/core/work.js';

/**
 * Byte-pair merging costs about L/2 steps per character of a pre-token L long; no pre-token over
 * 2,000 characters is merged whole (long runs are counted in pieces or estimated), so a linear
 * count takes at most ~1,000 steps per character. Merging a 100,000-character run whole (what made
 * these inputs take 5-20 s) takes 50,000 per character.
 */
const BPE_STEPS_PER_CHAR = 1_200;

/** `f()` and the byte-pair merge steps it took (src/core/work.ts). */
function counted<T>(f: () => T): { value: T; steps: number } {
  const before = workSnapshot();
  const value = f();
  return { value, steps: workSince(before).bpeSteps };
}

const mixedWhitespace = (n: number) => Array.from({ length: n }, (_, i) => ' \t\n\r'[(i * 7919) % 4]).join('');

describe('special-token strings', () => {
  it('count as the text they are, not as one special token and never as an error', () => {
    for (const s of ['<|endoftext|>', '<|im_start|>', '<|fim_prefix|>', '<|endofprompt|>']) {
      const n = countTokens(s);
      expect(n).toBeGreaterThan(1);
      expect(countTokens(`x = "${s}"\n`)).toBeGreaterThan(n);
      expect(countLineTokens(`print("${s}")`)).toBeGreaterThan(n);
    }
    // the same on the chunked path for long text
    const long = `x = "<|endoftext|>"\n`.repeat(500);
    expect(countTokens(long)).toBe(500 * countTokens(`x = "<|endoftext|>"\n`));
  });

  it('do not stop prune() in threshold or budget mode', async () => {
    const code = Array.from({ length: 60 }, (_, i) => `token_${i} = "<|endoftext|>"  # <|im_start|>system`).join('\n') + '\n';
    for (const opts of [{}, { ratio: 2 }, { tokens: 100 }]) {
      const r = await prune({ code, query: 'where is token_7 set?', path: 't.py', ...opts });
      expect(r.tokensIn).toBeGreaterThan(60 * 10);
      expect(r.text).toContain('<|endoftext|>');
    }
  });
});

describe('counting work is linear in the input', () => {
  it('for long runs of whitespace', () => {
    for (const text of [' '.repeat(200_000), '\r'.repeat(100_000), mixedWhitespace(100_000), '\n'.repeat(100_000), ' \f'.repeat(50_000)]) {
      const { value, steps } = counted(() => countTokens(text));
      expect(steps).toBeLessThanOrEqual(BPE_STEPS_PER_CHAR * text.length);
      expect(value).toBeGreaterThan(0);
    }
  });

  it('for a line-break run glued to punctuation (one o200k pre-token)', () => {
    const text = ';' + '\n/'.repeat(50_000);
    expect(counted(() => countTokens(text)).steps).toBeLessThanOrEqual(BPE_STEPS_PER_CHAR * text.length);
  });

  it('and whitespace-run estimates stay close to the exact count', () => {
    // exact counts of these take a few hundred ms at most: compare with the tokenizer itself
    for (const text of [' '.repeat(20_000), '\r'.repeat(20_000), mixedWhitespace(20_000)]) {
      const exact = countO200k(text);
      expect(countTokens(text)).toBeGreaterThanOrEqual(exact);
      expect(countTokens(text)).toBeLessThanOrEqual(Math.ceil(exact * 1.25));
    }
  });

  it('ordinary code is counted exactly', () => {
    const code = Array.from({ length: 3000 }, (_, i) => `    value_${i} = compute(request, ${i})  # ${' '.repeat(i % 40)}note`).join('\n');
    expect(countTokens(code)).toBe(countO200k(code));
  });

  it('so prune() on such inputs does linear work too', async () => {
    const inputs = [
      ' '.repeat(200_000),
      '\r'.repeat(100_000),
      mixedWhitespace(100_000),
      'def f(x):\n    return x\n'.repeat(50) + ' '.repeat(200_000) + '\n' + 'def g(y):\n    return y\n'.repeat(50),
    ];
    for (const code of inputs) {
      for (const opts of [{}, { ratio: 4 }]) {
        const before = workSnapshot();
        const r = await prune({ code, query: 'where is x returned?', path: 't.py', ...opts });
        expect(workSince(before).bpeSteps).toBeLessThanOrEqual(BPE_STEPS_PER_CHAR * code.length);
        expect(r.tokensOut).toBeLessThanOrEqual(r.tokensIn);
      }
    }
  });
});
