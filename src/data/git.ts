/**
 * Thin wrappers over the `git` CLI: always argument arrays (never a shell string), streamed output
 * for history walks, and one long-lived `git cat-file --batch` process for blob reads.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { SkimError } from '../core/errors.js';

/** Run git to completion and return stdout (for small outputs only). */
export function gitOutput(repo: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', repo, ...args], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err)
        reject(
          new Error(
            `git ${args[0]} failed: ${
              String(stderr || err.message)
                .trim()
                .split('\n')[0]
            }`,
          ),
        );
      else resolve(stdout);
    });
  });
}

/** Fail with a one-line message when PATH is not the work tree of a git repository. */
export async function assertGitRepo(repo: string): Promise<string> {
  try {
    return (await gitOutput(repo, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    throw new SkimError(`not a git repository (or git is not installed): ${repo}`, 'ENOINPUT');
  }
}

/**
 * Stream the stdout of a git command line by line. Iterating the child's stdout chunk by chunk
 * keeps backpressure: git is paused while the consumer awaits (e.g. blob reads).
 */
export async function* gitLines(repo: string, args: string[]): AsyncGenerator<string> {
  const child = spawn('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4000) stderr += d;
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const spawnError = new Promise<never>((_, reject) => child.on('error', reject));
  spawnError.catch(() => {});
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      const text = rest + decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        yield text.slice(start, nl);
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    rest += decoder.end();
    if (rest) yield rest;
    finished = true;
  } finally {
    if (!finished) child.kill(); // the consumer stopped early (--max reached, error)
  }
  const code = await Promise.race([exited, spawnError]);
  if (code !== 0) throw new Error(`git ${args[0]} exited with ${code}: ${stderr.trim().split('\n')[0] ?? ''}`);
}

/** One `git cat-file --batch` process answering blob reads in order. */
export class BlobReader {
  private child: ChildProcessWithoutNullStreams;
  private buf: Buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(repo: string) {
    this.child = spawn('git', ['-C', repo, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.wake();
    });
    this.child.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.child.on('error', () => {
      this.closed = true;
      this.wake();
    });
    this.child.stderr.resume();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private async need(n: number): Promise<void> {
    while (this.buf.length < n) {
      if (this.closed) throw new Error('git cat-file exited early');
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** The blob's bytes, or null when the object is missing. Calls are serialized. */
  read(objectId: string): Promise<Buffer | null> {
    const p = this.queue.then(() => this.readOne(objectId));
    this.queue = p.catch(() => {});
    return p;
  }

  private async readOne(objectId: string): Promise<Buffer | null> {
    this.child.stdin.write(`${objectId}\n`);
    let nl = -1;
    for (;;) {
      nl = this.buf.indexOf(10);
      if (nl >= 0) break;
      await this.need(this.buf.length + 1);
    }
    const header = this.buf.subarray(0, nl).toString('utf8');
    this.buf = this.buf.subarray(nl + 1);
    if (header.endsWith(' missing') || header.endsWith(' ambiguous')) return null;
    const size = Number(header.split(' ')[2]);
    if (!Number.isFinite(size)) throw new Error(`unexpected cat-file reply: ${header}`);
    await this.need(size + 1);
    const body = Buffer.from(this.buf.subarray(0, size));
    this.buf = this.buf.subarray(size + 1);
    return body;
  }

  close(): void {
    if (!this.closed) this.child.stdin.end();
  }
}
