/**
 * Parse a streamed `git log -p -U0` into commits with their per-file hunks. Only hunk headers are
 * kept (the file before the commit is read from its blob), so a huge diff costs no memory.
 */
import { gitLines } from './git.js';

export interface Hunk {
  /** Lines oldStart..oldStart+oldCount-1 of the old file were removed (oldCount 0: pure insertion after line oldStart). */
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

export interface FileDiff {
  oldPath: string;
  newPath: string;
  /** Full object id of the file before the commit (null for added files). */
  oldBlob: string | null;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
  binary: boolean;
  hunks: Hunk[];
  added: number;
  deleted: number;
}

export interface CommitRecord {
  sha: string;
  parents: string[];
  time: number;
  message: string;
  files: FileDiff[];
}

const HEADER = '\x01C ';
const END = '\x01E';
/** Headers past this are not stored: the file is already far over any huge-diff limit. */
const MAX_HUNKS_PER_FILE = 5000;

export interface LogOptions {
  rev?: string;
  since?: string;
  max?: number;
}

/** The argument array of the history walk (exported for tests and the count). */
export function logArgs(o: LogOptions): string[] {
  const args = [
    '-c',
    'core.quotePath=false',
    'log',
    '-p',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    '--full-index',
    '-M',
    `--format=${HEADER}%H %ct %P%n%B%n${END}`,
  ];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.max !== undefined) args.push(`--max-count=${o.max}`);
  args.push(o.rev ?? 'HEAD', '--');
  return args;
}

/** Undo git's C-style quoting of a path ("a/\303\251.py" -> a/é.py). */
export function unquotePath(p: string): string {
  if (!p.startsWith('"') || !p.endsWith('"')) return p;
  const body = p.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
      continue;
    }
    const n = body[++i];
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(({ n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 } as Record<string, number>)[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

const stripPrefix = (p: string, prefix: string): string => {
  const u = unquotePath(p);
  return u.startsWith(prefix) ? u.slice(prefix.length) : u;
};

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Stream commits, newest first (git log order). */
export async function* readCommitLog(repo: string, o: LogOptions): AsyncGenerator<CommitRecord> {
  let cur: CommitRecord | null = null;
  let file: FileDiff | null = null;
  let inMessage = false;
  let msg: string[] = [];
  let pending = 0; // hunk body lines still to skip
  for await (const line of gitLines(repo, logArgs(o))) {
    if (line.startsWith(HEADER)) {
      if (cur) yield cur;
      const [sha, time, ...parents] = line.slice(HEADER.length).trim().split(' ');
      cur = { sha, time: Number(time), parents: parents.filter(Boolean), message: '', files: [] };
      file = null;
      inMessage = true;
      msg = [];
      pending = 0;
      continue;
    }
    if (!cur) continue;
    if (inMessage) {
      if (line === END) {
        inMessage = false;
        cur.message = msg.join('\n');
      } else msg.push(line);
      continue;
    }
    if (pending > 0) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file" does not count
      pending--;
      continue;
    }
    if (line.startsWith('diff --git ')) {
      file = { oldPath: '', newPath: '', oldBlob: null, status: 'modified', binary: false, hunks: [], added: 0, deleted: 0 };
      // paths from the header; --- / +++ / rename lines refine them (the header is ambiguous with spaces)
      const m = /^diff --git (a\/.*) (b\/.*)$/.exec(line) ?? /^diff --git ("a\/.*") ("b\/.*")$/.exec(line);
      if (m) {
        file.oldPath = stripPrefix(m[1], 'a/');
        file.newPath = stripPrefix(m[2], 'b/');
      }
      cur.files.push(file);
      continue;
    }
    if (!file) continue;
    const h = HUNK_RE.exec(line);
    if (h) {
      const hunk = {
        oldStart: Number(h[1]),
        oldCount: h[2] === undefined ? 1 : Number(h[2]),
        newStart: Number(h[3]),
        newCount: h[4] === undefined ? 1 : Number(h[4]),
      };
      file.deleted += hunk.oldCount;
      file.added += hunk.newCount;
      if (file.hunks.length < MAX_HUNKS_PER_FILE) file.hunks.push(hunk);
      pending = hunk.oldCount + hunk.newCount;
    } else if (line.startsWith('index ')) {
      const m = /^index ([0-9a-f]+)\.\./.exec(line);
      if (m && !/^0+$/.test(m[1])) file.oldBlob = m[1];
    } else if (line.startsWith('new file mode')) file.status = 'added';
    else if (line.startsWith('deleted file mode')) file.status = 'deleted';
    else if (line.startsWith('rename from ')) {
      file.status = 'renamed';
      file.oldPath = unquotePath(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) file.newPath = unquotePath(line.slice('rename to '.length));
    else if (line.startsWith('--- ') && line !== '--- /dev/null') file.oldPath = stripPrefix(line.slice(4).replace(/\t$/, ''), 'a/');
    else if (line.startsWith('+++ ') && line !== '+++ /dev/null') file.newPath = stripPrefix(line.slice(4).replace(/\t$/, ''), 'b/');
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
  }
  if (cur) yield cur;
}
