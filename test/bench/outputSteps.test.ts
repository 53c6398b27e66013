/** Every output of an agent run: the bench README's used-line rule, and the replay that charges a lost output. */
import { describe, expect, it } from 'vitest';
import { outputKindOf, usedLines } from '../../src/bench/outputSteps.js';
import { replayRun, TRAJECTORY_METHODS, type TrajectoryRun } from '../../src/bench/trajectories.js';
import { createPruner } from '../../src/core/prune.js';

describe('usedLines', () => {
  it('marks lines whose rarer words the next message names, not common words nor the command', () => {
    const body = 'alpha_value = 1\nbeta_value = 2\nresult ok\nresult ok\nresult ok\nresult ok\nthe error output\n';
    expect(usedLines(body, 'so alpha_value is wrong', 'python3 x.py')).toEqual([1]);
    // "result" is held by four lines: not rarer
    expect(usedLines(body, 'result', 'python3 x.py')).toEqual([]);
    // words of the command and the common list do not count
    expect(usedLines(body, 'beta_value error output', 'echo beta_value')).toEqual([]);
  });

  it('sorts commands into kinds', () => {
    expect(outputKindOf('cd /testbed && pytest -x')).toBe('test');
    expect(outputKindOf('ls -la')).toBe('listing');
    expect(outputKindOf('python3 reproduce.py')).toBe('script');
    expect(outputKindOf('git diff')).toBe('diff');
    expect(outputKindOf('grep -r foo .')).toBe('search');
    expect(outputKindOf(null)).toBe('other');
  });
});

const obs = (body: string) => `<returncode>0</returncode>\n<output>\n${body}</output>`;
const passing = Array.from({ length: 200 }, (_, i) => `tests/test_a.py::test_case_${i} PASSED [ ${Math.floor(i / 2)}%]`).join('\n');
const log = (failing: string) => `${passing}\ntests/test_a.py::${failing} FAILED [100%]\n=========== 1 failed, 200 passed in 1.00s ===========\n`;

function run(next: string): TrajectoryRun {
  return {
    instance_id: 'x__x-2',
    repo: 'x/x',
    task: 'fix the parser',
    messages: [
      { role: 'system', content: 'S'.repeat(100) },
      { role: 'user', content: 'T'.repeat(200) },
      { role: 'assistant', content: 'run the tests' },
      { role: 'user', content: obs(log('test_parse')) },
      { role: 'assistant', content: next },
    ],
    steps: [{ message: 3, command: 'pytest -v tests', thought: 'run the tests', truncated: false, read: null }],
  };
}

describe('replayRun with every output', () => {
  const method = TRAJECTORY_METHODS.find((m) => m.name === 'outputs-only')!;
  const none = TRAJECTORY_METHODS.find((m) => m.name === 'none')!;
  const prune = createPruner({ scorer: 'heuristic' }).prune;

  it('prunes a test run: the failure stays, the output is not lost, the run costs less', async () => {
    const r = await replayRun(run('test_parse fails: look at the parser'), method, prune);
    const base = await replayRun(run('test_parse fails: look at the parser'), none, prune);
    expect(r.outputs.all).toMatchObject({ outputs: 1, usedOutputs: 1, lostOutputs: 0 });
    expect(r.outputs.test.charsOut).toBeLessThan(r.outputs.test.charsIn / 10);
    expect(r.cost).toBeLessThan(base.cost);
    expect(r.cachedCost).toBeLessThan(base.cachedCost);
  });

  it('charges an output that lost the line the agent used next a re-read', async () => {
    const r = await replayRun(run('test_case_17 is interesting'), method, prune);
    const base = await replayRun(run('test_case_17 is interesting'), none, prune);
    expect(r.outputs.all.lostOutputs).toBe(1);
    // one more turn over the context, and the whole output again
    expect(r.cost).toBeGreaterThan(base.cost);
  });
});
