/** A whole-file read longer than the harness shows whole is fitted to it, not left to the harness's cut. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitBudget, fitCharsOf, MIN_FIT_CHARS, parseOutputLimit } from '../../src/core/outputLimit.js';
import { createPruner } from '../../src/core/prune.js';
import { SessionMemory } from '../../src/core/session/memory.js';

const pruner = createPruner({ scorer: 'heuristic' });
const logging = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8');
const lines = logging.split('\n');
const query = 'Where are the caplog records replaced instead of cleared?';

describe('fitting a read to the output limit', () => {
  it('what a limit shows whole: under it, less room for what follows the answer', () => {
    expect(fitCharsOf(parseOutputLimit('mini-swe-agent')!)).toBe(9_500);
    expect(fitCharsOf(parseOutputLimit('head:2000')!)).toBe(1_800);
    expect(fitBudget({})).toBeNull();
    expect(fitBudget({ outputLimit: 'mini-swe-agent' })).toBe(9_500);
    // its own figure wins, 0 turns fitting off, and a limit too small to choose within is not fitted to
    expect(fitBudget({ outputLimit: 'mini-swe-agent', fitChars: 4_000 })).toBe(4_000);
    expect(fitBudget({ outputLimit: 'mini-swe-agent', fitChars: 0 })).toBeNull();
    expect(fitBudget({ outputLimit: 'head:300' })).toBeNull();
    expect(fitBudget({ fitChars: MIN_FIT_CHARS })).toBe(MIN_FIT_CHARS);
  });

  it('a long read with a goal hint fits what the harness shows whole, its kept lines byte for byte', async () => {
    expect(logging.length).toBeGreaterThan(10_000);
    const plain = await pruner.prune({ code: logging, path: 'logging.py', query, relativeThreshold: 0.2 });
    expect(plain.text.length).toBeGreaterThan(9_500);
    const fitted = await pruner.prune({ code: logging, path: 'logging.py', query, relativeThreshold: 0.2, outputLimit: 'mini-swe-agent' });
    expect(fitted.text.length).toBeLessThanOrEqual(9_500);
    expect(fitted.diagnostics.map((d) => d.code)).toContain('fitted-to-limit');
    expect(fitted.warnings.some((w) => w.includes('9500 characters'))).toBe(true);
    // the answer is kept, and every kept line is the file's own
    expect(fitted.text).toContain('def reset(self) -> None:');
    fitted.keepMask.forEach((k, i) => {
      if (k) expect(fitted.text).toContain(lines[i]);
    });
  });

  it('fits to the request’s own fitChars', async () => {
    const r = await pruner.prune({ code: logging, path: 'logging.py', query, fitChars: 3_000 });
    expect(r.text.length).toBeLessThanOrEqual(3_000);
    expect(r.diagnostics.map((d) => d.code)).toContain('fitted-to-limit');
  });

  it('leaves alone what it has nothing to choose by, what fits, and what the agent chose', async () => {
    // no goal hint and no task: the harness's cut, as before
    const noHint = await pruner.prune({ code: logging, path: 'logging.py', outputLimit: 'mini-swe-agent' });
    expect(noHint.text).toBe(logging);
    // a read that fits already
    const short = lines.slice(0, 60).join('\n');
    const fits = await pruner.prune({ code: short, path: 'logging.py', query, outputLimit: 'mini-swe-agent' });
    expect(fits.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    // a window of the file the agent named (`sed -n 200,900p`), and a fitChars of 0
    const window = await pruner.prune({ code: logging, path: 'logging.py', query, firstLine: 200, window: true, fitChars: 3_000 });
    expect(window.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    const off = await pruner.prune({ code: logging, path: 'logging.py', query, fitChars: 0 });
    expect(off.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
  });

  it('the session remembers the fitted read: all of it reached the agent', async () => {
    const session = new SessionMemory();
    const r = await pruner.prune({ code: logging, path: 'logging.py', query, session, outputLimit: 'mini-swe-agent' });
    expect(r.text.length).toBeLessThan(10_000);
    r.keepMask.forEach((k, i) => {
      if (lines[i] !== undefined && lines[i].trim() !== '') expect(session.hasSeen('logging.py', i + 1, lines[i])).toBe(k === 1);
    });
  });
});

describe('a fit that keeps no line', () => {
  it('leaves a read to the harness when fitting it would keep no line (one minified line longer than the limit)', async () => {
    const minified = `var a=1;${Array.from({ length: 2_000 }, (_, i) => `function f${i}(x){return x+${i};}`).join('')}\n`;
    const r = await pruner.prune({ code: minified, path: 'app.min.js', query: 'What does f77 return?', outputLimit: 'mini-swe-agent' });
    expect(r.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    expect(r.text).toBe(minified);
  });
});
