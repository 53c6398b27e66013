/**
 * Start-up cost of the `skim` command: whole-process wall and CPU (user + system) time of a few
 * one-shot commands, each next to `node -e 0` in the same run, reported as ratios to it.
 *
 *   npm run bench:startup                       # builds dist/, then 10 rounds after a warm-up
 *   npx tsx scripts/startup.ts [--runs 10] [--warmup 2] [--json OUT.json] [--baseline DIR]
 * --baseline DIR also runs every skim command from another built checkout (e.g. a worktree of the
 * previous commit, after `npm ci && npm run build` there) in the same rounds: before and after side by side.
 *
 * The read commands run three ways: `daemon off` (SKIM_DAEMON=0: all the work in the process),
 * `daemon warm` (a daemon started before the rounds answers) and `first call` (no daemon: the
 * call starts one and works in process; each run is prepared by `skim daemon stop`). Each way has
 * its own socket directory in a temporary directory. The client's CPU is what hyperfine counts;
 * the warm daemon's own CPU (from /proc, over all its calls) is reported per call below the table.
 *
 * Measured with hyperfine (`hyperfine -N`, no shell in between). hyperfine 1.15 exports only the
 * mean of user/system time, so each round is one hyperfine call that runs every command once
 * (commands interleaved, so a noisy neighbour hits them alike); the medians are taken over rounds.
 * Needs a built dist/ (bin/skim.js loads it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname ?? '.', '..');
const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const runs = Number(opt('--runs', '10'));
const warmup = Number(opt('--warmup', '2'));
const jsonOut = args.includes('--json') ? opt('--json', '') : undefined;
const baseline = args.includes('--baseline') ? path.resolve(opt('--baseline', '')) : undefined;

if (!existsSync(path.join(root, 'dist/cli/main.js'))) {
  console.error('dist/ is missing: run `npm run build` first (or `npm run bench:startup`)');
  process.exit(2);
}
if (spawnSync('hyperfine', ['--version']).status !== 0) {
  console.error('hyperfine not found (https://github.com/sharkdp/hyperfine)');
  process.exit(2);
}

const Q = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
const SKIM = [
  { name: 'skim --version', args: '--version' },
  { name: 'skim prune examples/logging.py --query Q', args: `prune examples/logging.py --query "${Q}"` },
  { name: 'skim cat examples/logging.py --focus Q', args: `cat examples/logging.py --focus "${Q}"` },
  { name: 'skim grep -C 3 records examples --focus Q', args: `grep -C 3 records examples --focus "${Q}"` },
];
if (baseline && !existsSync(path.join(baseline, 'dist/cli/main.js'))) {
  console.error(`--baseline ${baseline}: no dist/ there (npm ci && npm run build in it first)`);
  process.exit(2);
}
const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-startup-'));
const warmDir = path.join(tmp, 'warm');
const firstDir = path.join(tmp, 'first');
const READ = new Set(['prune', 'cat', 'grep']);
const bin = (dir: string) => `node ${path.join(dir, 'bin/skim.js')}`;
/** `env` (a few hundred µs of its own) gives each way its settings without a shell. */
const ways = (name: string, args: string, skim: string) =>
  READ.has(args.split(' ')[0])
    ? [
        { name: `${name} (daemon off)`, cmd: `env SKIM_DAEMON=0 ${skim} ${args}` },
        { name: `${name} (daemon warm)`, cmd: `env SKIM_DAEMON_DIR=${warmDir} ${skim} ${args}` },
        {
          name: `${name} (first call)`,
          cmd: `env SKIM_DAEMON_DIR=${firstDir} ${skim} ${args}`,
          prepare: `env SKIM_DAEMON_DIR=${firstDir} ${skim} daemon stop`,
        },
      ]
    : [{ name, cmd: `${skim} ${args}` }];
const commands: { name: string; cmd: string; prepare?: string }[] = [
  { name: 'node -e 0', cmd: 'node -e 0' },
  ...SKIM.flatMap((c) => ways(c.name, c.args, bin(root))),
  ...(baseline ? SKIM.flatMap((c) => ways(`baseline: ${c.name}`, c.args, bin(baseline))) : []),
];

// No session, task or debug settings from the caller's environment.
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('SKIM_')) delete env[k];

function hyperfine(extra: string[]): { times: number[]; user: number; system: number }[] {
  const out = path.join(tmp, 'round.json');
  const prepare = commands.flatMap((c) => ['--prepare', c.prepare ?? 'true']);
  const res = spawnSync('hyperfine', ['-N', '--style', 'none', ...prepare, ...extra, '--export-json', out, ...commands.map((c) => c.cmd)], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`hyperfine failed (exit ${res.status})`);
  return (JSON.parse(readFileSync(out, 'utf8')) as { results: { times: number[]; user: number; system: number }[] }).results;
}

/** user + system CPU (ms) the warm daemon has used, and the calls it has served. */
function daemonCpu(): { ms: number; served: number } | null {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/skim.js'), 'daemon', 'status'], { env: { ...env, SKIM_DAEMON_DIR: warmDir }, encoding: 'utf8' });
  const m = /pid (\d+)[\s\S]*?(\d+) request\(s\) served/.exec(r.stdout);
  if (!m) return null;
  const fields = readFileSync(`/proc/${m[1]}/stat`, 'utf8').split(') ')[1].split(' ');
  return { ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100, served: Number(m[2]) }; // utime, stime in 1/100 s
}

try {
  process.stderr.write(`warm-up (${warmup} runs of each command) ...\n`);
  hyperfine(['--warmup', String(Math.max(0, warmup - 1)), '--runs', '1']);
  const daemonBefore = daemonCpu();
  const wall: number[][] = commands.map(() => []);
  const cpu: number[][] = commands.map(() => []);
  for (let r = 0; r < runs; r++) {
    process.stderr.write(`\rround ${r + 1}/${runs}`);
    hyperfine(['--runs', '1']).forEach((res, i) => {
      wall[i].push(res.times[0] * 1000);
      cpu[i].push((res.user + res.system) * 1000);
    });
  }
  process.stderr.write('\n');
  const daemonAfter = daemonCpu();

  const median = (xs: number[]): number => {
    const s = xs.slice().sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const rows = commands.map((c, i) => ({ name: c.name, command: c.cmd, wallMs: median(wall[i]), cpuMs: median(cpu[i]), wall: wall[i], cpu: cpu[i] }));
  const base = rows[0];
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; median of ${runs} runs after a warm-up (hyperfine -N)`,
  );
  console.log('');
  console.log('| command | wall ms | CPU ms | wall / node | CPU / node |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| \`${r.name}\` | ${r.wallMs.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${(r.wallMs / base.wallMs).toFixed(2)}x | ${(r.cpuMs / base.cpuMs).toFixed(2)}x |`,
    );
  }
  console.log('');
  console.log(`Q = "${Q}"${baseline ? `; baseline: ${baseline}` : ''}`);
  if (daemonBefore && daemonAfter && daemonAfter.served > daemonBefore.served) {
    const calls = daemonAfter.served - daemonBefore.served;
    console.log(`warm daemon's own CPU: ${((daemonAfter.ms - daemonBefore.ms) / calls).toFixed(0)} ms per call (${calls} calls, /proc)`);
  }
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, rows }, null, 2)}\n`);
} finally {
  for (const dir of [warmDir, firstDir])
    spawnSync(process.execPath, [path.join(root, 'bin/skim.js'), 'daemon', 'stop'], { env: { ...env, SKIM_DAEMON_DIR: dir } });
  rmSync(tmp, { recursive: true, force: true });
}
