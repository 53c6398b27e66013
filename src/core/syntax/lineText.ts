/** Line-level text heuristics shared by the tree walker and the fallback index. */
import { grammarSpec } from './lang/index.js';
import { languageInfo } from './languages.js';

export function leadingWhitespace(line: string): string {
  const m = /^[ \t]*/.exec(line);
  return m ? m[0] : '';
}

/** The file's indentation unit: a tab, or the smallest common step of leading spaces (default 4). */
export function detectIndentUnit(lines: readonly string[]): string {
  let min = 0;
  const limit = Math.min(lines.length, 400);
  for (let i = 0; i < limit; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    if (l[0] === '\t') return '\t';
    const w = leadingWhitespace(l).length;
    if (w > 0 && (min === 0 || w < min)) min = w;
  }
  return ' '.repeat(min >= 2 && min <= 8 ? min : 4);
}

/** Remove a trailing line comment (naively: outside quotes) so closers like `}  // end if` are seen. */
export function stripLineComment(text: string, prefix: string | null): string {
  if (!prefix) return text;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (text.startsWith(prefix, i)) return text.slice(0, i);
  }
  return text;
}

const BRACKET_CLOSER = /^[)\]}]+[)\]};,]*$/;
const END_CLOSER = /^(end|fi|done|esac|endif|endfor|endforeach|endwhile|endswitch)\b[\s)\]};,]*$/;

/** A test for lines that only close brackets/blocks ("}", "});", ")", "end", "#endif"), made once per language. */
export function closerTest(language: string): (text: string) => boolean {
  const info = languageInfo(language);
  const endStyle = info.blockEnd === 'end';
  // `#endif` closes a block where the grammar says so (C, C++, C#), and in files without a grammar
  const spec = grammarSpec(language);
  const preproc = spec ? spec.endTokens?.has('#endif') === true : !info.hasGrammar;
  const php = language === 'php';
  return (text: string) => {
    // cheap first-character filter: most lines are not closers
    let i = 0;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    const c = text[i];
    if (c !== ')' && c !== ']' && c !== '}' && c !== 'e' && c !== 'f' && c !== 'd' && c !== '#') return false;
    let t = text.trim();
    if (t.length > 60) return false;
    t = stripLineComment(t, info.lineComment)
      .replace(/\/\*.*?\*\/\s*$/, '')
      .trim();
    if (t.length === 0) return false;
    if (BRACKET_CLOSER.test(t.replace(/\s+/g, ''))) return true;
    if (t.startsWith('#endif')) return preproc;
    if (!END_CLOSER.test(t)) return false;
    // `end` closes blocks only in end-style languages (ruby, lua, shell) and php's alternative syntax
    return endStyle || (php && t.startsWith('end'));
  };
}

/** A line that only closes brackets/blocks: "}", "});", ")", "end", "#endif". */
export function closerLine(text: string, language: string): boolean {
  return closerTest(language)(text);
}

export interface IdentifierScanOptions {
  /** Line comment prefix(es): scanning stops there. */
  lineComments: readonly string[];
  /** Words that are not identifiers (keywords). */
  keywords: ReadonlySet<string>;
  /** `'` starts a lifetime/label rather than a string when not closed right away (rust). */
  lifetimes?: boolean;
  /** Strip `$` sigils (php variables). */
  dollarSigil?: boolean;
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c > 127;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/**
 * Identifiers on a line outside strings and comments, in order, unique, keywords excluded.
 * Lexical on purpose: one pass over the characters is far cheaper than visiting every leaf of the tree.
 */
export function identifiersIn(text: string, from: number, opts: IdentifierScanOptions): string[] {
  const out: string[] = [];
  const seen = new Set<string>(); // (a list search per word is quadratic on a 4,000-character line)
  const limit = Math.min(text.length, 4000);
  let i = from;
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39 || c === 96) {
      // string literal: skip to the closing quote on this line (or the line end)
      if (c === 39 && opts.lifetimes && text.charCodeAt(i + 2) !== 39 && !(text.charCodeAt(i + 1) === 92)) {
        i++;
        continue;
      }
      i++;
      while (i < limit && text.charCodeAt(i) !== c) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) break;
      i = end + 2;
      continue;
    }
    if (c === 47 || c === 35 || c === 45) {
      let comment = false;
      for (const p of opts.lineComments) if (text.startsWith(p, i)) comment = true;
      if (comment) break;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < limit && isIdentPart(text.charCodeAt(j))) j++;
      let w = text.slice(i, j);
      if (opts.dollarSigil && w.charCodeAt(0) === 36) w = w.slice(1);
      if (w && !opts.keywords.has(w) && !seen.has(w)) {
        seen.add(w);
        out.push(w);
      }
      i = j;
      continue;
    }
    if (c >= 48 && c <= 57) {
      // numbers, including 0x1F and 1e10: skip the whole literal
      while (i < limit && isIdentPart(text.charCodeAt(i))) i++;
      continue;
    }
    i++;
  }
  return out;
}
