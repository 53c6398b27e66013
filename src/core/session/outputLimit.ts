/**
 * What reaches the agent: a harness may cut a long tool output before the model sees it
 * (mini-swe-agent keeps the first and last 5,000 characters of an output of 10,000 or more; MCP
 * clients cut long results). Session memory records only the lines the agent can have seen, so no
 * later "unchanged since an earlier read" marker stands for a line that was cut away.
 */
import { omittedRuns } from '../layout/layout.js';
import type { Document } from '../types.js';

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

/** The character spans [start, end) of an output of `length` characters that the harness shows. */
export function visibleSpans(length: number, limit: OutputLimit): [number, number][] {
  if (limit.cut === 'head') return [[0, Math.min(length, limit.chars)]];
  if (length < limit.chars) return [[0, length]];
  const half = Math.floor(limit.chars / 2);
  return [
    [0, half],
    [length - half, length],
  ];
}

/**
 * The kept lines of `mask` that lie wholly inside what the harness shows of `text` (the rendered
 * output: kept lines and one marker line per omitted range, `omitted` (the result's) or the mask's
 * omitted runs, in input order). Null when the output
 * does not have that shape: then nothing of it can be vouched for.
 */
export function visibleKept(doc: Document, mask: Uint8Array, text: string, limit: OutputLimit, omitted?: readonly [number, number][]): Uint8Array | null {
  const spans = visibleSpans(text.length, limit);
  if (spans.length === 1 && spans[0][0] === 0 && spans[0][1] >= text.length) return mask;
  const inView = (a: number, b: number) => spans.some(([s, e]) => a >= s && b <= e);
  const out = new Uint8Array(mask.length);
  // the result's omitted ranges are its markers (a run split after a placeholder's block is two)
  const runs = omitted ? omitted.map(([a, b]) => ({ start: a - 1, end: b - 1 })) : omittedRuns(doc, mask);
  let r = 0;
  let pos = 0;
  for (let i = 0; i < doc.lines.length; ) {
    if (mask[i]) {
      const l = doc.lines[i];
      const line = l.prefix + l.text;
      if (!text.startsWith(line, pos) || !text.startsWith(l.eol, pos + line.length)) return null;
      if (inView(pos, pos + line.length)) out[i] = 1;
      pos += line.length + l.eol.length;
      i++;
      continue;
    }
    const run = runs[r++];
    if (!run || run.start !== i) return null;
    const nl = text.indexOf('\n', pos);
    pos = nl === -1 ? text.length : nl + 1;
    i = run.end + 1;
  }
  return out;
}
