/** Token counting: special-token strings are text. */
import { describe, expect, it } from 'vitest';
import { countLineTokens, countTokens } from '../../../src/core/tokens/count.js';
import { prune } from '../../../src/core/prune.js';

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
