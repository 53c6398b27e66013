/**
 * A corrupt model never fails open silently (issue #20 C). Before: NaN weights omitted every line
 * as "unrelated (document score NaN)"; a threshold of "abc" or 5 omitted everything; a truncated
 * or binary model file switched to the heuristic scorer (or, for --model, claimed there were no
 * weights). Now the model is validated at load and any problem falls back to the heuristic scorer
 * with a warning naming it on every result; scores that are not finite never decide anything.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultModelDir } from '../../../src/core/model/index.js';
import { createPruner, pruneWith } from '../../../src/core/prune.js';
import type { LineScores, Scorer } from '../../../src/core/types.js';
import { checkInvariants } from '../../helpers/invariants.js';

const code = readFileSync(join(__dirname, '../../../examples/logging.py'), 'utf8');
const query = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
const tmp = mkdtempSync(join(tmpdir(), 'skim-corrupt-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A copy of models/default with `edit` applied to it. */
function corrupted(edit: (dir: string, model: Record<string, unknown>) => Record<string, unknown> | void): string {
  const dir = join(tmp, `m${n++}`);
  cpSync(defaultModelDir()!, dir, { recursive: true });
  const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as Record<string, unknown>;
  const out = edit(dir, model);
  if (out) writeFileSync(join(dir, 'model.json'), JSON.stringify(out));
  return dir;
}

/** `file` of the model replaced by what `make` puts there (a link, a FIFO). */
const replaceWith = (dir: string, file: string, make: () => void) => {
  rmSync(join(dir, file));
  make();
};

/** NaN into weights.bin (little-endian Float32: the first stage, then the context stage) from parameter `at` on. */
const nanWeights = (dir: string, at: number) => {
  const file = join(dir, 'weights.bin');
  const p = new Float32Array(Uint8Array.from(readFileSync(file)).buffer);
  p.fill(NaN, at, at + 10);
  writeFileSync(file, new Uint8Array(p.buffer));
};

const CASES: [string, () => string, RegExp][] = [
  ['NaN weights', () => corrupted((dir) => nanWeights(dir, 0)), /weight 0 is NaN/],
  ['NaN weights in the context stage', () => corrupted((dir, m) => nanWeights(dir, m.paramCount as number)), /context stage .*NaN/],
  ['a threshold of "abc"', () => corrupted((_, m) => ({ ...m, threshold: 'abc' })), /threshold "abc" is not a number in \(0, 1\]/],
  ['a threshold of 5', () => corrupted((_, m) => ({ ...m, threshold: 5 })), /threshold 5 is not a number in \(0, 1\]/],
  ['a threshold of 0', () => corrupted((_, m) => ({ ...m, threshold: 0 })), /threshold 0 is not/],
  [
    'renamed features',
    () => corrupted((_, m) => ({ ...m, features: (m.features as string[]).map((f, i) => (i === 3 ? 'something_else' : f)) })),
    /different feature set/,
  ],
  [
    'a truncated weights file',
    () => corrupted((dir) => writeFileSync(join(dir, 'weights.bin'), readFileSync(join(dir, 'weights.bin')).subarray(0, 4000))),
    /weights\.bin holds 1000 parameters, expected/,
  ],
  ['a missing weights file', () => corrupted((dir) => rmSync(join(dir, 'weights.bin'))), /weights file .*weights\.bin is missing/],
  [
    'weights.bin linked to /dev/zero',
    () => corrupted((dir) => replaceWith(dir, 'weights.bin', () => symlinkSync('/dev/zero', join(dir, 'weights.bin')))),
    /weights\.bin is not a regular file \(a character device\)/,
  ],
  [
    'weights.bin a FIFO',
    () => corrupted((dir) => replaceWith(dir, 'weights.bin', () => execFileSync('mkfifo', [join(dir, 'weights.bin')]))),
    /weights\.bin is not a regular file \(a FIFO\)/,
  ],
  [
    'model.json a FIFO',
    () => corrupted((dir) => replaceWith(dir, 'model.json', () => execFileSync('mkfifo', [join(dir, 'model.json')]))),
    /model\.json is not a regular file \(a FIFO\)/,
  ],
  [
    'bridge.bin linked to /dev/zero',
    () => corrupted((dir) => replaceWith(dir, 'bridge.bin', () => symlinkSync('/dev/zero', join(dir, 'bridge.bin')))),
    /bridge\.bin is not a regular file \(a character device\)/,
  ],
  [
    'all-zero weights',
    () => corrupted((dir) => writeFileSync(join(dir, 'weights.bin'), Buffer.alloc(readFileSync(join(dir, 'weights.bin')).length))),
    /every weight is 0/,
  ],
  [
    'a truncated model.json',
    () =>
      corrupted((dir) => {
        const text = readFileSync(join(dir, 'model.json'), 'utf8');
        writeFileSync(join(dir, 'model.json'), text.slice(0, text.length / 2));
      }),
    /model\.json is not valid JSON/,
  ],
  [
    'a binary model.json',
    () => corrupted((dir) => writeFileSync(join(dir, 'model.json'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)))),
    /not valid JSON/,
  ],
  [
    'a truncated bridge.bin',
    () => corrupted((dir) => writeFileSync(join(dir, 'bridge.bin'), readFileSync(join(dir, 'bridge.bin')).subarray(0, 100_000))),
    /bridge\.bin is not a valid packed bridge table: .*truncated/,
  ],
  [
    'a truncated bridge.json (no bridge.bin)',
    () =>
      corrupted((dir) => {
        rmSync(join(dir, 'bridge.bin'));
        const text = readFileSync(join(dir, 'bridge.json'), 'utf8');
        writeFileSync(join(dir, 'bridge.json'), text.slice(0, 1000));
      }),
    /bridge\.json is not valid JSON/,
  ],
];

