/**
 * An independent check (straight from the tree-sitter tree, not from skim's SyntaxIndex) that a
 * pruned output never shows a line under the wrong clause: every kept line inside an
 * else/elif/except/finally/catch/case/default/match-arm/rescue/... clause must come with the
 * header line of that clause, and of every clause around that one.
 */
import type { Node } from 'web-tree-sitter';
import { withTree } from './parseTree.js';

/** Clause node types of the twelve grammars (their first row is the clause header). */
const CLAUSE_TYPES = new Set([
  // python
  'elif_clause',
  'else_clause',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'case_clause',
  // javascript / typescript / c / c++ / php / java / c#
  'catch_clause',
  'switch_case',
  'switch_default',
  'case_statement',
  'default_statement',
  'else_if_clause',
  'switch_block_statement_group',
  'switch_rule',
  'switch_section',
  'preproc_else',
  'preproc_elif',
  'preproc_elifdef',
  // go
  'expression_case',
  'default_case',
  'type_case',
  'communication_case',
  // rust
  'match_arm',
  // ruby (named `else`, `when`, ... nodes)
  'elsif',
  'else',
  'when',
  'in_clause',
  'rescue',
  'ensure',
]);

interface Clause {
  header: number;
  node: Node;
}

/** The clauses of a tree: clause nodes, and `else <alternative>` where the grammar has no else node (Go, Java, C#). */
function collectClauses(root: Node): Clause[] {
  const out: Clause[] = [];
  const visit = (node: Node) => {
    if (node.isNamed && CLAUSE_TYPES.has(node.type) && node.endPosition.row > node.startPosition.row && !node.hasError)
      out.push({ header: node.startPosition.row, node });
    const alt = node.childForFieldName('alternative');
    if (alt && !CLAUSE_TYPES.has(alt.type) && !alt.hasError) {
      const prev = alt.previousSibling;
      if (prev && !prev.isNamed && prev.type === 'else') out.push({ header: prev.startPosition.row, node: alt });
    }
    for (const ch of node.children) if (ch) visit(ch);
  };
  visit(root);
  return out;
}

/**
 * Per 0-based input line: the header lines of the clauses that contain it (lines other than the
 * header itself whose first character lies inside the clause). Null when there is no grammar.
 * Clauses that hold a parse error are no reference and are left out: error recovery can stretch a
 * clause past its end (a C `#else` run on past its `#endif`).
 */
export async function clauseHeaderChains(code: string, language: string): Promise<number[][] | null> {
  return withTree(code, language, (tree, texts) => {
    const chains: number[][] = texts.map(() => []);
    for (const { header, node } of collectClauses(tree.rootNode)) {
      const end = node.endPosition;
      for (let r = header + 1; r <= end.row && r < texts.length; r++) {
        const col = texts[r].search(/\S/);
        if (col < 0) continue;
        if (r === end.row && col >= end.column) continue;
        if (r === node.startPosition.row && col < node.startPosition.column) continue;
        chains[r].push(header);
      }
    }
    return chains;
  });
}

/** Kept lines (0-based) shown without the header of a clause that contains them: "line 12 without its clause header 9". */
export function clauseViolations(chains: number[][], keepMask: Uint8Array, texts?: string[]): string[] {
  const out: string[] = [];
  chains.forEach((headers, r) => {
    if (!keepMask[r]) return;
    for (const h of headers) {
      if (keepMask[h]) continue;
      out.push(
        `line ${r + 1} kept without its clause header ${h + 1}${texts ? `: ${JSON.stringify(texts[r].trim())} under ${JSON.stringify(texts[h].trim())}` : ''}`,
      );
    }
  });
  return out;
}
