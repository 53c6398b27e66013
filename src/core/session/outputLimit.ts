/**
 * What of a pruned read reaches the agent under a harness's output limit (../outputLimit.ts):
 * session memory records only the lines the agent can have seen, so no later "unchanged since an
 * earlier read" marker stands for a line that was cut away.
 */
import { omittedRuns } from '../layout/layout.js';
import { type OutputLimit, visibleSpans } from '../outputLimit.js';
import type { Document } from '../types.js';

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