describe('a corrupt model falls back to the heuristic scorer, visibly', () => {
  for (const [what, make, problem] of CASES) {
    it(`${what}: every result says so, and the file is still pruned for the question`, async () => {
      const pruner = createPruner({ modelDir: make() });
      expect((await pruner.scorer()).name).toBe('heuristic');
      for (const req of [
        { code, query },
        { code, query, ratio: 4 },
        { code: 'x = 1\n', query },
        { code: '', query },
      ]) {
        const r = await pruner.prune(req);
        expect(
          r.warnings.some((w) => /learned model not used/.test(w) && problem.test(w)),
          r.warnings.join('\n'),
        ).toBe(true);
        if (req.code === code) {
          expect(checkInvariants(code, r)).toBeNull();
          // the heuristic's selection, not "everything unrelated"
          expect(r.kept.length).toBeGreaterThan(0);
          expect(r.text).toContain('def clear(self)');
        }
      }
    });
  }

  it('a model directory with no model in it is still a usage error', async () => {
    await expect(createPruner({ modelDir: join(tmp, 'nothing-here') }).prune({ code, query })).rejects.toThrow(/no model weights found/);
  });
});

describe('non-finite scores never decide anything', () => {
  const nan = (threshold = 0.01): Scorer => ({
    name: 'nan',
    defaultThreshold: threshold,
    score: (input): LineScores => ({ keep: new Float64Array(input.lines.length).fill(NaN), docScore: NaN }),
  });

  it('threshold mode returns the input whole, with a warning', async () => {
    const r = await pruneWith(nan(), { code, query });
    expect(r.text).toBe(code);
    expect(r.omitted).toEqual([]);
    expect(r.warnings.join('\n')).toMatch(/non-finite scores.*returned unchanged/);
  });

  it('a budget still holds: the heuristic ranks the lines instead', async () => {
    const r = await pruneWith(nan(), { code, query, ratio: 4 });
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 4));
    expect(r.kept.length).toBeGreaterThan(0);
    expect(r.text).toContain('def clear(self)');
    expect(r.warnings.join('\n')).toMatch(/non-finite scores.*heuristic used/);
  });

  it('a scorer whose threshold is not a probability returns the input whole, with a warning', async () => {
    for (const t of [NaN, 5, 0]) {
      const ok: Scorer = { name: 'odd', defaultThreshold: t, score: (input) => ({ keep: new Float64Array(input.lines.length).fill(0.5), docScore: 1 }) };
      const r = await pruneWith(ok, { code, query });
      expect(r.text).toBe(code);
      expect(r.warnings.join('\n')).toMatch(/no usable threshold/);
    }
  });
});
