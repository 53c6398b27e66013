/** A whole-file read longer than the harness shows whole is fitted to it, not left to the harness's cut. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitBudget, MIN_FIT_CHARS, parseOutputLimit, shownWholeChars } from '../../src/core/outputLimit.js';
import { createPruner } from '../../src/core/prune.js';
import { pruneToolOutput } from '../../src/core/pruneToolOutput.js';
import { outputRequestOf, withFileRead } from '../../src/core/request.js';
import { SessionMemory } from '../../src/core/session/memory.js';

const pruner = createPruner({ scorer: 'heuristic' });
const logging = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8');
const lines = logging.split('\n');
const query = 'Where are the caplog records replaced instead of cleared?';

describe('fitting a read to the output limit', () => {
  it('what a limit shows whole: under it, less room for what follows the answer', () => {
    expect(shownWholeChars(parseOutputLimit('mini-swe-agent')!)).toBe(9_500);
    expect(shownWholeChars(parseOutputLimit('head:2000')!)).toBe(1_800);
    expect(fitBudget({})).toBeNull();
    // mini-swe-agent cuts an output of 10,000 characters or more; a head limit one over it
    expect(fitBudget({ outputLimit: 'mini-swe-agent' })).toEqual({ chars: 9_500, cutFrom: 10_000 });
    expect(fitBudget({ outputLimit: 'head:2000' })).toEqual({ chars: 1_800, cutFrom: 2_001 });
    // its own figure wins, 0 turns fitting off, and a limit too small to choose within is not fitted to
    expect(fitBudget({ outputLimit: 'mini-swe-agent', fitChars: 4_000 })).toEqual({ chars: 4_000, cutFrom: 4_001 });
    expect(fitBudget({ outputLimit: 'mini-swe-agent', fitChars: 0 })).toBeNull();
    expect(fitBudget({ outputLimit: 'head:300' })).toBeNull();
    expect(fitBudget({ fitChars: MIN_FIT_CHARS })).toEqual({ chars: MIN_FIT_CHARS, cutFrom: MIN_FIT_CHARS + 1 });
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

  it('in the default mode a file longer than the limit is read to fill what the harness shows: it would show that much of it anyway', async () => {
    const plain = await pruner.prune({ code: logging, path: 'logging.py', query });
    expect(plain.text.length).toBeLessThan(8_000);
    const r = await pruner.prune({ code: logging, path: 'logging.py', query, fitChars: 12_000 });
    expect(r.text.length).toBeLessThanOrEqual(12_000);
    expect(r.text.length).toBeGreaterThan(10_000);
    expect(r.diagnostics.map((d) => d.code)).toContain('fitted-to-limit');
    expect(r.text).toContain('def reset(self) -> None:');
  });

  it('leaves alone what it has nothing to choose by, what fits, and what the agent chose', async () => {
    // no goal hint and no task: the harness's cut, as before
    const noHint = await pruner.prune({ code: logging, path: 'logging.py', outputLimit: 'mini-swe-agent' });
    expect(noHint.text).toBe(logging);
    // a read that fits already, and one the harness shows whole though it is over what skim fits to
    const short = lines.slice(0, 60).join('\n');
    const fits = await pruner.prune({ code: short, path: 'logging.py', query, outputLimit: 'mini-swe-agent' });
    expect(fits.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    let n = 0;
    while (lines.slice(0, n + 1).join('\n').length < 9_900) n++;
    const under = lines.slice(0, n).join('\n');
    expect(under.length).toBeGreaterThan(9_500);
    expect(under.length).toBeLessThan(10_000);
    const shown = await pruner.prune({ code: under, path: 'logging.py', query, outputLimit: 'mini-swe-agent' });
    expect(shown.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    // a window of the file the agent named (`sed -n 200,900p`), and a fitChars of 0
    const window = await pruner.prune({ code: logging, path: 'logging.py', query, firstLine: 200, window: true, fitChars: 3_000 });
    expect(window.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
    const off = await pruner.prune({ code: logging, path: 'logging.py', query, fitChars: 0 });
    expect(off.diagnostics.map((d) => d.code)).not.toContain('fitted-to-limit');
  });

  it('a read made again is served in full within the limit: nothing folds as "unchanged since an earlier read"', async () => {
    const session = new SessionMemory();
    const req = { code: logging, path: 'logging.py', query, session, outputLimit: 'mini-swe-agent' };
    const first = await pruner.prune(req);
    const again = await pruner.prune(req);
    expect(again.text).not.toMatch(/unchanged since an earlier read/);
    expect(again.text).toBe(first.text);
    // another question about the same file does fold what the first read showed
    const other = await pruner.prune({ ...req, query: 'How is the log level of the handler set?' });
    expect(other.text).toMatch(/unchanged since an earlier read/);
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

describe('fitting reads that come as command outputs and requests', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-fit-'));
  const file = path.join(dir, 'logging.py');
  writeFileSync(file, logging);

  it('`cat F` is fitted; a window the agent named (`sed -n 1,Np F`, `head -n N F`) is left to the harness', async () => {
    const read = (command: string) => pruneToolOutput({ text: logging, command, query, outputLimit: 'mini-swe-agent' });
    const cat = await read(`cat ${file}`);
    expect(cat.via).toBe('read');
    expect(cat.result.warnings.join('\n')).toMatch(/to fit/);
    expect(cat.result.text.length).toBeLessThanOrEqual(9_500);
    for (const command of [`sed -n '1,${lines.length}p' ${file}`, `head -n ${lines.length} ${file}`]) {
      const window = await read(command);
      expect(window.via).toBe('read');
      expect(window.result.warnings.join('\n')).not.toMatch(/to fit/);
    }
    // the same over HTTP and batch lines: withFileRead turns fitting off for a window
    expect(withFileRead({ code: logging, command: `head -n 900 ${file}` })).toMatchObject({ path: file, fitChars: 0 });
    expect(withFileRead({ code: logging, command: `cat ${file}` })).not.toHaveProperty('fitChars');
  });

  it('fitChars is 0 or at least MIN_FIT_CHARS, and is not for a command output', async () => {
    await expect(pruner.prune({ code: logging, query, fitChars: 300 })).rejects.toThrow(/fitChars.*at least 500/);
    expect(() => outputRequestOf({ code: 'x\n', command: 'pytest', fitChars: 2_000 })).toThrow(/fitChars: not for a command's output/);
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
