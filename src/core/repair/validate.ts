/**
 * Syntax validation of pruned output: the last repair step. The closure rules in repair.ts fix
 * the common cases; what they miss (a kept line in the middle of a multi-line string, a JSX
 * attribute list, a continued expression) shows up as ERROR/MISSING nodes when the output is
 * parsed. This module finds the rows of those nodes so prune() can widen (bring back the omitted
 * runs next to them) or, when widening is not allowed or did not help, drop the kept lines there.
 */
import type { Node } from 'web-tree-sitter';
import { loadedParser } from '../syntax/grammars.js';
import { parseText } from '../syntax/parse.js';

/** Rows (0-based, in `text`) where the first few syntax errors start; [] when it parses; null without a grammar. */
export function syntaxErrorRows(text: string, language: string, limit = 4): number[] | null {
  const parser = loadedParser(language);
  if (!parser) return null;
  const tree = parseText(parser, text, language);
  if (!tree) return null;
  try {
    if (!tree.rootNode.hasError) return [];
    // The innermost error nodes: an ERROR node that swallows a long stretch (often from row 0,
    // when tree-sitter gives up on the whole program) says little about where the trouble is;
    // the ERROR/MISSING nodes inside it point there.
    const found: number[] = [];
    // Depth-first with an explicit stack (a deeply nested tree would overflow the call stack): a
    // node is reported when none of its children led to an error node.
    const stack: { node: Node; inner: boolean; parent: number }[] = [{ node: tree.rootNode, inner: false, parent: -1 }];
    const done: { inner: boolean; parent: number; node: Node }[] = [];
    while (stack.length > 0) {
      const top = stack.pop()!;
      const at = done.length;
      done.push(top);
      const children = top.node.children;
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i];
        if (child && (child.hasError || child.isMissing)) stack.push({ node: child, inner: false, parent: at });
      }
    }
    // children come after their parent in `done`: settle them first
    for (let i = done.length - 1; i >= 0; i--) {
      const d = done[i]!;
      let reported = d.inner;
      if (!reported && (d.node.isMissing || d.node.type === 'ERROR')) {
        found.push(d.node.startPosition.row);
        reported = true;
      }
      if (reported && d.parent >= 0) done[d.parent]!.inner = true;
    }
    // hasError without any ERROR/MISSING node in reach (tree-sitter recovered with a hidden token,
    // e.g. Python's unexpected indent after a marker): point at the innermost node that has the
    // error, so the fixer works on the right block instead of taking the output for clean
    if (found.length === 0) {
      let node: Node = tree.rootNode;
      for (;;) {
        const next = node.children.find((c): c is Node => !!c && c.hasError);
        if (!next) break;
        node = next;
      }
      found.push(node.startPosition.row);
    }
    const rows = [...new Set(found)].sort((a, b) => a - b).slice(0, limit);
    return rows;
  } finally {
    tree.delete();
  }
}
