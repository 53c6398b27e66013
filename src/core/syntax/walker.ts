/**
 * The generic tree walker: one pre-order pass over a tree-sitter tree with a TreeCursor, driven by
 * a per-language GrammarSpec, filling every field of SyntaxIndex. Work per node is a few cursor
 * reads; the Node API is only used on the few nodes that need it (scopes, imports, definitions).
 */
import type { Language, Node, Tree, TreeCursor } from 'web-tree-sitter';
import { MAX_SCOPE_DEPTH } from '../limits.js';
import type { LineKind, LineSyntax, Scope, SyntaxIndex } from '../types.js';
import { linkAttachments } from './attachments.js';
import { pairGroup } from './clauseGroups.js';
import { enclosingScopesByRow } from './enclosingScopes.js';
import { IDENTIFIER_TYPES, namesIn } from './lang/names.js';
import type { GrammarSpec, NameAt } from './lang/types.js';
import { closerTest, detectIndentUnit, type IdentifierScanOptions, identifiersIn, leadingWhitespace } from './lineText.js';

/** Scope kinds that define a name. */
const DEFINITION_KINDS = new Set([
  'function',
  'method',
  'constructor',
  'class',
  'interface',
  'struct',
  'enum',
  'trait',
  'impl',
  'module',
  'namespace',
  'type',
  'macro',
  'property',
]);
/** Kinds inside which a function is a method. */
const CLASS_KINDS = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'module']);
/** Generic argument/parameter lists in angle brackets (TS/Rust/Java, C#, C++ templates). */
const TYPE_LISTS = new Set([
  'type_arguments',
  'type_parameters',
  'type_argument_list',
  'type_parameter_list',
  'template_argument_list',
  'template_parameter_list',
]);
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
  flags: number;
  /** How many more levels below this node are visited (DEEP = all). */
  budget: number;
  sr: number;
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
  /** Scopes on the stack up to and including this node (capped at MAX_SCOPE_DEPTH). */
  scopeDepth: number;
  /** The nearest frame on the stack (this one included) that owns clauses, or null. */
  owner: Frame | null;
  /** The nearest enclosing definition scope (index into scopes), or -1. */
  definition: number;
}

const DEEP = 1 << 20;

function frame(type: string, flags: number, sr: number, block: boolean, budget: number, parent: Frame | null): Frame {
  const f: Frame = { type, flags, budget, sr, block, scope: -1, group: null, open: null, pending: null, stmts: 0, scopeDepth: 0, owner: null, definition: -1 };
  f.scopeDepth = parent?.scopeDepth ?? 0;
  f.owner = flags & F_OWNER ? f : (parent?.owner ?? null);
  f.definition = parent?.definition ?? -1;
  return f;
}

const F_NAMED = 1 << 0;
const F_COMMENT = 1 << 1;
const F_OPAQUE = 1 << 2;
const F_IDENT = 1 << 3;
const F_DECORATOR = 1 << 4;
const F_BLOCK = 1 << 5;
const F_SCOPE = 1 << 6;
const F_CLAUSE = 1 << 7;
const F_OWNER = 1 << 8;
const F_IMPORT = 1 << 9;
const F_DEFINER = 1 << 10;
const F_REQUIRE = 1 << 11;
const F_WRAPPER = 1 << 12;
const F_CLAUSE_KW = 1 << 13;
const F_END = 1 << 14;
const F_JSX_OPEN = 1 << 15;
const F_JSX_CLOSE = 1 << 16;
const F_DOCSTMT = 1 << 17;
const F_TEMPLATE = 1 << 18;

interface TypeTable {
  /** Per node type id: F_* flags. */
  flags: Int32Array;
  /** Per node type id: its name. */
  names: string[];
  /** Per node type id: bracket kind (>0 opens, <0 closes, 0 neither). */
  bracket: Int8Array;
  /** Keywords of the grammar (its anonymous word tokens), excluded from identifier uses. */
  keywords: ReadonlySet<string>;
}

const tables = new WeakMap<Language, Map<GrammarSpec, TypeTable>>();

