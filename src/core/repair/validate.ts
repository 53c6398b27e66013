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
    const rows: number[] = [];
    const visit = (node: Node) => {
      if (rows.length >= limit) return;
      if (node.isMissing || node.type === 'ERROR') {
        rows.push(node.startPosition.row);
        // An ERROR node that swallows a long stretch also points at where it stops making sense.
        if (node.type === 'ERROR' && node.endPosition.row > node.startPosition.row) {
          for (const child of node.children) {
            if (child && (child.isMissing || child.type === 'ERROR')) {
              rows.push(child.startPosition.row);
              break;
            }
          }
        }
        return;
      }
      for (const child of node.children) if (child && (child.hasError || child.isMissing)) visit(child);
    };
    visit(tree.rootNode);
    return rows;
  } finally {
    tree.delete();
  }
}
