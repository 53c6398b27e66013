/** What a client sends the daemon (./frames.ts carries it) and what the daemon answers. */
import type { TerminalInfo } from '../processStreams.js';

/**
 * The read commands the daemon runs for the CLI: each takes everything it needs from the request
 * (arguments, working directory, environment, stdin on demand, the terminals' shape). A command
 * that works this way is added here.
 */
export const DAEMON_COMMANDS: ReadonlySet<string> = new Set(['prune', 'cat', 'grep']);

/** One command line to run as the client would have run it itself. */
export interface RunRequest {
  /** The client's buildFingerprint(): a daemon of another build refuses and exits. */
  fingerprint: string;
  /** The arguments after `skim`. */
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdinIsTTY: boolean;
  stdinIsReadable: boolean;
  stdoutTerminal: TerminalInfo;
  stderrTerminal: TerminalInfo;
}

export type ControlRequest = { op: 'status' } | { op: 'stop' };

export interface DaemonInfo {
  pid: number;
  version: string;
  fingerprint: string;
  socket: string;
  startedAt: number;
  served: number;
  /** Requests in the queue or running. */
  queued: number;
  /** Requests waiting for their client's stdin (outside the queue). */
  waitingForStdin: number;
  rssBytes: number;
  idleExitMs: number;
  stopping: boolean;
}

/** Why a daemon did not run a request; the client then runs it itself. */
export interface Refusal {
  reason: 'build' | 'busy' | 'bad-request' | 'error' | 'stopping';
  message?: string;
}

/** The largest request frame (arguments, environment); stdin has its own cap, the input cap. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** A request as JSON, checked field by field (a peer on the socket is trusted only this far). */
export function asRunRequest(value: unknown): RunRequest | null {
  const r = value as Partial<RunRequest> | null;
  if (!r || typeof r !== 'object') return null;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((s) => typeof s === 'string');
  const terminal = (t: unknown): t is TerminalInfo =>
    !!t && typeof t === 'object' && typeof (t as TerminalInfo).hasColors === 'boolean' && ['number', 'undefined'].includes(typeof (t as TerminalInfo).columns);
  if (typeof r.fingerprint !== 'string' || !strings(r.args) || typeof r.cwd !== 'string') return null;
  if (!r.env || typeof r.env !== 'object' || !Object.values(r.env).every((v) => typeof v === 'string')) return null;
  if (typeof r.stdinIsTTY !== 'boolean' || typeof r.stdinIsReadable !== 'boolean') return null;
  if (!terminal(r.stdoutTerminal) || !terminal(r.stderrTerminal)) return null;
  if (!DAEMON_COMMANDS.has(r.args[0] ?? '')) return null;
  return r as RunRequest;
}