/** Flags per node type id, so the hot loop reads one number per node instead of testing strings. */
function typeTable(language: Language, spec: GrammarSpec): TypeTable {
  let bySpec = tables.get(language);
  if (!bySpec) tables.set(language, (bySpec = new Map()));
  const hit = bySpec.get(spec);
  if (hit) return hit;
  const count = language.nodeTypeCount;
  const flags = new Int32Array(count);
  const names: string[] = new Array(count);
  const bracket = new Int8Array(count);
  const keywords = new Set<string>();
  const soft = spec.softKeywords;
  for (let id = 0; id < count; id++) {
    const t = language.nodeTypeForId(id) ?? '';
    names[id] = t;
    if (!language.nodeTypeIsNamed(id)) {
      if (/^[A-Za-z_]\w*$/.test(t) && !soft?.has(t)) keywords.add(t);
      bracket[id] = OPEN[t] ?? -(CLOSE[t] ?? 0);
      if (spec.endTokens?.has(t)) flags[id]! |= F_END;
      if (spec.clauseKeywords?.has(t)) flags[id]! |= F_CLAUSE_KW;
      continue;
    }
    let f = F_NAMED;
    if (spec.comments.has(t)) f |= F_COMMENT;
    else if (IDENTIFIER_TYPES.has(t)) f |= F_IDENT;
    if (spec.opaque.has(t)) f |= F_OPAQUE;
    if (spec.templates?.has(t)) f |= F_TEMPLATE;
    if (spec.decorators.has(t)) f |= F_DECORATOR;
    if (spec.blocks.has(t)) f |= F_BLOCK;
    if (spec.scopes[t]) f |= F_SCOPE;
    if (spec.clauses.has(t)) f |= F_CLAUSE;
    if (spec.owners.has(t)) f |= F_OWNER;
    if (spec.imports.has(t)) f |= F_IMPORT;
    if (spec.definers[t]) f |= F_DEFINER;
    if (spec.requireCandidates?.has(t)) f |= F_REQUIRE;
    if (WRAPPERS.has(t)) f |= F_WRAPPER;
    if (t === 'jsx_opening_element') f |= F_JSX_OPEN;
    if (t === 'jsx_closing_element') f |= F_JSX_CLOSE;
    if (t === 'expression_statement') f |= F_DOCSTMT;
    flags[id] = f;
  }
  for (const k of spec.extraKeywords ?? []) keywords.add(k);
  for (const k of ['true', 'false', 'null']) keywords.add(k);
  const table = { flags, names, bracket, keywords };
  bySpec.set(spec, table);
  return table;
}

function scanOptions(language: string, keywords: ReadonlySet<string>): IdentifierScanOptions {
  const hash = language === 'python' || language === 'ruby';
  return {
    lineComments: hash ? ['#'] : language === 'php' ? ['//', '#'] : ['//'],
    keywords,
    lifetimes: language === 'rust',
    dollarSigil: language === 'php' || language === 'ruby',
  };
}

function uniqueSorted(xs: number[]): number[] {
  return xs.length === 1 ? xs : [...new Set(xs)].sort((a, b) => a - b);
}

function isBlank(s: string): boolean {
  return s.length === 0 || s.trim().length === 0;
}

function push<T>(arr: (T[] | null)[], i: number, v: T): void {
  const a = arr[i];
  if (a) a.push(v);
  else arr[i] = [v];
}

/** The index under construction: what the walk has collected so far, and how it records a fact. */
class WalkState implements Walked {
  readonly n: number;
  readonly last: number;
  readonly hasCode: Uint8Array;
  readonly commentRow: Uint8Array;
  readonly docRow: Uint8Array;
  readonly importRow: Uint8Array;
  readonly decoRow: Uint8Array;
  readonly clauseRow: Uint8Array;
  readonly stringRow: Uint8Array;
  readonly templateRow: Uint8Array;
  readonly stringEndCol: Int32Array;
  /** Rows that hold nothing but (part of) an attribute/decorator/annotation (a C++ `template <...>` line too). */
  readonly attachRow: Uint8Array;
  readonly defines: (string[] | null)[];
  readonly bound: (string[] | null)[];
  readonly closers: (number[] | null)[];
  readonly stmts: number[] = []; // flat [start, end, ...] in pre-order
  readonly scopes: Scope[] = [];
  readonly groups: number[][] = [];
  readonly definitions = new Map<string, number[]>();
  readonly imports = new Map<string, number>();
  parseOk = true;
  private readonly commentPrefixes: readonly string[];

