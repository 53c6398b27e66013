/** One place that turns text into a tree: time limit, PHP open tag, never throws. */
import { Edit, type Parser, type Point, type Tree } from 'web-tree-sitter';
import { work } from '../work.js';

/** Abandon a parse after this long (pathological inputs); callers then fall back. */
const PARSE_TIME_LIMIT_MS = 3000;

/**
 * PHP code only parses as PHP after `<?php`; a fragment without it would be one `text` node.
 * The tag is put at the start of the first line so rows stay the same.
 */
export function phpPrefix(text: string): string {
  return /<\?(php|=)?/.test(text.slice(0, 50000)) ? '' : '<?php ';
}

/** What parseText puts before `text` in `language`. */
function sourcePrefix(text: string, language: string): string {
  return language === 'php' ? phpPrefix(text) : '';
}

/**
 * A parsed text kept for parsing edited copies of it (the pruned output of the input it is the
 * tree of): the caller owns `tree` and deletes it.
 */
export interface ParsedLines {
  tree: Tree;
  /** The lines parsed (joined by line breaks), without the PHP prefix. */
  lines: readonly string[];
  language: string;
  prefix: string;
}

/** `edited`: a tree of an earlier text, edited (Tree.edit) to match `text`; tree-sitter re-uses its unchanged parts. */
export function parseText(parser: Parser, text: string, language: string, edited?: Tree): Tree | null {
  const source = sourcePrefix(text, language) + text;
  work.parses++;
  work.parsedChars += source.length;
  if (edited) work.reparses++;
  const started = performance.now();
  try {
    const tree = parser.parse(source, edited ?? null, {
      progressCallback: () => performance.now() - started > PARSE_TIME_LIMIT_MS,
    });
    // a cancelled parse would otherwise resume on the next call
    if (!tree) parser.reset();
    return tree;
  } catch {
    parser.reset();
    return null;
  }
}

/** `lines` (joined by line breaks) parsed as parseText would, kept with what reparseLines needs. */
export function parseLines(parser: Parser, lines: readonly string[], language: string): ParsedLines | null {
  const text = lines.join('\n');
  const tree = parseText(parser, text, language);
  return tree ? { tree, lines, language, prefix: sourcePrefix(text, language) } : null;
}

/**
 * The tree of `lines` (joined by line breaks), parsed with what it shares with `old`: `from[i]` is
 * the line of `old.lines` that line i is a copy of, or -1 (a pruned output: kept lines, markers,
 * placeholders). A copy of the old tree is edited where the texts differ and handed to the parse,
 * so tree-sitter re-uses the subtrees between the edits; the tree is the one a fresh parse gives.
 * Falls back to a fresh parse when nothing is shared. `old` is left as it was.
 */
export function reparseLines(parser: Parser, old: ParsedLines, lines: readonly string[], from: ArrayLike<number>): Tree | null {
  const text = lines.join('\n');
  const prefix = sourcePrefix(text, old.language);
  const edits = prefix === old.prefix ? lineEdits(old.lines, lines, from, prefix) : null;
  if (!edits) return parseText(parser, text, old.language);
  const edited = old.tree.copy();
  try {
    for (const e of edits) edited.edit(e);
    return parseText(parser, text, old.language, edited);
  } finally {
    edited.delete();
  }
}

/**
 * The edits that turn the text of `oldLines` into that of `newLines` (both joined by line breaks,
 * `prefix` before the first line of each), last first, so each is in the coordinates of the text
 * as the edits before it left it: one per stretch between lines that `from` pairs (checked equal,
 * in order). Null when no line is shared.
 */
export function lineEdits(oldLines: readonly string[], newLines: readonly string[], from: ArrayLike<number>, prefix = ''): Edit[] | null {
  const len = (ls: readonly string[], k: number) => ls[k]!.length + (k === 0 ? prefix.length : 0);
  // (the prefix is on the first line of both: a first line pairs only with a first line)
  const same = (i: number, j: number) => oldLines[j] === newLines[i] && (prefix === '' || (i === 0) === (j === 0));
  // start of each line in each text (line k's start; [n] = the text's length + 1)
  const starts = (ls: readonly string[]) => {
    const at = new Int32Array(ls.length + 1);
    for (let k = 0; k < ls.length; k++) at[k + 1] = at[k]! + len(ls, k) + 1;
    return at;
  };
  const oldAt = starts(oldLines);
  const newAt = starts(newLines);
  const oldLen = Math.max(0, oldAt[oldLines.length]! - 1);
  const newLen = Math.max(0, newAt[newLines.length]! - 1);
  const edits: Edit[] = [];
  let shared = 0;
  // the last pair (old line, new line) before the stretch
  let po = -1;
  let pn = -1;
  for (let i = 0; i <= newLines.length; i++) {
    let j: number;
    if (i === newLines.length) j = oldLines.length;
    else {
      j = from[i]!;
      if (!(j > po && j < oldLines.length && same(i, j))) continue;
      shared++;
    }
    if (j > po + 1 || i > pn + 1) {
      // old lines po+1..j-1 became new lines pn+1..i-1
      let os = oldAt[po + 1]!;
      let oe = oldAt[j]!;
      let ns = newAt[pn + 1]!;
      let ne = newAt[i]!;
      let start: Point = { row: po + 1, column: 0 };
      let oldEnd: Point = { row: j, column: 0 };
      let leadingBreak = false;
      if (j === oldLines.length) {
        // at the end: neither text ends with a line break, so the stretch takes the one before it
        oe = oldLen;
        ne = newLen;
        oldEnd = oldLines.length > 0 ? { row: oldLines.length - 1, column: len(oldLines, oldLines.length - 1) } : { row: 0, column: 0 };
        if (po >= 0) {
          os--;
          ns--;
          leadingBreak = true;
          start = { row: po, column: len(oldLines, po) };
        }
      }
      edits.push(
        new Edit({
          startIndex: os,
          oldEndIndex: oe,
          newEndIndex: os + (ne - ns),
          startPosition: start,
          oldEndPosition: oldEnd,
          newEndPosition: advance(start, newLines, pn + 1, i, leadingBreak, len),
        }),
      );
    }
    po = j;
    pn = i;
  }
  return shared > 0 ? edits.reverse() : null;
}

/**
 * Where text inserted at `start` ends: new lines from..to-1, each followed by a line break but the
 * last line of the text, after a line break of its own when `leadingBreak` (the stretch at the end).
 */
function advance(
  start: Point,
  lines: readonly string[],
  from: number,
  to: number,
  leadingBreak: boolean,
  len: (ls: readonly string[], k: number) => number,
): Point {
  if (leadingBreak) {
    // '\n' + lines from..to-1 joined by '\n' (to is the text's end)
    return to > from ? { row: start.row + (to - from), column: len(lines, to - 1) } : start;
  }
  if (to === lines.length && to > from) {
    // the last lines of a text with nothing shared after them: no break after the last one
    return { row: start.row + (to - from - 1), column: len(lines, to - 1) };
  }
  return { row: start.row + (to - from), column: 0 };
}
