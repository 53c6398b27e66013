/** The agent-run replay: the README's scoring rule, by hand on a small run. */
import { describe, expect, it } from 'vitest';
import { replayRun, splitObservation, TRAJECTORY_METHODS, type TrajectoryRun } from '../../src/bench/trajectories.js';
import { createPruner } from '../../src/core/prune.js';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';

const FILE = Array.from({ length: 60 }, (_, i) => `line_${i + 1} = ${i + 1}`).join('\n') + '\n';
const cat = (body: string) => `<returncode>0</returncode>\n<output>\n${body}</output>`;

/** system, task, then: read the file, read it again (`second`: as it is then), finish. */
function run(second = FILE): TrajectoryRun {
  const messages = [
    { role: 'system', content: 'S'.repeat(100) },
    { role: 'user', content: 'T'.repeat(200) },
    { role: 'assistant', content: 'A'.repeat(50) }, // cost 300
    { role: 'user', content: cat(FILE) },
    { role: 'assistant', content: 'B'.repeat(50) },
    { role: 'user', content: cat(second) },
    { role: 'assistant', content: 'C'.repeat(50) },
  ];
  const read = (gold: number[]) => ({ kind: 'file', path: 'a.py', file_lines: Array.from({ length: 60 }, (_, i) => i + 1), gold_obs_lines: gold });
  return {
    instance_id: 'x__x-1',
    repo: 'x/x',
    task: 'fix line 30',
    messages,
    steps: [
      { message: 3, command: 'cat a.py', thought: 'look at a.py', truncated: false, read: read([30]) },
      { message: 5, command: 'cat a.py', thought: 'again', truncated: false, read: read([30]) },
    ],
  };
}

const none = TRAJECTORY_METHODS.find((m) => m.name === 'none')!;
const memory = TRAJECTORY_METHODS.find((m) => m.name === 'memory-only')!;
const threshold = TRAJECTORY_METHODS.find((m) => m.name === 'skim-threshold')!;

/** A "pruner" that keeps only the first 10 lines (so line 30 is lost). */
async function firstTen(req: PruneRequest): Promise<PruneResult> {
  const lines = req.code.split('\n').slice(0, 60);
  const keepMask = new Uint8Array(60).map((_, i) => (i < 10 ? 1 : 0));
  const text = lines.slice(0, 10).join('\n') + '\n# ... 50 lines omitted (11-60)\n';
  return {
    text,
    keepMask,
    kept: [[1, 10]],
    omitted: [[11, 60]],
    score: 0.5,
    tokensIn: 0,
    tokensOut: 0,
    language: 'python',
    ms: 0,
    shape: 'raw',
    warnings: [],
    diagnostics: [],
  };
}

describe('replayRun', () => {
  const obs = cat(FILE).length;
  const base = 300 + (350 + obs) + (350 + obs + 50 + obs); // context before each assistant turn

  it('costs a run as the sum of the context before each assistant turn', async () => {
    const r = await replayRun(run(), none, firstTen);
    expect(r.cost).toBe(base);
    expect(r.reads).toBe(2);
    expect(r.goldReads).toBe(2);
    expect(r.lostReads).toBe(0);
  });

  it('charges a read that lost a gold line one more turn and the whole observation; a line already shown does not count', async () => {
    const r = await replayRun(run(), threshold, firstTen);
    const pruned = splitObservation(cat(FILE))!.head.length + (await firstTen({ code: FILE })).text.length + '</output>'.length;
    // first read lost line 30: a re-read turn (context so far) + the re-read command + the whole observation
    const ctxAfterFirst = 350 + pruned;
    const afterReread = ctxAfterFirst + 50 + obs;
    // the second read lost line 30 again, but the re-read showed it: not lost
    const expected = 300 + ctxAfterFirst + afterReread + (afterReread + 50 + pruned);
    expect(r.lostReads).toBe(1);
    expect(r.cost).toBe(expected);
  });

  it('session memory collapses the second read (after an edit at its end) at no loss', async () => {
    const pruner = createPruner();
    const r = await replayRun(run(FILE.replace('line_60 = 60', 'line_60 = 61')), memory, (req) => pruner.prune(req));
    expect(r.lostReads).toBe(0);
    expect(r.readCharsOut).toBeLessThan(r.readCharsIn * 0.6);
    expect(r.cost).toBeLessThan(base);
  });
});

describe('skim bench on a trajectories file', () => {
  // Two real runs of ../shared/bench/trajectories-dev.jsonl.gz (django__django-16429,
  // sympy__sympy-23534: public mini-swe-agent runs, see that file's README), whole.
  it('replays every method and writes the report, the JSON and the plot', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { run: cli } = await import('../../src/cli/cli.js');
    const dir = await mkdtemp(join(tmpdir(), 'skim-traj-'));
    const fixture = new URL('../fixtures/bench/trajectories-mini.jsonl', import.meta.url).pathname;
    await cli([
      'node',
      'skim',
      'bench',
      '--cases',
      fixture,
      '--methods',
      'all',
      '--md',
      join(dir, 'r.md'),
      '--json',
      join(dir, 'r.json'),
      '--plot',
      join(dir, 'r.svg'),
    ]);
    const md = await readFile(join(dir, 'r.md'), 'utf8');
    for (const m of TRAJECTORY_METHODS) expect(md).toContain(`| ${m.name} | 2 |`);
    expect(md).toContain('#### django/django');
    const [rep] = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8'));
    const skim = rep.overall.find((r: { method: string }) => r.method === 'skim');
    const memory = rep.overall.find((r: { method: string }) => r.method === 'memory-only');
    expect(memory.lostReads).toBe(0);
    // (these two runs re-read only ranges they name and files asked again: memory folds none of it)
    expect(memory.readSaving).toBeGreaterThanOrEqual(0);
    expect(skim.readSaving).toBeGreaterThan(0);
    expect(skim.reads).toBe(7);
    expect(await readFile(join(dir, 'r.svg'), 'utf8')).toMatch(/^<svg/);
  }, 60_000);
});
