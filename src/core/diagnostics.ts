/**
 * Diagnostics: problems in the content, reported on the result instead of thrown (misuse throws
 * SkimError). Each has a stable `code` that callers branch on and the human `message` that
 * surfaces show as a warning; the text of a message is for people and may change, the code not.
 */

export type DiagnosticCode =
  /** The learned model could not be used; the heuristic scored instead. */
  | 'model-unavailable'
  /** The query (or task) was cut to MAX_QUERY_CHARS. */
  | 'query-truncated'
  | 'empty-input'
  /** Over MAX_PRUNE_CHARS / MAX_PRUNE_LINES: returned whole, token counts estimated. */
  | 'over-ceiling'
  | 'binary-input'
  /** Threshold mode without a query: nothing to prune for. */
  | 'no-query'
  /** A segment was indexed by the indentation/bracket fallback instead of a parse (size, depth). */
  | 'parse-skipped'
  /** The syntax index of a segment failed; the fallback was used. */
  | 'syntax-analysis-failed'
  | 'scorer-failed'
  | 'scorer-non-finite'
  /** The scorer's default threshold is not a probability: returned whole. */
  | 'scorer-threshold-unusable'
  /** Budget mode: the budget could not hold any line, so the output is markers only. */
  | 'budget-too-small'
  /** Budget mode: a pinned line did not fit the budget with the context it needs and is omitted. */
  | 'pin-dropped'
  /** Threshold mode: no line reached the threshold, every line was omitted as unrelated. */
  | 'nothing-relevant'
  /** Default mode: lines were omitted, and the best line matches the goal hint only weakly. */
  | 'weak-match'
  /** Default mode: lines were omitted from a read longer than the read policy was fitted on. */
  | 'long-read'
  /** The answer was pruned (further) to fit the harness's output limit (`outputLimit`, `fitChars`). */
  | 'fitted-to-limit'
  /** Syntax repair ran out of parsing work: the output may not parse. */
  | 'repair-stopped'
  /** Syntax repair could not make a segment parse and collapsed it to a marker. */
  | 'repair-collapsed'
  /** Threshold mode: the repaired output did not parse, the selection is shown without repair. */
  | 'repair-skipped'
  /** Threshold mode: no selection could be made to parse: returned whole. */
  | 'repair-failed'
  /** The input is not valid UTF-8: returned whole. */
  | 'invalid-utf8'
  /** The server could not prune (time limit, a failure in the core): returned whole. */
  | 'not-pruned'
  /** A tool output came back whole: binary, or over the size ceiling. */
  | 'output-whole'
  /** A session was given but the output could not be kept in it: its markers say "not stored". */
  | 'output-not-stored'
  /** The server's shared session store (Redis) could not be used: pruned without session memory, or not remembered. */
  | 'session-store-unavailable';

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly message: string;
}

export function diagnostic(code: DiagnosticCode, message: string): Diagnostic {
  return { code, message };
}

/** The human text of each diagnostic, in order: the `warnings` of a result. */
export function messagesOf(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => d.message);
}

export function hasCode(diagnostics: readonly Diagnostic[], code: DiagnosticCode): boolean {
  return diagnostics.some((d) => d.code === code);
}

/** Add `d` unless the same code and message is already there (several segments report one cause once). */
export function addOnce(diagnostics: Diagnostic[], d: Diagnostic): void {
  if (!diagnostics.some((x) => x.code === d.code && x.message === d.message)) diagnostics.push(d);
}
