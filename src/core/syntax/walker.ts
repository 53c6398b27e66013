/**
 * The generic tree walker: one pre-order pass over a tree-sitter tree with a TreeCursor, driven by
 * a per-language GrammarSpec, filling every field of SyntaxIndex. Work per node is a few cursor
 * reads; the Node API is only used on the few nodes that need it (scopes, imports, definitions).
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { LineKind, LineSyntax, Scope, SyntaxIndex } from '../types.js';
import type { GrammarSpec, NameAt } from './lang/types.js';
import { IDENTIFIER_TYPES, namesIn } from './lang/names.js';
import { closerLine, detectIndentUnit, leadingWhitespace } from './lineText.js';

/** Scope kinds that define a name. */
const DEFINITION_KINDS = new Set([
  'function', 'method', 'constructor', 'class', 'interface', 'struct', 'enum', 'trait', 'impl',
  'module', 'namespace', 'type', 'macro', 'property',
]);
/** Kinds inside which a function is a method. */
const CLASS_KINDS = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'module']);
/** Parent node types that give an anonymous function its name, with the field holding it. */
const NAME_FROM_PARENT: Record<string, string> = {
  variable_declarator: 'name',
  pair: 'key',
  assignment_expression: 'left',
  assignment: 'left',
  public_field_definition: 'name',
  field_definition: 'property',
  property_declaration: 'name',
};

/** Nodes that wrap a definition and pass decorators on to it. */
const WRAPPERS = new Set(['decorated_definition', 'template_declaration', 'export_statement']);

const OPEN = { '(': 1, '[': 2, '{': 3 } as Record<string, number>;
const CLOSE = { ')': 1, ']': 2, '}': 3 } as Record<string, number>;
const JSX_OPEN = 4;

interface Frame {
  type: string;
  sr: number;
  er: number;
  block: boolean;
  /** Scope index created for this node, or -1. */
  scope: number;
  /** Clause group when this node owns clauses: [ownerRow, clauseRow...]. */
  group: number[] | null;
  /** Open bracket tokens among the children: flat [kind, row, kind, row...]. */
  open: number[] | null;
  /** Decorator rows seen among the children, waiting for the definition they decorate. */
  pending: number[] | null;
  /** Named statements seen so far (for docstrings). */
  stmts: number;
}

function frame(type: string, sr: number, er: number, block: boolean): Frame {
  return { type, sr, er, block, scope: -1, group: null, open: null, pending: null, stmts: 0 };
}

function isBlank(s: string): boolean {
  return s.length === 0 || s.trim().length === 0;
}

function push<T>(arr: (T[] | null)[], i: number, v: T): void {
  const a = arr[i];
  if (a) a.push(v);
  else arr[i] = [v];
}

