/**
 * Start-up cost of the `skim` command: whole-process wall and CPU (user + system) time of a few
 * one-shot commands, each next to `node -e 0` in the same run, reported as ratios to it.
 *
 *   npm run bench:startup                       # builds dist/, then 10 rounds after a warm-up
 *   npx tsx scripts/startup.ts [--runs 10] [--warmup 2] [--json OUT.json] [--baseline DIR]
 * --baseline DIR also runs every skim command from another built checkout (e.g. a worktree of the
 * previous commit, after `npm ci && npm run build` there) in the same rounds: before and after side by side.
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
const commands: { name: string; cmd: string }[] = [
  { name: 'node -e 0', cmd: 'node -e 0' },
  ...SKIM.map((c) => ({ name: c.name, cmd: `node bin/skim.js ${c.args}` })),
  ...(baseline ? SKIM.map((c) => ({ name: `baseline: ${c.name}`, cmd: `node ${path.join(baseline, 'bin/skim.js')} ${c.args}` })) : []),
];

// No session, task or debug settings from the caller's environment.
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('SKIM_')) delete env[k];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-startup-'));
function hyperfine(extra: string[]): { times: number[]; user: number; system: number }[] {
  const out = path.join(tmp, 'round.json');
  const res = spawnSync('hyperfine', ['-N', '--style', 'none', ...extra, '--export-json', out, ...commands.map((c) => c.cmd)], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`hyperfine failed (exit ${res.status})`);
  return (JSON.parse(readFileSync(out, 'utf8')) as { results: { times: number[]; user: number; system: number }[] }).results;
}

try {
  process.stderr.write(`warm-up (${warmup} runs of each command) ...\n`);
  hyperfine(['--warmup', String(Math.max(0, warmup - 1)), '--runs', '1']);
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
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, rows }, null, 2)}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
