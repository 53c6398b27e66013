/**
 * The grep tool, in-process (no grep binary, no shell): a regular expression over the text files
 * under a path in the workspace, printed like `grep -rn` ("path:line:text"), bounded in files,
 * matches and characters, then optionally pruned for the agent's question. The pattern is RE2
 * syntax as it is (what models write for ripgrep or `grep -E`: `a|b`, `\(`, `\d`, `(?i)`), matched
 * in linear time; not the basic-regex dialect `skim grep` takes from GNU grep by default, since a
 * tool call has no shell habits to keep.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { focus, type PruneFn, type ToolContext } from './focus.js';
import { SkimError } from '../core/errors.js';
import { compileLinePattern, type LinePattern } from '../tools/linePattern.js';
import { readRegularFile } from '../tools/readCapped.js';
import { looksBinary, readWorkspaceFile } from './readFile.js';
import { type Workspace, WorkspaceError } from './workspace.js';

export const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__']);
export const MAX_MATCHES = 1000;
export const MAX_OUTPUT_CHARS = 256 * 1024;
const MAX_FILES = 50_000;
const MAX_SEARCH_FILE_BYTES = 4 * 1024 * 1024;
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
  if (pattern === '') throw new WorkspaceError('pattern must not be empty');
  try {
    return compileLinePattern(pattern);
  } catch (err) {
    throw err instanceof SkimError ? new WorkspaceError(err.message) : err;
  }
}

interface SearchState {
  out: string[];
  chars: number;
  matches: number;
  files: number;
  filesWithMatches: number;
  truncated: string | null;
}

export async function grepTool(ws: Workspace, prune: PruneFn, args: GrepArgs, tool: ToolContext = {}): Promise<string> {
  const regex = compilePattern(args.pattern);
  const glob = args.glob ? globMatcher(args.glob) : null;
  const start = await ws.resolve(args.path ?? '.');
  const state: SearchState = { out: [], chars: 0, matches: 0, files: 0, filesWithMatches: 0, truncated: null };

  if (start.isDirectory) await walk(ws, start.abs, regex, glob, state);
  else await searchFile(start.abs, start.rel, regex, state, args.path ?? start.rel);

  const where = args.path && args.path !== '.' ? args.path : 'the workspace';
  const globNote = args.glob ? ` (files matching ${args.glob})` : '';
  if (state.matches === 0) return `No matches for /${args.pattern}/ in ${where}${globNote} (${state.files} files searched).\n`;

  const output = `${state.out.join('\n')}\n`;
  const notes: string[] = [];
  const result = await focus(prune, output, args.context_focus_question, { notes, kind: 'grep', remembers: tool.remembers });
  if (state.truncated) notes.push(`[results cut: ${state.truncated}; narrow the pattern, path or glob]`);
  notes.push(`[${state.matches} matching lines in ${state.filesWithMatches} files]`);
  return `${result}${notes.join('\n')}\n`;
}

async function walk(ws: Workspace, dir: string, regex: LinePattern, glob: ((rel: string) => boolean) | null, state: SearchState): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable directory: skip, like grep -s
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (state.truncated) return;
    const abs = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) await walk(ws, abs, regex, glob, state);
      continue;
    }
    let file = abs;
    if (e.isSymbolicLink()) {
      // Follow links to files inside the root only; never links to directories (cycles, escapes).
      try {
        file = await realpath(abs);
        if (!ws.contains(file) || !(await stat(file)).isFile()) continue;
      } catch {
        continue;
      }
    } else if (!e.isFile()) continue;
    const rel = ws.toRel(abs);
    if (glob && !glob(rel)) continue;
    await searchFile(file, rel, regex, state);
  }
}

/** `named`: the path the agent gave, when it named this file itself (its read errors are the answer, not skipped). */
async function searchFile(abs: string, rel: string, regex: LinePattern, state: SearchState, named?: string): Promise<void> {
  if (state.files >= MAX_FILES) {
    state.truncated = `stopped after ${MAX_FILES} files`;
    return;
  }
  state.files++;
  let buf: Buffer;
  if (named !== undefined) buf = await readWorkspaceFile(abs, named, MAX_SEARCH_FILE_BYTES, 'read it in windows with read_file offset/limit');
  else {
    try {
      buf = await readRegularFile(abs, MAX_SEARCH_FILE_BYTES);
    } catch {
      return; // too large, vanished or unreadable: skipped, like grep -s
    }
  }
  if (looksBinary(buf)) return;
  const lines = buf.toString('utf8').split('\n');
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
    }
  }
}
