/**
 * The grep tool, in-process (no grep binary, no shell): a regular expression over the text files
 * under a path in the workspace, printed like `grep -rn` ("path:line:text"), bounded in files,
 * matches and characters, then optionally pruned for the agent's question. The pattern is RE2
 * syntax as it is (what models write for ripgrep or `grep -E`: `a|b`, `\(`, `\d`, `(?i)`), matched
 * in linear time; not the basic-regex dialect `skim grep` takes from GNU grep by default, since a
 * tool call has no shell habits to keep.
 */
import picomatch from 'picomatch';
import { SkimError } from '../core/errors.js';
import { compileLinePattern, type LinePattern } from '../grep/linePattern.js';
import { decodeInput, isBinary, readFileBytes } from '../tools/fileTools.js';
import { walkFiles } from '../tools/walk.js';
import { focus, type PruneFn, type ToolContext } from './focus.js';
import type { Workspace } from './workspace.js';

export const MAX_MATCHES = 1000;
export const MAX_OUTPUT_CHARS = 256 * 1024;
const MAX_FILES = 50_000;
const MAX_SHOWN_LINE_CHARS = 500;

export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  context_focus_question?: string;
}

/** A glob without `/` matches the file name anywhere (like rg -g / skim grep --glob). */
export function globMatcher(glob: string): (rel: string) => boolean {
  return picomatch(glob, { dot: true, basename: !glob.includes('/') });
}

function compilePattern(pattern: string): LinePattern {
  if (pattern === '') throw new SkimError('pattern must not be empty', 'EUSAGE');
  return compileLinePattern(pattern);
}

interface SearchState {
  out: string[];
  chars: number;
  matches: number;
  files: number;
  filesWithMatches: number;
  /** The paths (as printed) of the files with matches. */
  matchedFiles: Set<string>;
  truncated: string | null;
}

export async function grepTool(ws: Workspace, prune: PruneFn, args: GrepArgs, tool: ToolContext = {}): Promise<string> {
  const regex = compilePattern(args.pattern);
  const glob = args.glob ? globMatcher(args.glob) : null;
  const start = await ws.resolve(args.path ?? '.');
  const state: SearchState = { out: [], chars: 0, matches: 0, files: 0, filesWithMatches: 0, matchedFiles: new Set(), truncated: null };

  if (start.isDirectory) await walk(ws, start.abs, regex, glob, state);
  else await searchFile(ws, start.abs, start.rel, regex, state, args.path ?? start.rel);

  const where = args.path && args.path !== '.' ? args.path : 'the workspace';
  const globNote = args.glob ? ` (files matching ${args.glob})` : '';
  if (state.matches === 0) return `No matches for /${args.pattern}/ in ${where}${globNote} (${state.files} files searched).\n`;

  const output = `${state.out.join('\n')}\n`;
  const notes: string[] = [];
  const result = await focus(prune, output, args.context_focus_question, {
    notes,
    kind: 'grep',
    remembers: tool.remembers,
    log: tool.log,
    grepFiles: [...state.matchedFiles],
  });
  if (state.truncated) notes.push(`[results cut: ${state.truncated}; narrow the pattern, path or glob]`);
  notes.push(`[${state.matches} matching lines in ${state.filesWithMatches} files]`);
  return `${result}${notes.join('\n')}\n`;
}

/**
 * The files below `dir` as every file tool walks (src/tools/walk.ts); a link is followed only to a
 * file inside the root (never to a directory: cycles, escapes).
 */
async function walk(ws: Workspace, dir: string, regex: LinePattern, glob: ((rel: string) => boolean) | null, state: SearchState): Promise<void> {
  const files = walkFiles(dir, { links: (t) => !t.isDirectory && ws.contains(t.real) });
  for await (const f of files) {
    if (state.truncated) return;
    const rel = ws.toRel(f.abs);
    if (glob && !glob(rel)) continue;
    await searchFile(ws, f.real ?? f.abs, rel, regex, state);
  }
}

/** `named`: the path the agent gave, when it named this file itself (its read errors are the answer, not skipped). */
async function searchFile(ws: Workspace, abs: string, rel: string, regex: LinePattern, state: SearchState, named?: string): Promise<void> {
  if (state.files >= MAX_FILES) {
    state.truncated = `stopped after ${MAX_FILES} files`;
    return;
  }
  state.files++;
  let buf: Buffer;
  // the file opened must be inside the root, whatever was swapped in since the walk saw it
  const inside = (real: string) => ws.contains(real);
  if (named !== undefined) buf = await readFileBytes(abs, named, inside);
  else {
    try {
      buf = await readFileBytes(abs, abs, inside);
    } catch {
      return; // too large, vanished or unreadable: skipped, like grep -s
    }
  }
  if (isBinary(buf)) return;
  const lines = decodeInput(buf).text.split('\n');
  let matchedHere = false;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].replace(/\r$/, '');
    if (!regex.test(text)) continue;
    if (state.matches >= MAX_MATCHES) {
      state.truncated = `first ${MAX_MATCHES} matching lines shown`;
      return;
    }
    const shown = text.length > MAX_SHOWN_LINE_CHARS ? `${text.slice(0, MAX_SHOWN_LINE_CHARS)} [... cut]` : text;
    const line = `${rel}:${i + 1}:${shown}`;
    if (state.chars + line.length + 1 > MAX_OUTPUT_CHARS) {
      state.truncated = `output limit of ${MAX_OUTPUT_CHARS} characters reached`;
      return;
    }
    state.out.push(line);
    state.chars += line.length + 1;
    state.matches++;
    if (!matchedHere) {
      matchedHere = true;
      state.filesWithMatches++;
      state.matchedFiles.add(rel);
    }
  }
}
