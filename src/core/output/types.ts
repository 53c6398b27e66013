/**
 * Tool outputs (test runs, tracebacks, listings, diffs, scripts...): the types of the output
 * pipeline (pruneOutput.ts). An output is not a file: its lines are numbered 1..n as printed, and
 * what is folded away stays retrievable by a handle when the output is stored in a session.
 */
import type { Diagnostic } from '../diagnostics.js';
import type { LineModel } from './lineModel.js';
import type { OutputMemory } from './memory.js';

export interface OutputRequest {
  /** What the command printed (stdout and stderr merged, as a harness shows them). */
  text: string;
  /** The command that printed it, when known (`pytest -x tests/`, `ls -R src`). */
  command?: string;
  /** The agent's goal hint for this step (what it needs now). */
  query?: string;
  /** The run's overall task (the issue the agent was given). */
  task?: string;
  /** The command's exit status, when known. */
  exitCode?: number | null;
  /** Where the session keeps outputs: repeats fold against the previous run, markers carry a handle. */
  memory?: OutputMemory;
  /**
   * false: fold by the rules alone, without the learned judgement of which plain lines matter; a
   * model: judge with it instead of the shipped one (for fitting).
   */
  judge?: false | LineModel;
  /** Outputs shorter than this many lines come back whole (default MIN_OUTPUT_LINES). */
  minLines?: number;
  /**
   * What the harness shows of a long output (`SKIM_OUTPUT_LIMIT`: "N", "head:N", "head+tail:N",
   * "mini-swe-agent"): lines it cuts away are not remembered as shown.
   */
  outputLimit?: string;
  /**
   * 'latin1' when the output's bytes were not valid UTF-8 and `text` holds one character per byte:
   * kept with the stored output, so that `skim show` prints the bytes the command printed.
   */
  encoding?: 'latin1';
}

/** What a line is to the agent, by the shape's exact rules. */
export type LineRole =
  /** Always shown: failures, errors, the summary, the exit status. */
  | 'signal'
  /** Foldable by rule: passing tests, progress, download noise, frames outside the project. */
  | 'routine'
  /** Anything else: shown unless it repeats the lines around it or the previous run. */
  | 'plain';

/** Why a run of lines was folded (the marker says so). */
export type FoldReason = 'routine' | 'similar' | 'seen' | 'listing' | 'unlikely' | 'warnings';

export interface OutputFold {
  /** 1-based inclusive range of output lines. */
  from: number;
  to: number;
  reason: FoldReason;
  /**
   * A listing's folded directory, the kind of routine lines, where seen lines were shown ('previous
   * run'), the line of alike lines' example when it is folded too, or the diagnostics folded
   * (`80 warnings (52 unused_variables, 28 dead_code)`).
   */
  label?: string;
}

export interface OutputResult {
  text: string;
  /** The output shape recognised (`pytest`, `python-traceback`, `listing`, ..., `text`). */
  shape: string;
  /** Per output line: 1 when shown verbatim. */
  keepMask: Uint8Array;
  kept: [number, number][];
  omitted: [number, number][];
  folds: OutputFold[];
  /** The handle the omitted lines can be read back by (only when stored in a session). */
  handle: string | null;
  linesIn: number;
  charsIn: number;
  charsOut: number;
  warnings: string[];
  diagnostics: Diagnostic[];
}
