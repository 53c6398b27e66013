/**
 * CPU of prune() on files it has never seen: the distinct 1,000-line bodies of the serving load
 * test (every benchmark file that long, each with its own case's question), each pruned once in
 * process after a warm-up on other files, with the analysis cache off, so every call parses,
 * walks, scores, counts and renders a new text. Reports CPU ms per file (process.cpuUsage, robust to other jobs on the machine), p50 and
 * mean, overall and by language.
 *
 *   npx tsx scripts/prune-cpu.ts [--files 300] [--rounds 3] [--compare DIR] [--profile [--profile-functions]]
 *
 * --compare DIR runs the same measurement on the source tree of another checkout of skim (e.g. a
 * worktree of main) in a second child process, the two alternating round by round, and reports
 * both and their ratio: on a shared, noisy machine only figures taken side by side compare.
 * --profile adds a CPU profile of the first round's measured calls: the share of time by skim source
 * file (what a file calls in tree-sitter's wasm or a library counts for that file).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const files = Number(opt('--files') ?? 300);
const rounds = Number(opt('--rounds') ?? 3);
const compare = opt('--compare');
/** --profile-functions: the profile by skim function rather than by file. */
const byFunction = args.includes('--profile-functions');
const here = path.resolve(import.meta.dirname ?? '.', '..');

interface Sample {
  language: string;
  cpu: number;
}

/** The analysis cache off in the checkout at `root` (an older checkout reads SKIM_ANALYSIS_CACHE when its cache module loads). */
async function analysisCacheOff(root: string, load: (p: string) => Promise<Record<string, unknown>>): Promise<void> {
  if (existsSync(path.join(root, 'src/core/settings.ts'))) {
    const { configureCore } = (await load('src/core/settings.ts')) as typeof import('../src/core/settings.js');
    configureCore({ analysisCache: false });
  } else process.env.SKIM_ANALYSIS_CACHE = '0';
}

/** One round in this process: every file pruned once (after a warm-up on other files), its CPU per call. */
async function measure(root: string, profile: boolean): Promise<{ samples: Sample[]; profile?: Record<string, number> }> {
  const load = (p: string) => import(pathToFileURL(path.join(root, p)).href);
  await analysisCacheOff(root, load);
  const { createPruner } = await load('src/core/prune.ts');
  const { distinctInputs } = await load('src/server/loadTest.ts');
  const { detectLanguage } = await load('src/core/syntax/index.ts');
  const all = distinctInputs(1000) as { code: string; query: string; path: string }[];
  // spread over the whole list (it is grouped by benchmark, so by language)
  const inputs = all.filter(
    (_, i) => Math.floor((i * Math.min(files, all.length)) / all.length) !== Math.floor(((i - 1) * Math.min(files, all.length)) / all.length),
  );
  const pruner = createPruner();
  // Warm-up (grammars, model, JIT) on other files (shorter ones, none of the measured paths): the
  // measured texts are new to every per-text and per-piece cache, as a file never seen before is.
  const measured = new Set(inputs.map((i) => i.path));
  const warm = (distinctInputs(300) as { code: string; query: string; path: string }[]).filter((i) => !measured.has(i.path));
  // taken across languages in turn (the list is grouped by language): every grammar is warm
  const byLanguage = new Map<string, typeof warm>();
  for (const i of warm) {
    const language = detectLanguage(i.path, i.code);
    const list = byLanguage.get(language);
    if (list) list.push(i);
    else byLanguage.set(language, [i]);
  }
  const warmUp: typeof warm = [];
  for (let k = 0; warmUp.length < 60 && k < warm.length; k++)
    for (const list of byLanguage.values()) if (k < list.length && warmUp.length < 60) warmUp.push(list[k]);
  for (const i of warmUp) await pruner.prune({ code: i.code, query: i.query, path: i.path });
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const samples: Sample[] = [];
  for (const i of inputs) {
    const c = process.cpuUsage();
    await pruner.prune({ code: i.code, query: i.query, path: i.path });
    const u = process.cpuUsage(c);
    samples.push({ language: detectLanguage(i.path, i.code), cpu: (u.user + u.system) / 1000 });
  }
  if (!session) return { samples };
  const { profile: p } = await session.post('Profiler.stop');
  session.disconnect();
  return { samples, profile: timeBySkimFile(p) };
}

