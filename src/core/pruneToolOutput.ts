/**
 * One entry for whatever a tool printed: a read of one file (`cat F`, `nl -ba F | sed -n 'a,bp'`)
 * goes to the code pipeline (prune(): the file's syntax, its line numbers, the read policy and the
 * session's file memory); anything else to the output pipeline (pruneOutput()). Both answers carry
 * the text, which output lines they kept, and their warnings.
 */

import { pruneOutput } from './output/pruneOutput.js';
import { type FileRead, fileReadOf } from './output/readCommand.js';
import type { OutputResult } from './output/types.js';
import { prune } from './prune.js';
import type { SessionMemory } from './session/memory.js';
import type { PruneResult } from './types.js';

export interface ToolOutputRequest {
  text: string;
  command?: string;
  query?: string;
  task?: string;
  exitCode?: number | null;
  session?: SessionMemory;
  /** What the harness shows of a long output ("mini-swe-agent", "head:N", ...): lines it cuts are not remembered as shown. */
  outputLimit?: string;
  /** A read of one file longer than this is pruned to fit (default: what outputLimit shows whole; see PruneRequest). */
  fitChars?: number;
  /** 'latin1' when the output was not valid UTF-8 (one character per byte): stored so, for `skim show`. */
  encoding?: 'latin1';
  /** false: outputs fold by their rules alone, without the learned judgement of plain lines. */
  judge?: false;
  /** The text is not all the command printed (a capture dropped its middle): not a file's lines, so never pruned as a read. */
  partial?: boolean;
}

export type ToolOutputResult = { via: 'read'; read: FileRead; result: PruneResult } | { via: 'output'; result: OutputResult };

export async function pruneToolOutput(req: ToolOutputRequest, prunePipeline: typeof prune = prune): Promise<ToolOutputResult> {
  // past a dropped middle the lines are not the file's: markers would name the wrong file lines
  const read = req.partial ? null : fileReadOf(req.command);
  if (read)
    return {
      via: 'read',
      read,
      result: await prunePipeline({
        code: req.text,
        query: req.query ?? '',
        task: req.task,
        path: read.path,
        firstLine: read.firstLine,
        session: req.session,
        outputLimit: req.outputLimit,
        // a window the agent named is left to the harness's head and tail (see readWithinLimit)
        fitChars: read.range ? 0 : req.fitChars,
      }),
    };
  return {
    via: 'output',
    result: pruneOutput({
      text: req.text,
      command: req.command,
      query: req.query,
      task: req.task,
      exitCode: req.exitCode,
      memory: req.session?.outputs,
      judge: req.judge,
      outputLimit: req.outputLimit,
      encoding: req.encoding,
    }),
  };
}
