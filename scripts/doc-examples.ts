/**
 * Example outputs in the documents, generated from the real command so they cannot drift.
 *
 *   npx tsx scripts/doc-examples.ts          # rewrite every example block
 *   npx tsx scripts/doc-examples.ts --check  # exit 1 if any block differs (test/docs/examples.test.ts)
 *
 * An example block is a fenced block right after a marker comment:
 *
 *   <!-- example: skim prune examples/logging.py --query "..." --ratio 4 | lines 1-30 -->
 *   ```text
 *   $ skim prune ...        (written by this script: the command, then its output)
 *   ```
 *
 * The command runs from the repository root (sources through tsx, the shipped model). After `|`:
 * `lines A-B` keeps output lines A..B, `head N` the first N, `from /REGEX/ N` the N lines from the
 * first that matches; `--no-command` leaves out the `$` line. A cut is shown as `...`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DOCUMENTS = ['README.md', 'docs/agents.md', 'docs/outputs.md'];
const BLOCK_RE = /<!-- example: (skim [^\n]*?) -->\n```(\w*)\n[\s\S]*?^```$/gm;

/** Split a command line the way a shell would for the quoting used here ("..." and '...'). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return words;
}

interface Example {
  command: string;
  args: string[];
  from: number;
  to: number;
  /** Start at the first output line matching this, and keep `to` lines. */
  start?: RegExp;
  showCommand: boolean;
}

function parseExample(spec: string): Example {
  const [command, ...filters] = spec.split(' | ').map((s) => s.trim());
  const ex: Example = { command, args: shellWords(command).slice(1), from: 1, to: Infinity, showCommand: true };
  for (const f of filters) {
    let m: RegExpExecArray | null;
    if ((m = /^lines (\d+)-(\d+)$/.exec(f))) [ex.from, ex.to] = [Number(m[1]), Number(m[2])];
    else if ((m = /^head (\d+)$/.exec(f))) ex.to = Number(m[1]);
    else if ((m = /^from \/(.+)\/ (\d+)$/.exec(f))) [ex.start, ex.to] = [new RegExp(m[1]), Number(m[2])];
    else if (f === '--no-command') ex.showCommand = false;
    else throw new Error(`unknown example filter "${f}" in: ${spec}`);
  }
  return ex;
}

function runSkim(args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', SKIM_SESSION: '', SKIM_TASK: '' },
    maxBuffer: 1 << 26,
  });
}

function render(ex: Example, fence: string): string {
  const out = runSkim(ex.args).replace(/\n$/, '').split('\n');
  if (ex.start) {
    const at = out.findIndex((l) => ex.start!.test(l));
    if (at < 0) throw new Error(`no output line matches ${ex.start} for: ${ex.command}`);
    [ex.from, ex.to] = [at + 1, at + ex.to];
  }
  const shown = out.slice(ex.from - 1, Math.min(out.length, ex.to));
  const lines = [...(ex.showCommand ? [`$ ${ex.command}`] : []), ...(ex.from > 1 ? ['...'] : []), ...shown, ...(ex.to < out.length ? ['...'] : [])];
  return `\`\`\`${fence}\n${lines.join('\n')}\n\`\`\``;
}

/** The document with every example block regenerated. */
export function regenerate(text: string): string {
  return text.replace(BLOCK_RE, (_all, spec: string, fence: string) => `<!-- example: ${spec} -->\n${render(parseExample(spec), fence)}`);
}

function main(): void {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const doc of DOCUMENTS) {
    const path = join(ROOT, doc);
    const before = readFileSync(path, 'utf8');
    const after = regenerate(before);
    if (after === before) continue;
    stale++;
    if (check) process.stderr.write(`${doc}: example output differs from the command's (run: npx tsx scripts/doc-examples.ts)\n`);
    else writeFileSync(path, after);
  }
  if (check && stale > 0) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
