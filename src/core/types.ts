/**
 * Core types shared by every stage of the pipeline:
 *   ingest -> syntax -> score -> select -> repair -> render
 * Stages hand plain data to each other; nothing here knows about CLI/HTTP/MCP.
 */
import type { Diagnostic } from './diagnostics.js';
import type { SessionMemory } from './session/memory.js';

export type { Diagnostic, DiagnosticCode } from './diagnostics.js';

/** The shape of the text the agent read. */
export type InputShape =
  | 'raw' // a plain file
  | 'numbered' // `cat -n` / `nl -ba` output: "   12\tcode"
  | 'grep' // `grep -n` / `rg -n` output: "path:12:code", "path-13-code", "--"
  | 'multi'; // several files in one output: "==> a.py <==" headers (head/tail style)

/** One line of the input exactly as it arrived. */
export interface InputLine {
  /** 0-based position in the input. */
  index: number;
  /** Everything before the code: "   12\t", "src/a.py:12:", "" for raw input. Rendered verbatim. */
  prefix: string;
  /** The code part of the line (no prefix, no line terminator). */
  text: string;
  /** The line terminator that followed this line in the input: "\n", "\r\n" or "" (last line). */
  eol: string;
  /** Line number in its file (1-based) when known (numbered/grep/raw); null for structural lines. */
  lineNo: number | null;
  /** Index of the segment this line belongs to, or -1 for structural lines ("--", "==> a <==", blank separators). */
  segment: number;
  /** For grep input: true for a match line ("path:12:"), false for a context line ("path-12-"). */
  isMatch?: boolean;
}

/** A run of input lines that belong to one file (a whole file, or the fragments grep showed of it). */
export interface Segment {
  /** Position of this segment in Document.segments. */
  id: number;
  /** File path when the input names one (grep, multi, or the caller's `path`). */
  path?: string;
  /** tree-sitter language name ("python", "typescript", "tsx", "c_sharp", ...) or a fallback name ("kotlin", "text"). */
  language: string;
  /** Input indexes (InputLine.index) of this segment's lines, in order. */
  lines: number[];
  /** True when the lines are contiguous lines of the file (raw/numbered), false for grep fragments. */
  contiguous: boolean;
}

export interface Document {
  shape: InputShape;
  lines: InputLine[];
  segments: Segment[];
  /** Dominant line terminator of the input. */
  eol: '\n' | '\r\n';
  /** Whether the input ended with a line terminator. */
  finalNewline: boolean;
  /**
   * Session memory: per input line, 1 when the session was shown this line before, unchanged.
   * Omitted runs of such lines get an "unchanged since an earlier read" marker of their own.
   */
  seen?: Uint8Array;
  /**
   * For seen lines that moved since they were shown (lines inserted or deleted above them): the
   * line's earlier number minus its current one (0: shown at its own number).
   */
  seenShift?: Int32Array;
}

// ---------------------------------------------------------------------------
// Syntax index (per segment; all line numbers are 0-based indexes into the segment's lines)

export type LineKind =
  | 'blank'
  | 'comment'
  | 'docstring'
  | 'import'
  | 'decorator'
  | 'header' // first line of a function/class/method/struct/impl/... definition
  | 'clause' // else/elif/except/finally/catch/case/default line
  | 'closer' // a line that only closes brackets/blocks: "}", "});", "end", ")"
  | 'code';

export interface Scope {
  /** Kind of syntax node: "function", "class", "method", "if", "for", "try", ... (normalized). */
  kind: string;
  /** Name when the scope defines one (function/class name). */
  name?: string;
  /** First line of the node (decorators excluded). */
  start: number;
  /** Last line of the header (a multi-line signature ends here), >= start. */
  headerEnd: number;
  /** First line of the body (may equal headerEnd for `{` on the same line as a one-liner). */
  bodyStart: number;
  /** Last line of the node (the closing brace / `end` / last body line for Python). */
  end: number;
  /** Decorator/attribute/annotation lines attached above `start`. */
  decorators: number[];
  /** Indentation (leading whitespace) of the body's first line, used for placeholders. */
  bodyIndent: string;
  /** True for definitions (function/class/...), false for control-flow blocks. */
  isDefinition: boolean;
}

