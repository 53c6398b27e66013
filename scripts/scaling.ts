/**
 * Time of prune() on large and degenerate inputs (issue #20: linear time, at least 1 MB/s):
 *
 *   npx tsx scripts/scaling.ts [--lib dist/index.js] [--timeout 60] [--only NAME] [--md]
 *
 * Each case runs in its own child process (a case that does not finish within --timeout seconds is
 * reported as such, not waited for), after a warm-up prune, with the shipped model. Figures: wall
 * and CPU time of the one prune() call (CPU time includes V8's helper threads: garbage collection
 * and WebAssembly compilation run beside the main thread) and MB of input per wall-clock second.
 * --lib points at another build (e.g. an older checkout's dist/index.js) to compare.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');

interface Case {
  name: string;
  language: string;
  mode: 'adaptive' | 'ratio 4' | 'maxChars 4000';
  make: () => string;
}

const logging = () => readFileSync(join(ROOT, 'examples', 'logging.py'), 'utf8');
const repeatTo = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length));

function generatedPython(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const k = i % 10;
    out.push(k === 0 ? `def f${i}(x, y):` : k === 9 ? `    return x + y  # end ${i}` : `    x = y * ${i} + compute(x, "s${i}")`);
  }
  return `${out.join('\n')}\n`;
}

const CASES: Case[] = [
  { name: 'real python 1 MB (logging.py x34)', language: 'python', mode: 'adaptive', make: () => repeatTo(logging(), 1_000_000) },
  { name: 'real python 1 MB (logging.py x34)', language: 'python', mode: 'ratio 4', make: () => repeatTo(logging(), 1_000_000) },
  { name: 'real python 1 MB (logging.py x34)', language: 'python', mode: 'maxChars 4000', make: () => repeatTo(logging(), 1_000_000) },
  { name: 'real python 4 MB (logging.py x134)', language: 'python', mode: 'adaptive', make: () => repeatTo(logging(), 4_000_000) },
  { name: 'real python 4 MB (logging.py x134)', language: 'python', mode: 'ratio 4', make: () => repeatTo(logging(), 4_000_000) },
  { name: 'generated python 100,000 lines', language: 'python', mode: 'adaptive', make: () => generatedPython(100_000) },
  { name: 'generated python 400,000 lines', language: 'python', mode: 'adaptive', make: () => generatedPython(400_000) },
  { name: 'generated python 1,000,000 lines', language: 'python', mode: 'adaptive', make: () => generatedPython(1_000_000) },
  {
    name: 'javascript nested 2,000 deep',
    language: 'javascript',
    mode: 'adaptive',
    make: () => 'function f(){\n'.repeat(2000) + 'return 1;\n' + '}\n'.repeat(2000),
  },
  {
    name: 'javascript nested 10,000 deep',
    language: 'javascript',
    mode: 'adaptive',
    make: () => 'function f(){\n'.repeat(10_000) + 'return 1;\n' + '}\n'.repeat(10_000),
  },
  {
    name: 'javascript nested 10,000 deep',
    language: 'javascript',
    mode: 'ratio 4',
    make: () => 'function f(){\n'.repeat(10_000) + 'return 1;\n' + '}\n'.repeat(10_000),
  },
  {
    name: 'python indented 2,000 deep (1 space more per line)',
    language: 'python',
    mode: 'adaptive',
    make: () => ['def f():', ...Array.from({ length: 2000 }, (_, i) => ' '.repeat(i + 1) + (i < 1999 ? `if x${i}:` : 'pass'))].join('\n') + '\n',
  },
  {
    name: 'brackets nested 100,000 deep, one line',
    language: 'javascript',
    mode: 'adaptive',
    make: () => `x = ${'['.repeat(100_000)}${']'.repeat(100_000)};\n`,
  },
  {
    name: 'python elif chain of 20,000',
    language: 'python',
    mode: 'adaptive',
    make: () =>
      ['def f(x):', '    if x == 0:', '        return 0', ...Array.from({ length: 20_000 }, (_, i) => `    elif x == ${i + 1}:\n        return ${i + 1}`)].join(
        '\n',
      ) + '\n',
  },
  { name: 'whitespace bomb: 5 MB of spaces, one line', language: 'python', mode: 'adaptive', make: () => ' '.repeat(5_000_000) },
  { name: 'whitespace bomb: 5 MB of spaces, one line', language: 'python', mode: 'ratio 4', make: () => ' '.repeat(5_000_000) },
  { name: '1,000,000 blank lines', language: 'python', mode: 'adaptive', make: () => '\n'.repeat(1_000_000) },
  { name: '150,000 short lines (`x = 1`)', language: 'python', mode: 'ratio 4', make: () => 'x = 1\n'.repeat(150_000) },
  { name: 'long distinct identifiers, 1 MB in 4,000-char lines', language: 'javascript', mode: 'adaptive', make: () => identifierLines(1_000_000) },
];

function identifierLines(chars: number): string {
  const out: string[] = [];
  let k = 0;
  let size = 0;
  while (size < chars) {
    const words: string[] = [];
    let len = 0;
    while (len < 4000) {
      const w = `v${(k++).toString(36)}`;
      words.push(w);
      len += w.length + 1;
    }
    const line = words.join(' ');
    out.push(line);
    size += line.length + 1;
  }
  return `${out.join('\n')}\n`;
}

const QUERY = 'where is compute called with x, and what does the handler return?';

async function runCase(c: Case, lib: string): Promise<void> {
  const mod = (await import(pathToFileURL(resolve(lib)).href)) as typeof import('../src/index.js');
  const code = c.make();
  const extra = c.mode === 'ratio 4' ? { ratio: 4 } : c.mode === 'maxChars 4000' ? { maxChars: 4000 } : {};
  await mod.prune({ code: 'def f():\n    return 1\n'.repeat(30), language: c.language, query: QUERY, ...extra });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await mod.prune({ code, language: c.language, query: QUERY, ...extra });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const lines = code.split('\n').length - (code.endsWith('\n') ? 1 : 0);
  process.stdout.write(
    JSON.stringify({
      chars: code.length,
      lines,
      wallMs: wall,
      cpuMs: (cpu.user + cpu.system) / 1000,
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      warnings: r.warnings ?? [],
    }),
  );
}

function main(): void {
  const argv = process.argv.slice(2);
  const opt = (k: string) => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const lib = opt('--lib') ?? join(ROOT, 'src', 'index.ts');
  const single = opt('--case');
  if (single !== undefined) {
    void runCase(CASES[Number(single)]!, lib).catch((err) => {
      process.stderr.write(String(err?.stack ?? err));
      process.exit(1);
    });
    return;
  }
  const timeout = Number(opt('--timeout') ?? 60) * 1000;
  const only = opt('--only');
  const md = argv.includes('--md');
  if (md)
    process.stdout.write(
      '| input | mode | MB | lines | wall s | CPU s | MB/s (wall) | tokens out/in | warnings |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n',
    );
  CASES.forEach((c, i) => {
    if (only && !c.name.includes(only)) return;
    const p = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', String(i), '--lib', lib], {
      cwd: ROOT,
      timeout,
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    let row: string;
    if (p.error || p.status !== 0) {
      const why =
        p.signal === 'SIGTERM' || (p.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT'
          ? `> ${timeout / 1000} s (stopped)`
          : `failed: ${(p.stderr || String(p.error)).split('\n')[0]}`;
      row = md ? `| ${c.name} | ${c.mode} | | | ${why} | | | | |` : `${c.name} [${c.mode}]: ${why}`;
    } else {
      const r = JSON.parse(p.stdout) as {
        chars: number;
        lines: number;
        wallMs: number;
        cpuMs: number;
        tokensIn: number;
        tokensOut: number;
        warnings: string[];
      };
      const mb = r.chars / 1e6;
      const warn = r.warnings.map((w) => w.slice(0, 70)).join('; ');
      row = md
        ? `| ${c.name} | ${c.mode} | ${mb.toFixed(2)} | ${r.lines.toLocaleString('en')} | ${(r.wallMs / 1000).toFixed(2)} | ${(r.cpuMs / 1000).toFixed(2)} | ${(mb / (r.wallMs / 1000)).toFixed(2)} | ${r.tokensOut}/${r.tokensIn} | ${warn} |`
        : `${c.name} [${c.mode}]: ${mb.toFixed(2)} MB, ${r.lines} lines: wall ${(r.wallMs / 1000).toFixed(2)} s, cpu ${(r.cpuMs / 1000).toFixed(2)} s, ${(mb / (r.wallMs / 1000)).toFixed(2)} MB/s; ${r.tokensOut}/${r.tokensIn} tokens; ${warn}`;
    }
    process.stdout.write(`${row}\n`);
  });
}

main();
