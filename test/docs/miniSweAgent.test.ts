/**
 * The mini-swe-agent recipe of docs/agents.md, run for real: examples/mini-swe-agent/skim_environment.py
 * (the code the doc shows) under python3, against a `skim serve` this test starts on a free port.
 * A step's THOUGHT reaches skim as the goal hint, the observation comes back pruned with markers
 * whose handle `skim show --server` expands; with skim unreachable the output comes back as it was.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const SKIM = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];
const EXAMPLE_DIR = path.join(ROOT, 'examples/mini-swe-agent');
const FIXTURE = path.join(ROOT, 'examples/mini-swe-agent/pytest-caplog.txt');
const RUN = readFileSync(FIXTURE, 'utf8');
const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
const HANDLE = /skim show ([0-9a-f]+):(\d+)-(\d+)\]/;

let server: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  if (!HAS_PYTHON) return;
  server = spawn(process.execPath, [...SKIM, 'serve', '--port', '0', '--workers', '1', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let log = '';
    server!.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]);
    });
    server!.once('exit', (code) => reject(new Error(`skim serve exited (${code}): ${log}`)));
  });
}, 60_000);

afterAll(() => {
  server?.kill('SIGTERM');
});

/** Run python3 with the example importable; the script prints one JSON value. */
function python(script: string): unknown {
  const r = spawnSync('python3', ['-c', `import json, sys\nsys.path.insert(0, ${JSON.stringify(EXAMPLE_DIR)})\n${script}`], { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

describe.skipIf(!HAS_PYTHON)('the mini-swe-agent recipe (examples/mini-swe-agent/skim_environment.py)', () => {
  it("prunes an observation for the step's THOUGHT; skim show --server expands its marker byte for byte", () => {
    const step = python(`
from skim_environment import SkimEnvironment, skim_agent

class DefaultAgent:  # what mini-swe-agent's DefaultAgent does with a parsed action
    def __init__(self, env):
        self.env = env
    def execute_action(self, action):
        return self.env.execute(action["action"])

env = SkimEnvironment(skim_url=${JSON.stringify(url)}, session="run-7", task="caplog.get_records() is emptied by caplog.clear()")
action = {"action": "cat ${FIXTURE}; exit 1",
          "content": "THOUGHT: Why does test_clear_resets_records fail after caplog.clear()?\\n\\n\`\`\`bash\\ncat ${FIXTURE}; exit 1\\n\`\`\`"}
result = skim_agent(DefaultAgent)(env).execute_action(action)
print(json.dumps({"result": result, "thought": env.thought}))
`) as { result: { output: string; returncode: number }; thought: string };
    expect(step.thought).toBe('Why does test_clear_resets_records fail after caplog.clear()?');
    expect(step.result.returncode).toBe(1);
    const out = step.result.output;
    expect(out).toContain('E       AssertionError: records taken before clear() were emptied by it');
    expect(out.length).toBeLessThan(RUN.length / 3);
    const [, handle, a, b] = HANDLE.exec(out)!;
    const shown = spawnSync(process.execPath, [...SKIM, 'show', `${handle}:${a}-${b}`], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, SKIM_SERVER: url, SKIM_SESSION: 'run-7' },
    });
    expect(shown.status).toBe(0);
    expect(shown.stdout).toBe(
      RUN.split(/(?<=\n)/)
        .slice(Number(a) - 1, Number(b))
        .join(''),
    );
    const unknown = spawnSync(process.execPath, [...SKIM, 'show', '0123456789', '--server', url, '--session', 'run-7'], { cwd: ROOT, encoding: 'utf8' });
    expect(unknown.status).toBe(66);
  }, 60_000);

  it("hands the THOUGHT over with mini-swe-agent 2.x too, whose DefaultAgent runs a message's actions in execute_actions", () => {
    const step = python(`
from skim_environment import SkimEnvironment, skim_agent

class DefaultAgent:  # mini-swe-agent 2.x: the model's message carries its parsed actions; env.execute takes each dict
    def __init__(self, env):
        self.env = env
    def execute_actions(self, message):
        return [self.env.execute(action) for action in message.get("extra", {}).get("actions", [])]

env = SkimEnvironment(skim_url=${JSON.stringify(url)}, session="run-8", task="caplog.get_records() is emptied by caplog.clear()")
agent = skim_agent(DefaultAgent)(env)
message = {"role": "assistant",
           "content": "THOUGHT: Why does test_clear_resets_records fail after caplog.clear()?\\n\\n\`\`\`mswea_bash_command\\ncat ${FIXTURE}\\n\`\`\`",
           "extra": {"actions": [{"command": "cat ${FIXTURE}"}]}}
results = agent.execute_actions(message)
thought = env.thought
agent.execute_actions({"role": "assistant", "content": None, "extra": {"actions": [{"command": "true"}]}})  # a tool call without text
print(json.dumps({"results": results, "thought": thought, "after": env.thought}))
`) as { results: { output: string }[]; thought: string; after: string };
    expect(step.thought).toBe('Why does test_clear_resets_records fail after caplog.clear()?');
    expect(step.after).toBe('');
    expect(step.results[0].output).toContain('E       AssertionError: records taken before clear() were emptied by it');
    expect(step.results[0].output.length).toBeLessThan(RUN.length / 3);
  }, 60_000);

  it('with skim unreachable, the observation is the output as it was', () => {
    const result = python(`
from skim_environment import SkimEnvironment
env = SkimEnvironment(skim_url="http://127.0.0.1:9", session="x")
print(json.dumps(env.execute("cat ${FIXTURE}")))
`) as { output: string; returncode: number };
    expect(result).toEqual({ output: RUN, returncode: 0 });
  });
});

describe('docs/agents.md', () => {
  it('shows the environment as examples/mini-swe-agent/skim_environment.py has it (the code this test runs)', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
    const block = /```python\n(class SkimEnvironment[\s\S]*?)\n```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    expect(readFileSync(path.join(EXAMPLE_DIR, 'skim_environment.py'), 'utf8')).toContain(block);
  });
});
