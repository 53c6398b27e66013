/**
 * Placeholders: where every statement of a block is omitted, a language that needs a statement
 * there (Python) gets one in the marker line, so the output still parses.
 */
import type { Placeholder } from '../layout/layout.js';
import type { KeepReason } from '../pipeline/types.js';
import type { SyntaxIndex } from '../types.js';

const indentOf = (s: string) => /^[ \t]*/.exec(s)![0];

/**
 * Segment-local line -> placeholder (text with indentation, and the block's last line) for each
 * block whose opener (the scope header, or a clause such as `else:` / `except:` inside it) is kept
 * but whose body keeps no statement. `placeholder` is the language's empty statement (`...`), or
 * null when a comment is enough (brace languages).
 */
export function computePlaceholders(mask: Uint8Array, syntax: SyntaxIndex, texts: string[], placeholder: string | null): Map<number, Placeholder> {
  const out = new Map<number, Placeholder>();
  if (!placeholder) return out;
  for (const s of syntax.scopes) {
    if (s.bodyStart <= s.headerEnd || s.bodyStart > s.end) continue;
    // Split the body at clause lines aligned with the header: if/elif/else, try/except/finally.
    const headerIndent = indentOf(texts[s.start] ?? '');
    let opener = s.start;
    let from = s.bodyStart;
    const end = Math.min(s.end, mask.length - 1);
    const close = (to: number) => {
      if (!mask[opener]) return;
      let firstOmitted = -1;
      for (let i = from; i <= to; i++) {
        if (mask[i]) {
          const kind = syntax.lines[i]?.kind;
          if (kind !== 'blank' && kind !== 'comment') return;
        } else if (firstOmitted < 0) firstOmitted = i;
      }
      if (firstOmitted >= 0 && !out.has(firstOmitted)) out.set(firstOmitted, { text: s.bodyIndent + placeholder, end: to });
    };
    for (let i = s.headerEnd + 1; i <= end; i++) {
      if (syntax.lines[i]?.kind === 'clause' && indentOf(texts[i] ?? '') === headerIndent) {
        close(i - 1);
        opener = i;
        from = i + 1;
      }
    }
    close(end);
  }
  return out;
}

/**
 * A block whose omitted body is one line keeps that line (reason `gap`) rather than a placeholder
 * marker standing for it: the run after the block would otherwise be split off and leave a marker
 * for a single line. Returns how many lines were kept; placeholders must then be computed again.
 */
export function keepOneLineBodies(
  local: Uint8Array,
  placeholders: Map<number, Placeholder>,
  texts: string[],
  reasons: (KeepReason | undefined)[],
  banned?: (k: number) => boolean,
): number {
  let kept = 0;
  for (const [k, ph] of placeholders) {
    // from the start of the omitted run: a body starts after its leading comments
    let from = k;
    while (from > 0 && !local[from - 1]) from--;
    let line = -1;
    let lines = 0;
    for (let i = from; i <= ph.end && lines < 2; i++) {
      if (!local[i] && (texts[i] ?? '').trim() !== '') {
        line = i;
        lines++;
      }
    }
    if (lines !== 1 || banned?.(line)) continue;
    local[line] = 1;
    reasons[line] = 'gap';
    kept++;
  }
  return kept;
}
