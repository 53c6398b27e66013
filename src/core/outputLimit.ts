/**
 * What a harness shows of a long tool output (mini-swe-agent keeps the first and last 5,000
 * characters of an output of 10,000 or more; MCP clients cut long results): the limit's spellings
 * and the character spans it lets through. Session memory (reads: session/outputLimit.ts; command
 * outputs: output/pruneOutput.ts) records only what lies inside them, and an answer longer than
 * the harness shows whole is pruned to fit (fitBudget), so that the harness does not cut it blindly.
 */

/** The harness shows the first `chars` characters (`head`), or an output under `chars` whole and else its first and last chars/2 (`head+tail`). */
export interface OutputLimit {
  chars: number;
  cut: 'head' | 'head+tail';
}

/** Named limits of known harnesses. */
export const OUTPUT_LIMIT_PRESETS: Record<string, OutputLimit> = {
  // mini-swe-agent's observation template: under 10,000 characters whole, else head and tail 5,000
  'mini-swe-agent': { chars: 10_000, cut: 'head+tail' },
};

const SPEC_RE = /^(?:(head|head\+tail):)?(\d{1,12})$/;

/** The accepted spellings, for messages: "N", "head:N", "head+tail:N" or a preset name. */
export const OUTPUT_LIMIT_HELP = `N (the first N characters), head:N, head+tail:N, or ${Object.keys(OUTPUT_LIMIT_PRESETS).join(', ')}`;

/** "mini-swe-agent", "20000", "head:20000", "head+tail:10000" -> the limit; null when not one of these. */
export function parseOutputLimit(spec: string): OutputLimit | null {
  const s = spec.trim();
  if (Object.hasOwn(OUTPUT_LIMIT_PRESETS, s)) return OUTPUT_LIMIT_PRESETS[s];
  const m = SPEC_RE.exec(s);
  if (!m) return null;
  return { chars: Number(m[2]), cut: (m[1] ?? 'head') as OutputLimit['cut'] };
}

/** The characters the harness shows from the start of a long output: all of a head cut, half of a head+tail one. */
export function headChars(limit: OutputLimit): number {
  return limit.cut === 'head' ? limit.chars : Math.floor(limit.chars / 2);
}

/** The fewest characters worth fitting an answer to: below them a fit would show markers only. */
export const MIN_FIT_CHARS = 500;

/**
 * The characters an answer may take for the harness to show it whole: under its limit, less room
 * for what the tool result adds after the answer (skim's warnings on stderr, a harness's notes):
 * 5% of the limit, at least 200 characters.
 */
export function shownWholeChars(limit: OutputLimit): number {
  const room = Math.max(200, Math.ceil(limit.chars * 0.05));
  return Math.max(0, limit.chars - room);
}

/** What to fit an answer to: `chars`, and the length from which the harness would cut an answer (`cutFrom`). */
export interface FitBudget {
  chars: number;
  cutFrom: number;
}

/**
 * What a request's answer must fit in: its own `fitChars` (an answer longer is cut), else what its
 * output limit shows whole (an answer of the limit's length is cut: of a head+tail limit, one of
 * `chars` or more; of a head limit, one over it); null when nothing is to be fitted (no limit,
 * `fitChars` 0, or too small a limit to be worth it).
 */
export function fitBudget(req: { fitChars?: number; outputLimit?: string }): FitBudget | null {
  const limit = req.outputLimit === undefined ? null : parseOutputLimit(req.outputLimit);
  const chars = req.fitChars ?? (limit ? shownWholeChars(limit) : 0);
  if (chars < MIN_FIT_CHARS) return null;
  const cutFrom = req.fitChars !== undefined || !limit ? chars + 1 : limit.cut === 'head+tail' ? limit.chars : limit.chars + 1;
  return { chars, cutFrom };
}

/**
 * The `fitChars` of an answer of `length` characters under the limit `spec`, for a tool that adds
 * notes after its answer (and so records only the limit's head as shown): what the limit shows
 * whole, less the `before` characters the tool result holds ahead of the answer, shared with the
 * answers still to follow (`parts`, this one included); 0, no fitting, when the harness would not
 * cut the result or too little is left to choose lines in.
 */
export function fitCharsFor(spec: string, length: number, { before = 0, parts = 1 } = {}): number {
  const fit = fitBudget({ outputLimit: spec });
  if (!fit) return 0;
  const room = Math.floor((fit.chars - before) / parts);
  return before + length >= fit.cutFrom && room >= MIN_FIT_CHARS ? room : 0;
}

/**
 * The limit as it applies to a part of a tool result that starts `written` characters in, when
 * what follows the answer moves a head+tail cut's tail: what remains of its head.
 */
export function limitAfter(spec: string, written: number): string {
  return `head:${Math.max(0, headChars(parseOutputLimit(spec)!) - written)}`;
}

/** The character spans [start, end) of an output of `length` characters that the harness shows. */
export function visibleSpans(length: number, limit: OutputLimit): [number, number][] {
  if (limit.cut === 'head') return [[0, Math.min(length, limit.chars)]];
  if (length < limit.chars) return [[0, length]];
  const half = headChars(limit);
  return [
    [0, half],
    [length - half, length],
  ];
}
