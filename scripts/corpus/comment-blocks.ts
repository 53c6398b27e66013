/**
 * Extracts (comment terms, code terms) pairs from whole repositories: every comment or docstring
 * block of a source file with the code lines around it (2 lines before, 12 after), both sides
 * reduced to skim's query terms (`terms()`: identifiers split, lower-cased, stemmed, stopwords
 * and keywords dropped). Comments describe the code next to them in the words people use, so
 * these pairs link behaviour words to identifiers from far more text than labelled queries.
 * Reads bare git mirrors at HEAD (`<mirrors>/<owner>+<name>/repo`); writes one line per block:
 * `repo \t comment terms \t code terms` (space-separated, unique).
 *
 *   npx tsx scripts/corpus/comment-blocks.ts --mirrors DIR --out .scratch/blocks.tsv
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { terms } from '../../src/core/features/lexical.js';

const HASH_COMMENT = new Set(['py', 'rb', 'sh']);
const SOURCE = /\.(py|rb|js|mjs|cjs|ts|tsx|go|rs|java|kt|c|h|cc|cpp|hpp|cs|php)$/;
const SKIP = /(^|\/)(node_modules|vendor|third_party|dist|build)\//;
const MAX_FILES_PER_REPO = 2500;
const MAX_FILE_BYTES = 200_000;
const BEFORE = 2;
const AFTER = 12;

/** Which lines are comment (or docstring) lines, and their text without the comment syntax. */
export function commentLines(lines: string[], ext: string): (string | null)[] {
  const out: (string | null)[] = new Array(lines.length).fill(null);
  const hash = HASH_COMMENT.has(ext) || ext === 'php';
  const slash = !HASH_COMMENT.has(ext);
  let block: string | null = null; // closing delimiter of an open block comment / docstring
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (block) {
      out[i] = t.replace(/\*\/.*$|"""|'''/g, '').replace(/^\*+/, '');
      if (t.includes(block)) block = null;
      continue;
    }
    if (slash && t.startsWith('/*')) {
      out[i] = t.replace(/^\/\*+!?|\*\/$/g, '');
      if (!t.includes('*/', 2)) block = '*/';
    } else if (slash && t.startsWith('//')) out[i] = t.replace(/^\/\/[/!]?/, '');
    else if (hash && t.startsWith('#') && !t.startsWith('#[') && !t.startsWith('#!')) out[i] = t.replace(/^#+/, '');
    else if (ext === 'py' && /^[rRuU]?("""|''')/.test(t)) {
      const q = t.includes('"""') ? '"""' : "'''";
      const rest = t.slice(t.indexOf(q) + 3);
      out[i] = rest.replace(q, '');
      if (!rest.includes(q)) block = q;
    }
  }
  return out;
}

function main(): void {
  const { values: args } = parseArgs({ options: { mirrors: { type: 'string' }, out: { type: 'string' } } });
  if (!args.out) throw new Error('missing --out');
  if (!args.mirrors) throw new Error('missing --mirrors');
  const mirrors = args.mirrors;
  const out = createWriteStream(args.out);
  let blocks = 0;
  for (const dir of readdirSync(mirrors).sort()) {
    const gitdir = join(mirrors, dir, 'repo');
    if (!existsSync(gitdir)) continue;
    const repo = dir.replace('+', '/');
    const listing = execFileSync('git', ['--git-dir', gitdir, 'ls-tree', '-r', '-l', 'HEAD'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const files: { oid: string; path: string }[] = [];
    for (const entry of listing.split('\n')) {
      const m = /^\d+ blob ([0-9a-f]+)\s+(\d+)\t(.+)$/.exec(entry);
      if (m && SOURCE.test(m[3]!) && !SKIP.test(m[3]!) && Number(m[2]) <= MAX_FILE_BYTES) files.push({ oid: m[1]!, path: m[3]! });
    }
    files.sort((a, b) => (a.oid < b.oid ? -1 : 1));
    const chosen = files.slice(0, MAX_FILES_PER_REPO);
    // One git process for all blobs of the repository.
    const res = spawnSync('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { input: chosen.map((f) => f.oid).join('\n') + '\n', maxBuffer: 1 << 30 });
    const buf = res.stdout;
    let pos = 0;
    let repoBlocks = 0;
    for (const f of chosen) {
      const nl = buf.indexOf(10, pos);
      const size = Number(buf.toString('latin1', pos, nl).split(' ')[2]);
      const text = buf.toString('utf8', nl + 1, nl + 1 + size);
      pos = nl + 1 + size + 1;
      const lines = text.split('\n');
      const comments = commentLines(lines, f.path.split('.').pop()!);
      for (let i = 0; i < lines.length; i++) {
        if (comments[i] === null || (i > 0 && comments[i - 1] !== null)) continue;
        let j = i;
        let words = '';
        while (j < lines.length && comments[j] !== null) words += ' ' + comments[j++];
        let code = '';
        for (let k = Math.max(0, i - BEFORE); k < Math.min(lines.length, j + AFTER); k++) if (comments[k] === null) code += ' ' + lines[k];
        const nlTerms = [...new Set(terms(words, { keepCompound: false }))];
        const codeTerms = [...new Set(terms(code))];
        if (nlTerms.length < 2 || codeTerms.length < 2) continue;
        out.write(`${repo}\t${nlTerms.slice(0, 24).join(' ')}\t${codeTerms.slice(0, 48).join(' ')}\n`);
        blocks++;
        repoBlocks++;
      }
    }
    console.error(`${repo}: ${chosen.length} files, ${repoBlocks} blocks`);
  }
  out.end();
  console.error(`${blocks} blocks`);
}

if (process.argv[1]?.endsWith('comment-blocks.ts')) main();
