/**
 * The pruned output: kept lines byte for byte with their own line ends, each fold one marker line
 * that says what it hides, which lines (1-based, of the output as printed), and how to get them
 * back (`skim show HANDLE:a-b`), or that they were not stored.
 */
import type { OutputFold } from './types.js';

const WHAT: Record<OutputFold['reason'], (f: OutputFold, n: number) => string> = {
  routine: (f, n) => `${n} lines${f.label ? ` of ${f.label}` : ''}`,
  // the example is shown above the marker, or (folded too) named by its line
  similar: (f, n) => `${n} more lines like ${f.label ? `line ${f.label}` : 'the one above'}`,
  seen: (f, n) =>
    f.label === 'previous run'
      ? `${n} lines as in the previous run of this command`
      : f.label === 'above'
        ? `${n} lines repeating lines above`
        : `${n} lines shown earlier in this session`,
  unlikely: (f, n) => `${n} lines unlikely to matter here${f.label ? `, ${f.label}` : ''}`,
  listing: (f, n) => `${n} more ${f.label ?? 'entries'}`,
  warnings: (f, n) => `${n} lines of ${f.label ?? 'warnings'}`,
};

export function markerText(fold: OutputFold, handle: string | null): string {
  const n = fold.to - fold.from + 1;
  const range = `${fold.from}-${fold.to}`;
  const back = handle ? `; skim show ${handle}:${range}` : ', not stored';
  return `[skim: ${WHAT[fold.reason](fold, n)} omitted (${range})${back}]`;
}

export function renderOutput(lines: readonly string[], ends: readonly string[], folds: readonly OutputFold[], handle: string | null): string {
  const eol = ends.includes('\r\n') && !ends.includes('\n') ? '\r\n' : '\n';
  let out = '';
  let f = 0;
  for (let i = 0; i < lines.length; i++) {
    const fold = folds[f];
    if (fold && i === fold.from - 1) {
      out += markerText(fold, handle) + (fold.to === lines.length && ends[fold.to - 1] === '' ? '' : eol);
      i = fold.to - 1;
      f++;
      continue;
    }
    out += lines[i] + ends[i];
  }
  return out;
}

/** 1-based inclusive ranges of the lines a mask marks. */
export function rangesOf(mask: Uint8Array, value: 0 | 1): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== value) continue;
    if (out.length > 0 && out[out.length - 1][1] === i) out[out.length - 1][1] = i + 1;
    else out.push([i + 1, i + 1]);
  }
  return out;
}
