/**
 * Prune a tool's output for the agent's question, or return it untouched when there is no
 * question, the output is small, or pruning fails (fail open: the agent always gets its text).
 */
import { createLogger, type Logger } from '../log.js';
import { type PruneFn, readForAgent } from '../tools/readForAgent.js';

export type { PruneFn };

/** What a tool knows about the connection it serves. */
export interface ToolContext {
  /** The prune function carries the connection's session memory (see FocusOptions.remembers). */
  remembers?: boolean;
  /** The server's log (default: stderr). */
  log?: (line: string) => void;
}

export interface FocusOptions {
  path?: string;
  /** Notes for the agent, appended after the output by the caller. */
  notes: string[];
  kind: 'read_file' | 'grep';
  log?: (line: string) => void;
  /**
   * The prune function carries this connection's session memory: every output goes through it,
   * even without a question, so lines shown before fold into "unchanged" markers and what is
   * shown is remembered.
   */
  remembers?: boolean;
  /** Prune to at most this many characters (a whole file under a limit). */
  maxChars?: number;
  /** The file line number of the output's first line, for raw windows. */
  firstLine?: number;
  /** The files a grep output's lines name (the search knows them: a name may itself look like `a:5:b`). */
  grepFiles?: string[];
  /** The agent named the range (offset/limit/lines): without a question it is shown in full. */
  window?: boolean;
}

export async function focus(prune: PruneFn, output: string, question: string | undefined, opts: FocusOptions): Promise<string> {
  const q = question?.trim() ?? '';
  const req = { code: output, query: q, path: opts.path, maxChars: opts.maxChars, firstLine: opts.firstLine, grepFiles: opts.grepFiles, window: opts.window };
  const onFailure = (message: string) => (opts.log ?? stderrLog().warn)(`skim mcp: ${message}`);
  const { result: r } = await readForAgent(prune, req, { onFailure, remembers: opts.remembers });
  if (!r || r.omitted.length === 0) return output;
  const keptLines = r.keepMask.reduce((a, b) => a + b, 0);
  const seen = r.seenLines ?? 0;
  if (seen > 0)
    opts.notes.push(
      `[skim: ${seen} lines you were already shown in this session, unchanged, are folded into "unchanged since an earlier read" markers; they are above in your context]`,
    );
  if (seen === r.keepMask.length - keptLines) return withNewline(r.text); // nothing else omitted
  const reread =
    opts.kind === 'read_file'
      ? 'to see an omitted range "(a-b)", call read_file with lines="a-b"'
      : 'read_file the file with offset/limit to see omitted lines';
  // Nothing kept: the agent must learn that skim judged the output unrelated (not that it failed),
  // and how to see it anyway if that judgement is wrong. Lines folded as shown before are not
  // part of that judgement: the note counts only the lines it is about.
  const unseen = r.keepMask.length - seen;
  const anyway = `if you need them anyway, call ${opts.kind} again without context_focus_question, or `;
  let verdict: string;
  if (keptLines > 0) verdict = `kept ${keptLines} of ${r.keepMask.length} lines for the question (${r.tokensOut} of ${r.tokensIn} tokens); `;
  else if (seen > 0) verdict = `none of the ${unseen} lines not shown before looked relevant to the question, so they were omitted; ${anyway}`;
  else verdict = `nothing here looked relevant to the question (relevance ${r.score.toFixed(2)}), so all ${r.keepMask.length} lines were omitted; ${anyway}`;
  opts.notes.push(`[skim: ${verdict}${reread}]`);
  // the read policy's doubts (a weak match, a read longer than it was fitted on) and a fit to the
  // client's limit reach the agent too
  const told = new Set(['weak-match', 'long-read', 'fitted-to-limit']);
  for (const d of r.diagnostics) if (told.has(d.code)) opts.notes.push(`[skim: ${d.message}]`);
  return withNewline(r.text);
}

function withNewline(text: string): string {
  return text.endsWith('\n') || text === '' ? text : `${text}\n`;
}

/** Diagnostics on this process's stderr (src/log.ts). */
export function stderrLog(): Logger {
  return createLogger((text) => process.stderr.write(text));
}