export interface LineSyntax {
  kind: LineKind;
  /** Number of enclosing scopes. */
  depth: number;
  /** Indexes into SyntaxIndex.scopes of the enclosing scopes, outermost first. */
  scopes: number[];
  /** Symbols defined on this line (function/class/variable/const names). */
  defines: string[];
  /** Identifiers used on this line (excluding those it defines). */
  uses: string[];
  /** First line of the (possibly multi-line) statement this line belongs to. */
  stmtStart: number;
  /** Last line of that statement. */
  stmtEnd: number;
  /** Lines that close brackets/blocks opened on this line (e.g. the matching "}" line). */
  closers: number[];
  /** Paired clause lines: try<->except/finally, if<->elif/else, switch<->case. */
  pairs: number[];
}

export interface SyntaxIndex {
  language: string;
  /** True when a tree-sitter grammar produced this index; false for the indentation/bracket fallback. */
  hasGrammar: boolean;
  /** True when the grammar parsed the text without ERROR/MISSING nodes. */
  parseOk: boolean;
  lines: LineSyntax[];
  scopes: Scope[];
  /** symbol -> lines that define it. */
  definitions: Map<string, number[]>;
  /** bound name -> import line that binds it. */
  imports: Map<string, number>;
  /**
   * Per line: the first line of the item an attribute/decorator/annotation/doc comment line belongs
   * to, or -1 (syntax/attachments.ts). Absent: no such links.
   */
  attachedTo?: Int32Array;
  /** Per line: 1 when it lies inside a multi-line string or template literal (not its first or last line). Absent: not known. */
  insideString?: Uint8Array;
}

// ---------------------------------------------------------------------------
// Scoring

export interface ScoreInput {
  query: string;
  /** Code text of each line of the segment (no prefixes). */
  lines: string[];
  syntax: SyntaxIndex;
  language: string;
  path?: string;
}

export interface LineScores {
  /** Per-line keep probability (marginal) in [0,1]. */
  keep: Float64Array;
  /** Document-level relevance in [0,1]. */
  docScore: number;
  /** Optional per-line rubric gate weight of the semantic rubric (dependency = 1 - semantic). */
  gateSemantic?: Float64Array;
  /** Optional Viterbi keep path of the fused CRF. */
  viterbi?: Uint8Array;
}

export interface Scorer {
  readonly name: string;
  /** Threshold-mode default for this scorer's probabilities (calibrated for high recall). */
  readonly defaultThreshold?: number;
  /**
   * Threshold mode (with the default threshold) also drops lines scoring below this share of
   * the best line of their file: a file about the question keeps its relevant part, not all of it.
   */
  readonly relativeFloor?: number;
  /** Problems with the scorer itself (the corrupt model it stands in for), repeated on every result. */
  readonly diagnostics?: readonly Diagnostic[];
  score(input: ScoreInput): LineScores;
}

// ---------------------------------------------------------------------------
// Public request/result

