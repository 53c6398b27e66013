/**
 * A small indentation/regex SyntaxIndex for tests: an index whose every field can be checked by
 * hand, so a feature or label test does not depend on a grammar. Not a parser; prune() and the
 * trainer use src/core/syntax.
 */
import type { LineKind, LineSyntax, Scope, SyntaxIndex } from '../../src/core/types.js';

const HEADER_RE =
  /^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:def|class|function\*?|func|fn|impl|struct|trait|interface|enum|type\s+\w+\s+struct|module)\b\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)?/;
const CONTROL_RE = /^\s*(?:if|for|while|with|try|switch|match|loop)\b/;
const CLAUSE_RE = /^\s*(?:\}\s*)?(?:else|elif|except|finally|catch|case|default)\b/;
const IMPORT_RE = /^\s*(?:import\b|from\s+\S+\s+import\b|use\s+\S|#include\b|const\s+\{?[\w\s,]+\}?\s*=\s*require\()/;
const IDENT_RE = /[A-Za-z_$][\w$]*/g;

function indentOf(s: string): number {
  let k = 0;
  for (const ch of s) {
    if (ch === ' ') k++;
    else if (ch === '\t') k += 4;
    else break;
  }
  return k;
}

export function buildSimpleSyntaxIndex(lines: string[], language: string): SyntaxIndex {
  const n = lines.length;
  const scopes: Scope[] = [];
  const out: LineSyntax[] = [];
  const definitions = new Map<string, number[]>();
  const imports = new Map<string, number>();
  const stack: { scope: number; indent: number }[] = [];
  // a block ends at the last non-blank line before a line indented <= its header
  const lastNonBlankBefore = (i: number): number => {
    let j = i - 1;
    while (j > 0 && !lines[j].trim()) j--;
    return j;
  };
  for (let i = 0; i < n; i++) {
    const text = lines[i];
    const t = text.trim();
    const ind = indentOf(text);
    if (t) {
      while (stack.length && ind <= stack[stack.length - 1].indent && !/^[}\])]/.test(t)) {
        const top = stack.pop()!;
        scopes[top.scope].end = Math.max(scopes[top.scope].start, lastNonBlankBefore(i));
      }
      if (/^[}\])]/.test(t) && stack.length && ind <= stack[stack.length - 1].indent) {
        const top = stack.pop()!;
        scopes[top.scope].end = i;
      }
    }
    let kind: LineKind = 'code';
    const defines: string[] = [];
    if (!t) kind = 'blank';
    else if (/^(#|\/\/|\/\*|\*)/.test(t) && !/^#include/.test(t)) kind = 'comment';
    else if (/^@/.test(t)) kind = 'decorator';
    else if (IMPORT_RE.test(text)) kind = 'import';
    else if (CLAUSE_RE.test(text)) kind = 'clause';
    else if (/^[}\])];?,?$|^end$/.test(t)) kind = 'closer';
    const hm = kind === 'code' ? HEADER_RE.exec(text) : null;
    const cm = kind === 'code' && !hm ? CONTROL_RE.test(text) : false;
    const depthScopes = stack.map((s) => s.scope);
    if (hm || cm) {
      if (hm) kind = 'header';
      const decorators: number[] = [];
      for (let j = i - 1; j >= 0 && /^\s*@/.test(lines[j]); j--) decorators.unshift(j);
      const name = hm?.[1];
      scopes.push({
        kind: hm ? 'function' : 'block',
        name,
        start: i,
        headerEnd: i,
        bodyStart: Math.min(i + 1, n - 1),
        end: i,
        decorators,
        bodyIndent: ' '.repeat(ind + 4),
        isDefinition: !!hm,
      });
      if (name) {
        defines.push(name);
        const l = definitions.get(name) ?? [];
        l.push(i);
        definitions.set(name, l);
      }
      stack.push({ scope: scopes.length - 1, indent: ind });
    } else if (kind === 'code') {
      const am = /^\s*(?:(?:const|let|var|export const)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=[^=]/.exec(text);
      if (am && ind === 0) {
        defines.push(am[1]);
        const l = definitions.get(am[1]) ?? [];
        l.push(i);
        definitions.set(am[1], l);
      }
    }
    if (kind === 'import') {
      const names = (t.replace(/^from\s+\S+\s+import/, '').match(IDENT_RE) ?? []).filter(
        (w) => !['import', 'as', 'from', 'use', 'const', 'require'].includes(w),
      );
      for (const w of names) imports.set(w, i);
    }
    const uses = kind === 'comment' || kind === 'import' ? [] : [...new Set(t.match(IDENT_RE) ?? [])].filter((w) => !defines.includes(w));
    out.push({ kind, depth: depthScopes.length, scopes: depthScopes, defines, uses, stmtStart: i, stmtEnd: i, closers: [], pairs: [] });
  }
  while (stack.length) {
    const top = stack.pop()!;
    scopes[top.scope].end = Math.max(scopes[top.scope].start, lastNonBlankBefore(n));
  }
  return { language, hasGrammar: false, parseOk: true, lines: out, scopes, definitions, imports };
}