  constructor(
    readonly lines: string[],
    language: string,
    readonly keywords: ReadonlySet<string>,
  ) {
    const n = lines.length;
    this.n = n;
    this.last = Math.max(0, n - 1);
    this.hasCode = new Uint8Array(n);
    this.commentRow = new Uint8Array(n);
    this.docRow = new Uint8Array(n);
    this.importRow = new Uint8Array(n);
    this.decoRow = new Uint8Array(n);
    this.clauseRow = new Uint8Array(n);
    this.stringRow = new Uint8Array(n);
    this.templateRow = new Uint8Array(n);
    this.stringEndCol = new Int32Array(n).fill(-1);
    this.attachRow = new Uint8Array(n);
    this.defines = new Array(n).fill(null);
    this.bound = new Array(n).fill(null);
    this.closers = new Array(n).fill(null);
    this.commentPrefixes = scanOptions(language, new Set()).lineComments;
  }

  clamp(r: number): number {
    return r < 0 ? 0 : r > this.last ? this.last : r;
  }

  addCloser(open: number, close: number): void {
    if (close > open && open < this.n) push(this.closers, open, this.clamp(close));
  }

  addDefine(d: NameAt): void {
    if (!d.name || d.name === '_' || d.row >= this.n) return;
    push(this.defines, d.row, d.name);
    const rows = this.definitions.get(d.name);
    if (!rows) this.definitions.set(d.name, [d.row]);
    else if (rows[rows.length - 1] !== d.row) rows.push(d.row);
  }

  addImport(sr: number, er: number, names: NameAt[]): void {
    for (let r = sr; r <= er && r < this.n; r++) this.importRow[r] = 1;
    for (const b of names) {
      if (!b.name || b.row >= this.n) continue;
      if (!this.imports.has(b.name)) this.imports.set(b.name, b.row);
      push(this.bound, b.row, b.name);
    }
  }

  closeBracket(parent: Frame, kind: number, row: number): void {
    const open = parent.open;
    if (!open) return;
    for (let i = open.length - 2; i >= 0; i -= 2) {
      if (open[i] === kind) {
        this.addCloser(open[i + 1]!, row);
        open.splice(i, 2);
        return;
      }
    }
  }

  addClause(owner: Frame | null, row: number): void {
    if (!owner || owner.sr === row) return;
    if (!owner.group) {
      owner.group = [owner.sr];
      this.groups.push(owner.group);
    }
    if (owner.group[owner.group.length - 1] !== row) owner.group.push(row);
    this.clauseRow[row] = 1;
  }

  markAttachment(sr: number, startCol: number, er: number, end: { row: number; column: number }): void {
    const { lines, n } = this;
    if (sr >= n || !/^\s*(template\s*)?$/.test(lines[sr]!.slice(0, startCol))) return;
    const endCol = end.row > er ? Infinity : end.column;
    if (er < n && !this.onlyComment(lines[er]!.slice(endCol))) return;
    for (let r = sr; r <= er && r < n; r++) this.attachRow[r] = 1;
  }

  private onlyComment(s: string): boolean {
    return s.trim() === '' || this.commentPrefixes.some((p) => s.trimStart().startsWith(p));
  }
}

