/**
 * Line handling shared by the bench readers, baselines and metrics. A text's lines are what
 * skim's ingest sees: split on "\n" (a trailing "\r" stays with the line's eol), and a final
 * newline does not start an extra empty line. Line i (1-based) of a case label is lines[i-1].
 */

export interface SplitText {
  /** Full input lines, without terminators. */
  lines: string[];
  /** Terminator after each line ("\n", "\r\n" or "" for the last line without one). */
  eols: string[];
}

export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const eols: string[] = [];
  if (text === '') return { lines, eols };
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push(text.slice(start));
      eols.push('');
      break;
    }
    const cr = nl > start && text.charCodeAt(nl - 1) === 13;
    lines.push(text.slice(start, cr ? nl - 1 : nl));
    eols.push(cr ? '\r\n' : '\n');
    start = nl + 1;
  }
  return { lines, eols };
}

/** Prefix/code split of one observation line (numbered `cat -n`, `grep -n`). */
export interface PrefixedLine {
  prefix: string;
  text: string;
  /** File line number named by the prefix, or null. */
  lineNo: number | null;
}

const NUMBERED_RE = /^(\s*(\d+)\t)(.*)$/;
const GREP_RE = /^((?:[^\s:]+[:-])?(\d+)[:-])(.*)$/;

/**
 * Split numbered or grep-style lines into prefix and code when every non-blank line carries such a
 * prefix (so a plain file that happens to start with digits stays plain).
 */
export function splitPrefixes(lines: string[], kind: 'numbered' | 'grep' | 'raw'): PrefixedLine[] {
  if (kind === 'raw') return lines.map((text, i) => ({ prefix: '', text, lineNo: i + 1 }));
  const re = kind === 'numbered' ? NUMBERED_RE : GREP_RE;
  return lines.map((line) => {
    const m = re.exec(line);
    if (!m) return { prefix: '', text: line, lineNo: null };
    return { prefix: m[1], text: m[3], lineNo: Number(m[2]) };
  });
}

/** Guess the observation kind of a text: numbered (`cat -n`), grep (`path:12:`) or raw. */
export function guessKind(lines: string[]): 'numbered' | 'grep' | 'raw' {
  const nonBlank = lines.filter((l) => l.trim() !== '' && l !== '--');
  if (nonBlank.length === 0) return 'raw';
  if (nonBlank.every((l) => NUMBERED_RE.test(l))) return 'numbered';
  if (nonBlank.every((l) => GREP_RE.test(l))) return 'grep';
  return 'raw';
}
