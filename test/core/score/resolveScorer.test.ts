import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkimError } from '../../../src/core/errors.js';
import { resolveScorer } from '../../../src/core/score/resolveScorer.js';
import { frozenScorer } from '../../helpers/stages.js';

describe('resolveScorer', () => {
  it("the caller's scorer as it is, or the heuristic by name", async () => {
    const own = frozenScorer([]);
    expect(await resolveScorer({ scorer: own })).toBe(own);
    expect((await resolveScorer({ scorer: 'heuristic' })).name).toBe('heuristic');
  });

  it('a model directory without a model is misuse', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'skim-nomodel-'));
    await expect(resolveScorer({ modelDir: empty })).rejects.toBeInstanceOf(SkimError);
  });

  it('a corrupt model falls back to the heuristic, with a diagnostic every result carries', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skim-corrupt-'));
    writeFileSync(path.join(dir, 'model.json'), '{ not json');
    const s = await resolveScorer({ modelDir: dir });
    expect(s.name).toBe('heuristic');
    expect(s.diagnostics?.map((d) => d.code)).toEqual(['model-unavailable']);
    expect(s.diagnostics?.[0].message).toMatch(/^learned model not used: .*; heuristic scorer used instead$/);
  });
});
