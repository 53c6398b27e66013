/**
 * The real Repomix `--compress` output of a file, through the published package's own code
 * path: `repomix --compress` runs each file through `parseFile` (tree-sitter captures of
 * signatures/definitions joined by "⋮----" separators), falls back to the original content when
 * the language is unsupported, and trims the result (core/file/fileProcessContent.js,
 * fileProcess.js). Calling that function in-process gives byte-identical per-file output to the
 * CLI (test/bench/repomix.test.ts checks it against the CLI) without packing a temp dir per file.
 * Budgets do not apply: this is Repomix's natural compression. Kept lines are found by aligning
 * its output lines back onto the input (it trims indentation and some trailing syntax).
 */
import { countTokens } from '../../core/tokens/count.js';
import { loadOptional } from '../optional.js';
import type { BenchMethod, PreparedFile } from './types.js';

export const REPOMIX_SEPARATOR = '⋮----';

/** File extensions Repomix recognizes, for inputs without a path (grep observations). */
const EXT: Record<string, string> = {
  python: 'py',
  typescript: 'ts',
  tsx: 'tsx',
  javascript: 'js',
  go: 'go',
  rust: 'rs',
  java: 'java',
  c: 'c',
  cpp: 'cpp',
  c_sharp: 'cs',
  ruby: 'rb',
  kotlin: 'kt',
  php: 'php',
  swift: 'swift',
  css: 'css',
};

type Repomix = typeof import('repomix');
type RepomixConfig = Parameters<Repomix['parseFile']>[2];
let loaded: Promise<{ repomix: Repomix; config: RepomixConfig }> | undefined;

/** Repomix is a baseline, not part of skim: loaded on first use (a development dependency). */
function repomix(): Promise<{ repomix: Repomix; config: RepomixConfig }> {
  loaded ??= loadOptional<Repomix>('repomix', 'the repomix baseline').then((repomix) => {
    repomix.setLogLevel(-1); // silence its console logger
    const config = repomix.mergeConfigs(process.cwd(), {}, { output: { compress: true } } as never) as RepomixConfig;
    return { repomix, config };
  });
  return loaded;
}

/** Repomix's compressed rendering of one file's content (what its packed output shows for it). */
export async function repomixCompress(content: string, filePath: string): Promise<string> {
  const { repomix: r, config } = await repomix();
  const parsed = await r.parseFile(content, filePath, config);
  return (parsed ?? content).trim();
}

/**
 * Map each non-separator output line to an input line: the first match at or after the previous
 * match (output mostly follows the file), else the first match not yet mapped anywhere (some
 * grammars' captures come out of order, e.g. Rust doc comments). Input lines match when their
 * trimmed text equals the output line or starts with it (Repomix drops trailing `:`/`{`).
 */
export function alignKept(inputTexts: string[], output: string): Uint8Array {
  const keep = new Uint8Array(inputTexts.length);
  const trimmed = inputTexts.map((t) => t.trim());
  const matches = (i: number, o: string) => trimmed[i] !== '' && (trimmed[i] === o || trimmed[i].startsWith(o));
  let p = 0;
  for (const raw of output.split('\n')) {
    const o = raw.trim();
    if (o === '' || o === REPOMIX_SEPARATOR) continue;
    let found = -1;
    for (let i = p; i < trimmed.length && found < 0; i++) if (matches(i, o)) found = i;
    for (let i = 0; i < trimmed.length && found < 0; i++) if (!keep[i] && matches(i, o)) found = i;
    if (found < 0) continue;
    keep[found] = 1;
    p = found + 1;
  }
  return keep;
}

function pathFor(f: PreparedFile): string {
  if (f.file.path) return f.file.path;
  return `observation.${EXT[f.language] ?? 'txt'}`;
}

export const repomixMethod: BenchMethod = {
  name: 'repomix',
  kind: 'natural',
  async run(f) {
    // Repomix packs files, not tool output: give it the file text without `cat -n`/grep prefixes.
    const texts = f.doc.lines.map((l) => l.text);
    const content = f.doc.shape === 'raw' ? f.file.code : texts.join('\n') + '\n';
    const text = await repomixCompress(content, pathFor(f));
    return { text, keepMask: alignKept(texts, text), tokensOut: countTokens(text) };
  },
};
