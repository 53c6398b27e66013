/** Line-level text heuristics shared by the tree walker and the fallback index. */
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

/** A line that only closes brackets/blocks: "}", "});", ")", "end", "#endif". */
export function closerLine(text: string, language: string): boolean {
  const info = languageInfo(language);
  let t = text.trim();
  if (t.length === 0 || t.length > 60) return false;
  t = stripLineComment(t, info.lineComment).replace(/\/\*.*?\*\/\s*$/, '').trim();
  if (t.length === 0) return false;
  if (BRACKET_CLOSER.test(t.replace(/\s+/g, ''))) return true;
  if (t.startsWith('#endif')) return language === 'c' || language === 'cpp' || !info.hasGrammar;
  if (!END_CLOSER.test(t)) return false;
  // `end` closes blocks only in end-style languages (ruby, lua, shell) and php's alternative syntax
  return info.blockEnd === 'end' || (language === 'php' && t.startsWith('end'));
}