export function indexTree(tree: Tree, lines: string[], spec: GrammarSpec, language: string): SyntaxIndex {
  const table = typeTable(tree.language, spec);
  const w = new WalkState(lines, language, table.keywords);
  const stack: Frame[] = [];
  const root = tree.rootNode;
  stack.push(frame(root.type, 0, 0, true, DEEP, null));
  const cursor = tree.walk();
  const { flags } = table;

  let more = cursor.gotoFirstChild();
  while (more) {
    const parent = stack[stack.length - 1]!;
    const id = cursor.nodeTypeId;
    const f = id < flags.length ? flags[id]! : F_NAMED;
    let child: Frame | null = null;
    if (!(f & F_NAMED)) visitToken(w, cursor, parent, f, table.bracket[id]!);
    else child = visitNode(w, cursor, spec, table, stack, f, id);

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
  w.parseOk = !root.hasError;
  return assemble(lines, language, w);
}

/** Anonymous tokens: only brackets, `end`-like and clause keywords matter (position reads cost). */
function visitToken(w: WalkState, cursor: TreeCursor, parent: Frame, f: number, b: number): void {
  if (b !== 0 || f & (F_END | F_CLAUSE_KW)) {
    const sr = cursor.startPosition.row;
    if (sr < w.n) {
      w.hasCode[sr] = 1;
      if (b > 0) (parent.open ??= []).push(b, sr);
      else if (b < 0) w.closeBracket(parent, -b, sr);
      else if (f & F_END) w.addCloser(parent.sr, sr);
      else if (parent.flags & F_OWNER) w.addClause(parent, sr);
    }
  }
}

/** Last row of the cursor's node (trailing newline and blank lines excluded). */
function endRow(w: WalkState, cursor: TreeCursor, sr: number): number {
  const ep = cursor.endPosition;
  let er = ep.column === 0 && ep.row > sr ? ep.row - 1 : ep.row;
  // some nodes (preprocessor lines) swallow trailing blank lines
  while (er > sr && er < w.n && isBlank(w.lines[er]!)) er--;
  return er;
}

/** A named node: records what it is; returns the frame to descend into, or null. */
function visitNode(w: WalkState, cursor: TreeCursor, spec: GrammarSpec, table: TypeTable, stack: Frame[], f: number, id: number): Frame | null {
  const parent = stack[stack.length - 1]!;
  const { n } = w;
  const sr = cursor.startPosition.row;
  if (sr >= n) {
    // beyond the input (cannot happen for text we joined ourselves): ignore
  } else if (f & F_COMMENT) {
    const er = endRow(w, cursor, sr);
    for (let r = sr; r <= er && r < n; r++) w.commentRow[r] = 1;
    // a block comment (`/* ... */`, `=begin ... =end`) opens and closes like a bracket: a kept
    // line inside it needs both ends (blank lines inside it are not "comment" lines, so the
    // text-based run in repair.ts cannot find the ends across them)
    if (er > sr) w.addCloser(sr, er);
  } else if (f & F_IDENT) {
    w.hasCode[sr] = 1;
    if (parent.block) w.stmts.push(sr, sr);
  } else {
    w.hasCode[sr] = 1;
    const er = endRow(w, cursor, sr);
    const statement = parent.block && !(f & F_BLOCK);
    if (statement) {
      w.stmts.push(sr, er);
      parent.stmts++;
      if (f & F_DOCSTMT && spec.docstrings && parent.stmts === 1 && (stack.length === 1 || spec.docstringOwners?.has(stack[stack.length - 2]!.type))) {
        const node = cursor.currentNode;
        if (node.namedChildCount === 1 && node.namedChild(0)?.type === 'string') {
          for (let r = sr; r <= er && r < n; r++) w.docRow[r] = 1;
        }
      }
      if (f & F_REQUIRE && spec.requireImport) {
        const names = spec.requireImport(cursor.currentNode);
        if (names) w.addImport(sr, er, names);
      }
    }
    if (f & F_OPAQUE) visitString(w, cursor, table, sr, er);
    else return visitStructural(w, cursor, spec, table, parent, f, id, sr, er, statement);
  }
  return null;
}

/** Strings are not descended into; the rows they cover are remembered for the identifier scan. */
function visitString(w: WalkState, cursor: TreeCursor, table: TypeTable, sr: number, er: number): void {
  if (er > sr) {
    for (let r = sr + 1; r < er; r++) w.stringRow[r] = 1;
    w.stringEndCol[er] = cursor.endPosition.column;
    // a multi-line string opens on its first row and closes on its last, like a bracket:
    // a kept line inside it needs both, or the pruned output leaves the string unterminated.
    // An implicit concatenation ("a"\n"b") is several strings: only its multi-line parts pair.
    let parts = 0;
    for (const part of cursor.currentNode.namedChildren) {
      if (!part || !(table.flags[part.typeId]! & F_OPAQUE)) continue;
      parts++;
      w.addCloser(part.startPosition.row, part.endPosition.row);
    }
    if (parts === 0) w.addCloser(sr, er);
  }
}

/** Any other named node: decorators, scopes, clauses, imports, definitions; returns its frame. */
function visitStructural(
  w: WalkState,
  cursor: TreeCursor,
  spec: GrammarSpec,
  table: TypeTable,
  parent: Frame,
  f: number,
  id: number,
  sr: number,
  er: number,
  statement: boolean,
): Frame | null {
  const { n, scopes } = w;
  let child: Frame | null = null;
  const type = table.names[id] ?? 'ERROR';
  if (er > sr && TYPE_LISTS.has(type)) {
    // A multi-line type argument/parameter list must not come out empty (`Promise<>` does
    // not parse): its closing row needs the row its last entry starts on.
    const entries = cursor.currentNode.namedChildren;
    const last = entries[entries.length - 1]?.startPosition.row;
    if (last !== undefined && last > sr && last < er) w.addCloser(last, er);
  }
  if (f & F_TEMPLATE) for (let r = sr + 1; r < er && r < n; r++) w.templateRow[r] = 1;
  const isDecorator = (f & F_DECORATOR) !== 0;
  if (isDecorator) {
    for (let r = sr; r <= er && r < n; r++) {
      w.decoRow[r] = 1;
      (parent.pending ??= []).push(r);
    }
    w.markAttachment(sr, cursor.startPosition.column, er, cursor.endPosition);
  }
  // Multi-line nodes are walked whole. Inside one line only a statement's top levels are visited
  // (down to where definitions live, spec.defDepth): nothing else there is structural.
  const budget = er > sr ? DEEP : f & F_BLOCK ? 1 : statement ? spec.defDepth : parent.budget >= DEEP ? 0 : parent.budget - 1;
  if (budget > 0) child = frame(type, f, sr, (f & F_BLOCK) !== 0, budget, parent);
  if (f & F_SCOPE && er > sr && parent.scopeDepth < MAX_SCOPE_DEPTH) {
    // (deeper scopes are not tracked: every line lists its enclosing scopes)
    const scope = analyzeScope(w, spec, cursor.currentNode, spec.scopes[type]!, parent, sr, er);
    if (child) {
      child.scope = scopes.length;
      child.scopeDepth++;
      if (scope.isDefinition) child.definition = scopes.length;
    }
    scopes.push(scope);
  } else if (f & F_WRAPPER) {
    // the definition inside a wrapper takes the decorators seen before the wrapper
    if (child) child.pending = parent.pending;
    parent.pending = null;
  } else if (!isDecorator) {
    // a decorator applies to the next sibling only
    parent.pending = null;
  }
  // (each frame knows its nearest owner: a scan of the stack would cost O(depth) per clause)
  if (f & F_CLAUSE) w.addClause(parent.owner, sr);
  if (f & F_JSX_OPEN) (parent.open ??= []).push(JSX_OPEN, sr);
  else if (f & F_JSX_CLOSE) w.closeBracket(parent, JSX_OPEN, sr);
  if (f & F_IMPORT) w.addImport(sr, er, spec.importNames(cursor.currentNode));
  if (f & F_DEFINER) {
    const defField = spec.definers[type]!;
    const node = cursor.currentNode;
    const need = spec.definerNeeds?.[type];
    if (!need || node.childForFieldName(need)) {
      for (const fld of typeof defField === 'string' ? [defField] : defField) {
        for (const target of node.childrenForFieldName(fld)) {
          for (const d of namesIn(target)) w.addDefine(d);
        }
      }
    }
  }
  return child;
}

/** A scope from its node: where its header ends and its body starts, its name, kind and decorators. */
function analyzeScope(w: WalkState, spec: GrammarSpec, node: Node, kind: string, parent: Frame, sr: number, er: number): Scope {
  const decorators: number[] = [];
  // Sibling decorators (python decorated_definition, rust #[attr], TS member decorators).
  if (parent.pending) decorators.push(...parent.pending);
  parent.pending = null;
  let start = sr;
  let found = false;
  // (sibling steps, not `children`: the loop stops at the first real child, and every child
  // handed across the wasm boundary costs)
  for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
    const type = ch.type; // (each read of `type` is a call into wasm)
    if (spec.decorators.has(type)) {
      for (let r = ch.startPosition.row; r <= ch.endPosition.row; r++) decorators.push(r);
      continue;
    }
    if (spec.comments.has(type)) continue;
    if (spec.modifierWrappers?.has(type)) {
      for (let g = ch.firstChild; g; g = g.nextSibling) {
        const inner = g.type;
        if (spec.decorators.has(inner)) {
          for (let r = g.startPosition.row; r <= g.endPosition.row; r++) decorators.push(r);
        } else if (!spec.comments.has(inner)) {
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
  if (!body && spec.bodyTypes) {
    for (let c = node.firstChild; c && !body; c = c.nextSibling) if (spec.bodyTypes.has(c.type)) body = c;
  }
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
    // (the first named child that is not a comment: a class body's other members are not read)
    let firstStmt = body.firstNamedChild;
    while (firstStmt && spec.comments.has(firstStmt.type)) firstStmt = firstStmt.nextNamedSibling;
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
  if (kind === 'function' && parent.definition >= 0 && CLASS_KINDS.has(w.scopes[parent.definition]!.kind)) kind = 'method';
  const isDefinition = DEFINITION_KINDS.has(kind) && !!name;
  const decos = [...new Set(decorators)].filter((r) => r < start && r >= 0).sort((a, b) => a - b);
  return {
    kind,
    ...(name ? { name } : {}),
    start: w.clamp(start),
    headerEnd: w.clamp(headerEnd),
    bodyStart: w.clamp(bodyStart),
    end: w.clamp(er),
    decorators: decos,
    bodyIndent: '',
    isDefinition,
  };
}

/** What the tree walk collects; `assemble` derives the per-line facts from it. */
interface Walked {
  /** the row holds a token of code */
  hasCode: Uint8Array;
  commentRow: Uint8Array;
  docRow: Uint8Array;
  importRow: Uint8Array;
  decoRow: Uint8Array;
  clauseRow: Uint8Array;
  /** the row is inside a multi-line string (not its first or last row) */
  stringRow: Uint8Array;
  /** the row is inside a multi-line template literal (text with code in its substitutions) */
  templateRow: Uint8Array;
  /** the column where a multi-line string ends on its last row, or -1 */
  stringEndCol: Int32Array;
  /** rows holding nothing but (part of) an attribute/decorator/annotation */
  attachRow: Uint8Array;
  /** per row: names defined, names bound by an import, rows closing what it opens */
  defines: (string[] | null)[];
  bound: (string[] | null)[];
  closers: (number[] | null)[];
  /** flat [start, end, ...] in pre-order */
  stmts: number[];
  scopes: Scope[];
  /** clause groups: an owner's first row, then its clause rows */
  groups: number[][];
  definitions: Map<string, number[]>;
  imports: Map<string, number>;
  keywords: ReadonlySet<string>;
  parseOk: boolean;
}

/** The SyntaxIndex from what the walk collected: statements, scope headers, clause pairs, then each line. */
function assemble(lines: string[], language: string, w: Walked): SyntaxIndex {
  const n = lines.length;
  const { scopes } = w;
  const { stmtStart, stmtEnd } = statementRanges(w.stmts, n);
  const { headerRow, scopeEnds } = scopeHeaders(scopes, lines, stmtStart, stmtEnd);
  // blank and comment lines between a compound's statements are their own statement
  for (let r = 0; r < n; r++) {
    if (!w.hasCode[r] && stmtStart[r] !== r && scopeEnds.has(stmtEnd[r]!) && stmtStart[r]! < r) {
      stmtStart[r] = stmtEnd[r] = r;
    }
  }
  const pairs = clausePairs(w.groups, n);
  const { hasCode, docRow, commentRow, importRow, decoRow, clauseRow, stringRow, stringEndCol, defines, bound, closers } = w;

  const enclosing = enclosingScopesByRow(scopes, n);
  const out: LineSyntax[] = new Array(n);
  const isCloser = closerTest(language);
  const scan = scanOptions(language, w.keywords);
  for (let row = 0; row < n; row++) {
    const text = lines[row] ?? '';
    let kind: LineKind;
    if (isBlank(text)) kind = 'blank';
    else if (docRow[row]) kind = 'docstring';
    else if (commentRow[row] && !hasCode[row]) kind = 'comment';
    else if (importRow[row]) kind = 'import';
    else if (headerRow[row]) kind = 'header';
    else if (decoRow[row] && !defines[row]) kind = 'decorator';
    else if (clauseRow[row]) kind = 'clause';
    else if (isCloser(text)) kind = 'closer';
    else kind = 'code';

    const def = defines[row];
    const b = bound[row];
    let usesOut: string[] = [];
    // include paths are not identifiers
    const includeLine = kind === 'import' && (language === 'c' || language === 'cpp');
    if (kind !== 'blank' && kind !== 'comment' && kind !== 'docstring' && !stringRow[row] && !includeLine) {
      const from = stringEndCol[row]! >= 0 ? stringEndCol[row]! : 0;
      usesOut = identifiersIn(text, from, scan);
      if (def || b) usesOut = usesOut.filter((x) => !def?.includes(x) && !b?.includes(x));
    }
    out[row] = {
      kind,
      depth: enclosing[row]!.length,
      scopes: enclosing[row]!,
      defines: def ? (def.length > 1 ? [...new Set(def)] : def) : [],
      uses: usesOut,
      stmtStart: stmtStart[row]!,
      stmtEnd: stmtEnd[row]!,
      closers: closers[row] ? uniqueSorted(closers[row]!) : [],
      pairs: pairs[row] ? uniqueSorted(pairs[row]!) : [],
    };
  }
  return {
    language,
    hasGrammar: true,
    parseOk: w.parseOk,
    lines: out,
    scopes,
    definitions: w.definitions,
    imports: w.imports,
    attachedTo: linkAttachments(lines, out, language, w.attachRow),
    insideString: w.templateRow.includes(1) ? stringRow.map((v, r) => v | w.templateRow[r]!) : stringRow,
  };
}

/**
 * Statement ranges: each line takes the last statement (in pre-order) that covers it, so inner
 * statements override outer ones. One sweep with a stack of open statements: painting every
 * statement's lines would cost O(lines x nesting depth).
 */
function statementRanges(stmts: number[], n: number): { stmtStart: Int32Array; stmtEnd: Int32Array } {
  const last = Math.max(0, n - 1);
  const stmtStart = new Int32Array(n);
  const stmtEnd = new Int32Array(n);
  const open: number[] = []; // indexes into stmts of statements started and not yet known to be over
  for (let r = 0, k = 0; r < n; r++) {
    // pre-order visits statements by start row
    while (k < stmts.length && stmts[k]! <= r) {
      open.push(k);
      k += 2;
    }
    while (open.length && Math.min(stmts[open[open.length - 1]! + 1]!, last) < r) open.pop();
    if (open.length) {
      const top = open[open.length - 1]!;
      stmtStart[r] = stmts[top]!;
      stmtEnd[r] = Math.min(stmts[top + 1]!, last);
    } else stmtStart[r] = stmtEnd[r] = r;
  }
  return { stmtStart, stmtEnd };
}

/**
 * A compound statement's header lines (and decorators) form their own statement; each scope gets
 * its body indent. Returns the definitions' header rows and the scopes' last rows.
 */
function scopeHeaders(scopes: Scope[], lines: string[], stmtStart: Int32Array, stmtEnd: Int32Array) {
  const headerRow = new Uint8Array(lines.length);
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
    sc.bodyIndent = sc.bodyStart > sc.headerEnd && bodyLine.trim() !== '' ? leadingWhitespace(bodyLine) : leadingWhitespace(lines[sc.start] ?? '') + unit;
  }
  return { headerRow, scopeEnds };
}

/** Clause groups -> each row's paired rows; chains (`} else if (...) {` owns the next `else`) merge into one group. */
function clausePairs(groups: number[][], n: number): (number[] | null)[] {
  const pairs: (number[] | null)[] = new Array(n).fill(null);
  const parentOf = new Map<number, number>();
  const find = (r: number): number => {
    let x = r;
    while (parentOf.has(x) && parentOf.get(x) !== x) x = parentOf.get(x)!;
    // path compression: a long `else if` chain would otherwise be walked once per member
    for (let y = r; y !== x; ) {
      const next = parentOf.get(y) ?? x;
      parentOf.set(y, x);
      y = next;
    }
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
  for (const rows of members.values()) pairGroup(rows, (r, o) => push(pairs, r, o));
  return pairs;
}
