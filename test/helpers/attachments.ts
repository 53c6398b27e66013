/**
 * An independent check (straight from the tree-sitter tree, not from skim's SyntaxIndex) that
 * attributes, decorators, annotations and doc comments travel with their item: a kept
 * `#[derive(..)]`, `@property`, `[Fact]`, `/// docs` or `/** docs` line comes with the first
 * line of the item it belongs to (so an omitted item takes them with it).
 */
import type { Node } from 'web-tree-sitter';
import { withTree } from './parseTree.js';

/** Node types that attach to the item after them. */
const ATTACHMENTS = new Set([
  'decorator', // python, javascript, typescript
  'attribute_item', // rust #[...]
  'attribute_list', // c# [..], php #[..]
  'annotation', // java @X(...)
  'marker_annotation', // java @X
  'attribute_declaration', // c++ [[...]]
]);
/** Leaves that close something: an attachment followed by one documents nothing. */
const CLOSERS = new Set(['}', ')', ']', 'end']);
const GO_DECLARATIONS = new Set(['function_declaration', 'method_declaration', 'type_declaration', 'var_declaration', 'const_declaration']);

function isDocComment(node: Node, language: string): boolean {
  if (!node.type.includes('comment')) return false;
  const t = node.text;
  // `/***...` is a banner, `////` a rule: not documentation
  if ((t.startsWith('///') && !t.startsWith('////')) || /^\/\*\*(?![*/])/.test(t)) return language !== 'python' && language !== 'ruby';
  // Go: the comment lines right above a top-level declaration are its documentation
  if (language === 'go' && node.parent?.type === 'source_file' && t.startsWith('//')) {
    let next = node.nextSibling;
    let row = node.endPosition.row;
    while (next && next.type === 'comment' && next.startPosition.row === row + 1) {
      row = next.endPosition.row;
      next = next.nextSibling;
    }
    return !!next && GO_DECLARATIONS.has(next.type) && next.startPosition.row === row + 1;
  }
  return false;
}

/**
 * Per 0-based input line that holds only (part of) an attachment: the first line of its item, or
 * nothing when the attachment documents nothing in the input. Null when there is no grammar.
 */
export async function attachmentItems(code: string, language: string): Promise<Map<number, number> | null> {
  return withTree(code, language, (tree, texts, lang) => {
    const attachments: Node[] = [];
    const leaves: { start: number; row: number; type: string; attached: boolean }[] = [];
    const visit = (node: Node, inside: boolean) => {
      const here = inside || ATTACHMENTS.has(node.type) || node.type.includes('comment');
      if (ATTACHMENTS.has(node.type) || isDocComment(node, lang)) attachments.push(node);
      if (node.childCount === 0) leaves.push({ start: node.startIndex, row: node.startPosition.row, type: node.type, attached: here });
      for (const ch of node.children) if (ch) visit(ch, here);
    };
    visit(tree.rootNode, false);
    const out = new Map<number, number>();
    for (const a of attachments) {
      // the first leaf after the attachment that is not part of another attachment or a comment
      let lo = 0;
      let hi = leaves.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (leaves[mid].start < a.endIndex) lo = mid + 1;
        else hi = mid;
      }
      while (lo < leaves.length && leaves[lo].attached) lo++;
      const item = leaves[lo];
      if (!item || CLOSERS.has(item.type) || item.row <= a.endPosition.row) continue;
      for (let r = a.startPosition.row; r <= a.endPosition.row; r++) {
        const text = texts[r] ?? '';
        const first = text.search(/\S/);
        if (first < 0) continue;
        if (r === a.startPosition.row && first < a.startPosition.column) continue; // code before it on the line
        if (r === a.endPosition.row && text.trimEnd().length > a.endPosition.column && !/^\s*(\/\/|#)/.test(text.slice(a.endPosition.column))) continue;
        out.set(r, item.row);
      }
    }
    return out;
  });
}

/** Kept attachment lines (0-based) whose item is not kept. */
export function attachmentViolations(items: Map<number, number>, keepMask: Uint8Array, texts?: string[]): string[] {
  const out: string[] = [];
  for (const [r, item] of [...items].sort((a, b) => a[0] - b[0])) {
    if (!keepMask[r] || keepMask[item]) continue;
    out.push(
      `line ${r + 1} kept without its item at line ${item + 1}${texts ? `: ${JSON.stringify(texts[r].trim())} before ${JSON.stringify(texts[item].trim())}` : ''}`,
    );
  }
  return out;
}
