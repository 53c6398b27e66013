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
    const visit = (node: Node): boolean => {
      let inner = false;
      for (const child of node.children) if (child && (child.hasError || child.isMissing)) inner = visit(child) || inner;
      if (inner) return true;
      if (node.isMissing || node.type === 'ERROR') {
        found.push(node.startPosition.row);
        return true;
      }
      return false;
    };
    visit(tree.rootNode);
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