export interface PruneRequest {
  /** The tool output to prune (a file, cat -n output, grep output, ...). */
  code: string;
  /** The agent's goal hint. Empty/missing => nothing is pruned unless a budget forces it. */
  query?: string;
  /** Force a language (tree-sitter name or common alias); otherwise detected from path/content. */
  language?: string;
  /** Path of the file, for language detection and markers. */
  path?: string;
  /** Budget mode: output tokens <= input tokens / ratio (markers included). */
  ratio?: number;
  /** Budget mode: output tokens <= tokens. */
  tokens?: number;
  /** Threshold mode: keep lines whose keep probability >= threshold. */
  threshold?: number;
  /**
   * Threshold mode, on a scale relative to the scorer's calibrated threshold τ: 0.5 is τ itself,
   * 1 keeps only lines the scorer is sure of, 0 keeps far more (τ' = τ^((1 - r) / 0.5)). For
   * clients whose thresholds mean something else (SWE-Pruner's wire format). `threshold` wins.
   */
  relativeThreshold?: number;
  /** Include per-line scores in the result. */
  explain?: boolean;
  /** Disable the repair stage (ablation). */
  repair?: boolean;
  /** Return small inputs whole (default true). */
  keepSmall?: boolean;
  /** 1-based input lines that are always kept (e.g. SWE-Pruner's always_keep_first_frags); counted in budgets. */
  pinLines?: number[];
  /**
   * Budget mode in characters: the output is at most this many characters, markers included
   * (an alternative to a harness cutting a long read to its head and tail).
   */
  maxChars?: number;
  /** The run's overall task (the issue or goal the agent was given), next to this read's `query`. */
  task?: string;
  /** Raw input that is a window of its file (`sed -n 120,180p`): the file line number of its first line. */
  firstLine?: number;
  /**
   * The input is grep output (`path:12:text`) over these files, known to the caller that ran the
   * search: its lines are read against these paths first, so a file named `a:5:b.py` is not taken
   * for line 5 of `a`.
   */
  grepFiles?: string[];
  /**
   * The read is a deliberate window of a file (`sed -n a,bp`, `head`, an offset/limit read) rather
   * than a whole file. Inferred when `firstLine` > 1 or numbered input starts past line 1.
   */
  window?: boolean;
  /**
   * With session memory: what the harness shows the agent of a long output ("mini-swe-agent",
   * "N", "head:N", "head+tail:N"; see core/session/outputLimit.ts). Lines cut away are not remembered.
   */
  outputLimit?: string;
  /**
   * The characters the answer must fit in for the harness to show it whole (default: from
   * `outputLimit`, less 5% for what follows the answer; 0: never fit). A read still longer is
   * pruned again in budget mode to this many characters, so the lines that best match the goal
   * hint are shown instead of the harness's head and tail.
   */
  fitChars?: number;
  /**
   * Session memory (see core/session): lines this session was shown before, unchanged, collapse
   * into "unchanged since an earlier read" markers, and what this result shows is remembered.
   */
  session?: SessionMemory;
}

export interface LineExplain {
  /** 1-based input line. */
  line: number;
  /** Keep score (3 significant digits: calibrated thresholds are small, e.g. 0.00254). */
  score: number;
  gateSemantic?: number;
  kept: boolean;
  /**
   * Why the line is kept: "score", "repair:header", "repair:closer", ..., or "whole" when the
   * input came back unchanged because pruning would not have saved tokens.
   */
  reason?: string;
}

/** Kept and omitted ranges of one file of the input, in its own line numbers. */
export interface FileRanges {
  path?: string;
  kept: [number, number][];
  omitted: [number, number][];
}

export interface PruneResult {
  text: string;
  /** Kept ranges, 1-based inclusive, in input line positions (for a raw file: its line numbers). */
  kept: [number, number][];
  omitted: [number, number][];
  /** For numbered, grep and multi-file input: the same per file, in the file's own line numbers. */
  files?: FileRanges[];
  /** Document relevance score in [0,1], rounded to 4 decimals. */
  score: number;
  tokensIn: number;
  tokensOut: number;
  /**
   * Present (true) when tokensIn/tokensOut are estimates (about 4 characters per token), not
   * o200k counts: an input over the size ceiling, or a server answer that failed open.
   */
  tokensEstimated?: boolean;
  language: string;
  ms: number;
  shape: InputShape;
  /** Name of the scorer that produced the keep probabilities ("lamr", "heuristic", ...). */
  scorer?: string;
  /** Threshold mode: the keep-probability threshold τ that was applied (absent in budget mode). */
  threshold?: number;
  /** Threshold mode: the scorer's calibrated τ, the one a `relativeThreshold` of 0.5 stands for. */
  calibratedThreshold?: number;
  /** Problems in the content, e.g. "binary input returned unchanged": the messages of `diagnostics`. */
  warnings: string[];
  /** The same problems with a stable code each (branch on `code`, show `message`). */
  diagnostics: Diagnostic[];
  /** Threshold mode: how the read policy judged this read (see core/policy). */
  policy?: string;
  /** Session memory: input lines collapsed because the session was shown them before, unchanged. */
  seenLines?: number;
  /** Per input line: was it kept (1) or omitted (0). Parallel to the input lines. */
  keepMask: Uint8Array;
  explain?: LineExplain[];
}