export function indexTree(tree: Tree, lines: string[], spec: GrammarSpec, language: string): SyntaxIndex {
  const n = lines.length;
  const last = Math.max(0, n - 1);
  const clamp = (r: number) => (r < 0 ? 0 : r > last ? last : r);

  const hasCode = new Uint8Array(n);
  const commentRow = new Uint8Array(n);
  const docRow = new Uint8Array(n);
  const importRow = new Uint8Array(n);
  const decoRow = new Uint8Array(n);
  const clauseRow = new Uint8Array(n);
  const headerRow = new Uint8Array(n);
  const uses: (string[] | null)[] = new Array(n).fill(null);
  const defines: (string[] | null)[] = new Array(n).fill(null);
  const bound: (string[] | null)[] = new Array(n).fill(null);
  const closers: (number[] | null)[] = new Array(n).fill(null);
  const stmts: number[] = []; // flat [start, end, ...] in pre-order
  const scopes: Scope[] = [];
  const groups: number[][] = [];
  const definitions = new Map<string, number[]>();
  const imports = new Map<string, number>();

  const addCloser = (open: number, close: number) => {
    if (close > open && open < n) push(closers, open, clamp(close));
  };
  const addDefine = (d: NameAt) => {
    if (!d.name || d.name === '_' || d.row >= n) return;
    push(defines, d.row, d.name);
    const rows = definitions.get(d.name);
    if (!rows) definitions.set(d.name, [d.row]);
    else if (rows[rows.length - 1] !== d.row) rows.push(d.row);
  };
  const addImport = (sr: number, er: number, names: NameAt[]) => {
    for (let r = sr; r <= er && r < n; r++) importRow[r] = 1;
    for (const b of names) {
      if (!b.name || b.row >= n) continue;
      if (!imports.has(b.name)) imports.set(b.name, b.row);
      push(bound, b.row, b.name);
    }
  };

  const stack: Frame[] = [];
  const root = tree.rootNode;
  stack.push(frame(root.type, 0, last, true));
  const cursor = tree.walk();

  const nearestOwner = (): Frame | null => {
    for (let i = stack.length - 1; i >= 0; i--) if (spec.owners.has(stack[i]!.type)) return stack[i]!;
    return null;
  };
  const addClause = (owner: Frame | null, row: number) => {
    if (!owner || owner.sr === row) return;
    if (!owner.group) {
      owner.group = [owner.sr];
      groups.push(owner.group);
    }
    if (owner.group[owner.group.length - 1] !== row) owner.group.push(row);
    clauseRow[row] = 1;
  };

  const analyzeScope = (node: Node, kind: string, parent: Frame, sr: number, er: number): Scope => {
    const decorators: number[] = [];
    // Sibling decorators (python decorated_definition, rust #[attr], TS member decorators).
    if (parent.pending) decorators.push(...parent.pending);
    parent.pending = null;
    let start = sr;
    let found = false;
    for (const ch of node.children) {
      if (!ch) continue;
      if (spec.decorators.has(ch.type)) {
        for (let r = ch.startPosition.row; r <= ch.endPosition.row; r++) decorators.push(r);
        continue;
      }
      if (spec.comments.has(ch.type)) continue;
      if (spec.modifierWrappers?.has(ch.type)) {
        for (const g of ch.children) {
          if (!g) continue;
          if (spec.decorators.has(g.type)) {
            for (let r = g.startPosition.row; r <= g.endPosition.row; r++) decorators.push(r);
          } else if (!spec.comments.has(g.type)) {
            start = g.startPosition.row;
            found = true;
            break;
          }
        }
        if (found) break;
        continue;
      }
      start = ch.startPosition.row;
      break;
    }
    let body: Node | null = null;
    for (const f of spec.bodyFields) {
      body = node.childForFieldName(f);
      if (body) break;
    }
    if (!body && spec.bodyTypes) body = node.children.find((c) => !!c && spec.bodyTypes!.has(c.type)) ?? null;
    let headerEnd = start;
    let bodyStart = Math.min(start + 1, er);
    if (body) {
      const bsr = body.startPosition.row;
      const first = body.firstChild;
      const opensWithToken = !!first && !first.isNamed && bsr === first.startPosition.row;
      if (opensWithToken) headerEnd = bsr;
      else {
        let prev = body.previousSibling;
        while (prev && spec.comments.has(prev.type)) prev = prev.previousSibling;
        headerEnd = prev ? prev.endPosition.row : start;
      }
      let firstStmt: Node | null = null;
      for (const c of body.namedChildren) {
        if (c && !spec.comments.has(c.type)) {
          firstStmt = c;
          break;
        }
      }
      // go wraps statements in statement_list
      if (firstStmt && firstStmt.type === 'statement_list') firstStmt = firstStmt.namedChild(0) ?? firstStmt;
      bodyStart = firstStmt ? firstStmt.startPosition.row : Math.min(headerEnd + 1, er);
    }
    headerEnd = Math.max(start, Math.min(headerEnd, er));
    bodyStart = Math.max(headerEnd, Math.min(bodyStart, er));

    let name = spec.nameOf?.(node) ?? node.childForFieldName('name')?.text;
    if (!name) {
      const p = node.parent;
      const field = p ? NAME_FROM_PARENT[p.type] : undefined;
      if (p && field) name = namesIn(p.childForFieldName(field))[0]?.name ?? p.childForFieldName(field)?.text;
    }
    if (name && name.length > 200) name = name.slice(0, 200);
    kind = spec.kindOf ? spec.kindOf(node, kind) : kind;
    if (kind === 'function') {
      for (let i = stack.length - 1; i >= 0; i--) {
        const s = stack[i]!.scope;
        if (s >= 0 && scopes[s]!.isDefinition) {
          if (CLASS_KINDS.has(scopes[s]!.kind)) kind = 'method';
          break;
        }
      }
    }
    const isDefinition = DEFINITION_KINDS.has(kind) && !!name;
    const decos = [...new Set(decorators)].filter((r) => r < start && r >= 0).sort((a, b) => a - b);
    return {
      kind,
      ...(name ? { name } : {}),
      start: clamp(start),
      headerEnd: clamp(headerEnd),
      bodyStart: clamp(bodyStart),
      end: clamp(er),
      decorators: decos,
      bodyIndent: '',
      isDefinition,
    };
  };

  let more = cursor.gotoFirstChild();
  while (more) {
    const parent = stack[stack.length - 1]!;
    const type = cursor.nodeType;
    const sr = cursor.startPosition.row;
    const ep = cursor.endPosition;
    let er = ep.column === 0 && ep.row > sr ? ep.row - 1 : ep.row;
    // some nodes (preprocessor lines) swallow trailing blank lines
    while (er > sr && er < n && isBlank(lines[er]!)) er--;
    let child: Frame | null = null;

    if (sr < n) {
      if (!cursor.nodeIsNamed) {
        hasCode[sr] = 1;
        const o = OPEN[type];
        if (o) (parent.open ??= []).push(o, sr);
        else {
          const c = CLOSE[type];
          if (c) {
            const open = parent.open;
            if (open) {
              for (let i = open.length - 2; i >= 0; i -= 2) {
                if (open[i] === c) {
                  addCloser(open[i + 1]!, sr);
                  open.splice(i, 2);
                  break;
                }
              }
            }
          } else if (spec.endTokens?.has(type)) {
            addCloser(parent.sr, sr);
          } else if (spec.clauseKeywords?.has(type) && spec.owners.has(parent.type)) {
            addClause(parent, sr);
          }
        }
      } else if (spec.comments.has(type)) {
        for (let r = sr; r <= er && r < n; r++) commentRow[r] = 1;
      } else {
        hasCode[sr] = 1;
        if (parent.block && !spec.blocks.has(type)) {
          stmts.push(sr, er);
          parent.stmts++;
          if (
            spec.docstrings &&
            parent.stmts === 1 &&
            type === 'expression_statement' &&
            (stack.length === 1 || spec.docstringOwners?.has(stack[stack.length - 2]!.type))
          ) {
            const node = cursor.currentNode;
            if (node.namedChildCount === 1 && node.namedChild(0)?.type === 'string') {
              for (let r = sr; r <= er && r < n; r++) docRow[r] = 1;
            }
          }
          if (spec.requireCandidates?.has(type) && spec.requireImport) {
            const names = spec.requireImport(cursor.currentNode);
            if (names) addImport(sr, er, names);
          }
        }
        if (IDENTIFIER_TYPES.has(type) && er === sr) {
          // identifiers are leaves in every grammar here; the length cap guards odd error recovery
          const t = cursor.nodeText;
          if (t.length <= 120) push(uses, sr, t);
        } else if (spec.opaque.has(type)) {
          // strings: not descended into
        } else {
          const isDecorator = spec.decorators.has(type);
          if (isDecorator) {
            for (let r = sr; r <= er && r < n; r++) {
              decoRow[r] = 1;
              (parent.pending ??= []).push(r);
            }
          }
          child = frame(type, sr, er, spec.blocks.has(type));
          const kind = spec.scopes[type];
          if (kind && er > sr) {
            const scope = analyzeScope(cursor.currentNode, kind, parent, sr, er);
            child.scope = scopes.length;
            scopes.push(scope);
          } else if (WRAPPERS.has(type)) {
            // the definition inside a wrapper takes the decorators seen before the wrapper
            child.pending = parent.pending;
            parent.pending = null;
          } else if (!isDecorator) {
            // a decorator applies to the next sibling only
            parent.pending = null;
          }
          if (spec.clauses.has(type)) addClause(nearestOwner(), sr);
          if (type === 'jsx_opening_element') (parent.open ??= []).push(JSX_OPEN, sr);
          else if (type === 'jsx_closing_element' && parent.open) {
            const open = parent.open;
            for (let i = open.length - 2; i >= 0; i -= 2) {
              if (open[i] === JSX_OPEN) {
                addCloser(open[i + 1]!, sr);
                open.splice(i, 2);
                break;
              }
            }
          }
          if (spec.imports.has(type)) addImport(sr, er, spec.importNames(cursor.currentNode));
          const defField = spec.definers[type];
          if (defField) {
            const node = cursor.currentNode;
            const need = spec.definerNeeds?.[type];
            if (!need || node.childForFieldName(need)) {
              for (const f of typeof defField === 'string' ? [defField] : defField) {
                for (const target of node.childrenForFieldName(f)) {
                  for (const d of namesIn(target)) addDefine(d);
                }
              }
            }
          }
        }
      }
    }

    if (child && cursor.gotoFirstChild()) {
      stack.push(child);
      continue;
    }
    while (!(more = cursor.gotoNextSibling())) {
      if (!cursor.gotoParent()) break;
      stack.pop();
      if (stack.length === 0) break;
    }
    if (stack.length === 0) break;
  }
  cursor.delete();

  return assemble();

  function assemble(): SyntaxIndex {
    // statement ranges: outer first, inner statements override their lines
    const stmtStart = new Int32Array(n);
    const stmtEnd = new Int32Array(n);
    for (let i = 0; i < n; i++) stmtStart[i] = stmtEnd[i] = i;
    for (let k = 0; k < stmts.length; k += 2) {
      const s = stmts[k]!;
      const e = Math.min(stmts[k + 1]!, last);
      for (let r = s; r <= e; r++) {
        stmtStart[r] = s;
        stmtEnd[r] = e;
      }
    }
    // a compound statement's header lines form their own statement
    const unit = detectIndentUnit(lines);
    const scopeEnds = new Set<number>();
    for (const sc of scopes) {
      const s0 = Math.min(stmtStart[sc.start]!, sc.start, sc.decorators[0] ?? sc.start);
      for (let r = sc.start; r <= sc.headerEnd; r++) {
        stmtStart[r] = s0;
        stmtEnd[r] = sc.headerEnd;
      }
      for (const r of sc.decorators) {
        stmtStart[r] = s0;
        stmtEnd[r] = sc.headerEnd;
      }
      scopeEnds.add(sc.end);
      if (sc.isDefinition) headerRow[sc.start] = 1;
      const bodyLine = lines[sc.bodyStart] ?? '';
      sc.bodyIndent =
        sc.bodyStart > sc.headerEnd && bodyLine.trim() !== ''
          ? leadingWhitespace(bodyLine)
          : leadingWhitespace(lines[sc.start] ?? '') + unit;
    }

    // blank and comment lines between a compound's statements are their own statement
    for (let r = 0; r < n; r++) {
      if (!hasCode[r] && stmtStart[r] !== r && scopeEnds.has(stmtEnd[r]!) && stmtStart[r]! < r) {
        stmtStart[r] = stmtEnd[r] = r;
      }
    }

    // clause groups -> pairs; chains (`} else if (...) {` owns the next `else`) merge into one group
    const pairs: (number[] | null)[] = new Array(n).fill(null);
    const parentOf = new Map<number, number>();
    const find = (r: number): number => {
      let x = r;
      while (parentOf.has(x) && parentOf.get(x) !== x) x = parentOf.get(x)!;
      parentOf.set(r, x);
      return x;
    };
    for (const g of groups) {
      const root = find(g[0]!);
      for (const r of g) {
        const rr = find(r);
        if (rr !== root) parentOf.set(rr, root);
      }
    }
    const members = new Map<number, number[]>();
    for (const r of parentOf.keys()) {
      if (r >= n) continue;
      const root = find(r);
      const m = members.get(root);
      if (m) m.push(r);
      else members.set(root, [r]);
    }
    for (const rows of members.values()) {
      if (rows.length < 2) continue;
      for (const r of rows) for (const o of rows) if (o !== r) push(pairs, r, o);
    }

    // enclosing scopes per line: a scope encloses its body lines (after the header) through its end
    const order = scopes.map((_, i) => i);
    order.sort((a, b) => scopes[a]!.headerEnd - scopes[b]!.headerEnd || scopes[b]!.end - scopes[a]!.end || a - b);
    let active: number[] = [];
    let k = 0;
    const out: LineSyntax[] = new Array(n);
    for (let row = 0; row < n; row++) {
      let changed = false;
      if (active.some((s) => scopes[s]!.end < row)) {
        active = active.filter((s) => scopes[s]!.end >= row);
        changed = true;
      }
      while (k < order.length && scopes[order[k]!]!.headerEnd + 1 <= row) {
        const s = order[k++]!;
        if (scopes[s]!.end >= row) {
          active.push(s);
          changed = true;
        }
      }
      if (changed && active.length > 1) active.sort((a, b) => scopes[a]!.start - scopes[b]!.start || scopes[b]!.end - scopes[a]!.end || a - b);

      const text = lines[row] ?? '';
      let kind: LineKind;
      if (text.trim() === '') kind = 'blank';
      else if (docRow[row]) kind = 'docstring';
      else if (commentRow[row] && !hasCode[row]) kind = 'comment';
      else if (importRow[row]) kind = 'import';
      else if (headerRow[row]) kind = 'header';
      else if (decoRow[row] && !defines[row]) kind = 'decorator';
      else if (clauseRow[row]) kind = 'clause';
      else if (closerLine(text, language)) kind = 'closer';
      else kind = 'code';

      const def = defines[row];
      const b = bound[row];
      let u = uses[row];
      let usesOut: string[] = [];
      if (u) {
        const skip = def || b ? new Set([...(def ?? []), ...(b ?? [])]) : null;
        usesOut = [...new Set(u)];
        if (skip) usesOut = usesOut.filter((x) => !skip.has(x));
      }
      u = null;
      out[row] = {
        kind,
        depth: active.length,
        scopes: active.slice(),
        defines: def ? [...new Set(def)] : [],
        uses: usesOut,
        stmtStart: stmtStart[row]!,
        stmtEnd: stmtEnd[row]!,
        closers: closers[row] ? [...new Set(closers[row])].sort((a, b) => a - b) : [],
        pairs: pairs[row] ? [...new Set(pairs[row])].sort((a, b) => a - b) : [],
      };
    }
    return {
      language,
      hasGrammar: true,
      parseOk: !root.hasError,
      lines: out,
      scopes,
      definitions,
      imports,
    };
  }
}