/**
 * Share of sampled time by the innermost skim source file on the stack: wasm and library frames
 * count for the skim code that called them (the tree-sitter parse for syntax/parse.ts, cursor reads
 * for syntax/walker.ts), so each figure is what that file costs, with what it calls outside skim.
 */
function timeBySkimFile(p: {
  nodes: { id: number; callFrame: { url: string; functionName: string }; children?: number[] }[];
  samples?: number[];
}): Record<string, number> {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const place = new Map<number, string>();
  const placeOf = (id: number): string => {
    const hit = place.get(id);
    if (hit) return hit;
    const { url, functionName } = byId.get(id)!.callFrame;
    const up = parent.get(id);
    const here = url.includes('/src/') ? url.replace(/^.*\/src\//, 'src/') + (byFunction ? ` ${functionName}` : '') : undefined;
    const k = here ?? (up !== undefined && byId.get(up)!.callFrame.functionName !== '(root)' ? placeOf(up) : functionName || 'other');
    place.set(id, k);
    return k;
  };
  const counts: Record<string, number> = {};
  const samples = p.samples ?? [];
  for (const s of samples) {
    const k = placeOf(s);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  const total = samples.length;
  return Object.fromEntries(
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .filter(([, v]) => v / total >= 0.003)
      .map(([k, v]) => [k, v / total]),
  );
}

/** Runs one round in a child process (own heap and JIT, like a server worker) and returns its samples. */
function child(root: string, profile: boolean): Promise<{ samples: Sample[]; profile?: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        ...process.execArgv,
        path.join(here, 'scripts/prune-cpu.ts'),
        '--child',
        root,
        '--files',
        String(files),
        ...(profile ? ['--profile'] : []),
        ...(byFunction ? ['--profile-functions'] : []),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child for ${root} exited ${code}`))));
  });
}

const pct = (xs: number[], q: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function summary(samples: Sample[]): Map<string, number[]> {
  const by = new Map<string, number[]>([['all', []]]);
  for (const s of samples) {
    by.get('all')!.push(s.cpu);
    if (!by.has(s.language)) by.set(s.language, []);
    by.get(s.language)!.push(s.cpu);
  }
  return by;
}

if (args[0] === '--child') {
  process.stdout.write(JSON.stringify(await measure(path.resolve(args[1]!), args.includes('--profile'))));
} else {
  const roots = compare
    ? [
        { name: 'compared', root: path.resolve(compare) },
        { name: 'this', root: here },
      ]
    : [{ name: 'this', root: here }];
  const got = new Map<string, Sample[]>(roots.map((r) => [r.name, []]));
  const profiles = new Map<string, Record<string, number>>();
  for (let round = 0; round < rounds; round++) {
    // alternate which tree goes first, so neither always meets the same moment of load
    for (const r of round % 2 ? [...roots].reverse() : roots) {
      const res = await child(r.root, args.includes('--profile') && round === 0);
      got.get(r.name)!.push(...res.samples);
      if (res.profile) profiles.set(r.name, res.profile);
      process.stderr.write(`round ${round + 1}/${rounds} ${r.name}: mean ${mean(res.samples.map((s) => s.cpu)).toFixed(1)} ms\n`);
    }
  }
  const sums = new Map([...got].map(([k, v]) => [k, summary(v)]));
  const mine = sums.get('this')!;
  console.log(`${files} distinct 1,000-line files x ${rounds} rounds, CPU ms per prune() (analysis cache off)`);
  console.log(compare ? 'language | files | compared p50 | mean | this p50 | mean | mean ratio this/compared' : 'language | files | p50 | mean');
  for (const [lang, xs] of mine) {
    const n = xs.length / rounds;
    const row = [lang, n, pct(xs, 0.5).toFixed(1), mean(xs).toFixed(1)];
    const other = sums.get('compared')?.get(lang);
    if (other) {
      row.splice(2, 0, pct(other, 0.5).toFixed(1), mean(other).toFixed(1));
      row.push((mean(xs) / mean(other)).toFixed(2));
    }
    console.log(row.join(' | '));
  }
  for (const [name, prof] of profiles) {
    console.log(`\nprofile (${name}), share of sampled time by skim file (with what it calls):`);
    for (const [k, v] of Object.entries(prof)) console.log(`  ${(v * 100).toFixed(1)}%  ${k}`);
  }
}
