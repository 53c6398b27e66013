/**
 * What prune() of a file it has never seen costs, counted (src/core/work.ts), not timed: the
 * input is parsed once (a second prune of the same text, its syntax index cached, parses exactly
 * one text of the input's length less), the output at most a few times (the syntax fix's rounds), and
 * the o200k tokenizer sees each input character a bounded number of times (the input once for its
 * count, the output once for its count, each kept line and marker once for layout and repair).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPruner } from '../../src/core/prune.js';
import { clearAnalysisCache } from '../../src/core/syntax/analysisCache.js';
import { grammarAvailable } from '../../src/core/syntax/grammars.js';
import { workSince, workSnapshot } from '../../src/core/work.js';

const INPUTS = path.resolve(__dirname, '../fixtures/golden/inputs');
// the golden inputs of the languages with a grammar, each with its case's question
const cases = (JSON.parse(readFileSync(path.join(INPUTS, 'cases.json'), 'utf8')) as { file: string; lang: string; query: string }[]).filter(
  (c) => !c.file.includes('/') && grammarAvailable(c.lang),
);
const pruner = createPruner();

/** Output parses allowed per prune: the fix's rounds are bounded, but one or two is the rule on these files. */
const OUTPUT_PARSES = 3;
/**
 * Characters given to the tokenizer per input character in the default mode: the input, the output
 * (up to the input again) and each distinct line once (measured 1.6 on the serving benchmark's
 * 1,000-line files, 2.9 here on a file kept almost whole). Budget modes count candidate outputs
 * again when they are shorter than the token counter's memo takes (4,096 characters).
 */
const TOKENIZED_PER_CHAR = 3.2;

describe('work of a prune of a new file', () => {
  for (const c of cases)
    for (const mode of [
      { name: 'default', opts: {} },
      { name: 'ratio 4', opts: { ratio: 4 } },
    ])
      it(`${c.file}, ${mode.name}: the input parsed once, the output at most ${OUTPUT_PARSES} times`, async () => {
        // a trailing line break no other test adds: new to the token counter's memo of large texts
        const code = `${readFileSync(path.join(INPUTS, c.file), 'utf8')}\n`;
        const req = { code, query: c.query, path: c.file, ...mode.opts };
        clearAnalysisCache();
        let before = workSnapshot();
        const first = await pruner.prune(req);
        const cold = workSince(before);
        before = workSnapshot();
        const second = await pruner.prune(req);
        const warm = workSince(before);
        expect(second.text).toBe(first.text);
        // the input's parse is the one the cached syntax index saves
        expect(cold.parses).toBeGreaterThanOrEqual(1);
        expect(cold.parses - warm.parses).toBe(1);
        expect(cold.parsedChars - warm.parsedChars).toBeGreaterThanOrEqual(code.length - 1);
        expect(cold.parsedChars - warm.parsedChars).toBeLessThanOrEqual(code.length + 6); // (PHP's open tag)
        expect(warm.parses).toBeLessThanOrEqual(OUTPUT_PARSES);
        if (mode.name === 'default') expect(cold.tokenizedChars).toBeLessThanOrEqual(TOKENIZED_PER_CHAR * code.length);
      });
});
