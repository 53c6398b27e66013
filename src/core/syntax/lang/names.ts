/** Helpers shared by language modules to pull names out of small subtrees (definitions, imports). */
import type { Node } from 'web-tree-sitter';
import type { NameAt } from './types.js';

/** Leaf node types that are identifiers in some grammar. */
export const IDENTIFIER_TYPES: ReadonlySet<string> = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'property_identifier',
  'private_property_identifier',
  'shorthand_property_identifier',
  'shorthand_property_identifier_pattern',
  'package_identifier',
  'namespace_identifier',
  'constant', // ruby
  'instance_variable', // ruby
  'class_variable', // ruby
  'global_variable', // ruby
  'name', // php
  'simple_identifier', // kotlin/swift grammars
  'statement_identifier',
]);

/** Wrappers whose named children may each be a bound name (destructuring, tuples, declarator lists). */
const PATTERN_CONTAINER =
  /pattern|^pattern_list$|tuple|^list$|^list_splat|expression_list|destructur|^array$|^object$|^left_assignment_list$|^destructured_left_assignment$|^rest|^spread|^parenthesized/;

/** Member access node types: `self.x = ...` defines x. */
const MEMBER = new Set(['attribute', 'member_expression', 'field_expression', 'selector_expression', 'member_access_expression']);

const SELF_NAMES = new Set(['self', 'this', '@']);

/** Node types wrapping a declarator (C/C++): follow their `declarator` field. */
const DECLARATOR_WRAPPER = /_declarator$|^init_declarator$|^variable_declarator$/;

/** Sigils and ruby predicate/setter suffixes are not part of the name as the lexical scan sees it. */
function bare(name: string): string {
  return name.replace(/^[@$]+/, '').replace(/[?!=]$/, '');
}

export function at(node: Node, name?: string): NameAt {
  return { name: bare(name ?? node.text), row: node.startPosition.row };
}

/** The defined names in a definition's name/left/pattern/declarator subtree. */
export function namesIn(node: Node | null | undefined, out: NameAt[] = [], depth = 0): NameAt[] {
  if (!node || depth > 12) return out;
  const t = node.type;
  if (IDENTIFIER_TYPES.has(t) || t === 'operator_name' || t === 'destructor_name' || t === 'variable_name') {
    // php variable_name is `$x`: report x.
    out.push(at(node, t === 'variable_name' ? node.text.replace(/^\$/, '') : node.text));
    return out;
  }
  if (t === 'qualified_identifier' || t === 'scoped_identifier' || t === 'scoped_type_identifier') {
    const n = node.childForFieldName('name');
    if (n) namesIn(n, out, depth + 1);
    return out;
  }
  if (MEMBER.has(t)) {
    const obj = node.childForFieldName('object') ?? node.childForFieldName('operand') ?? node.childForFieldName('expression') ?? node.namedChild(0);
    const prop = node.childForFieldName('attribute') ?? node.childForFieldName('property') ?? node.childForFieldName('field') ?? node.childForFieldName('name');
    if (obj && prop && SELF_NAMES.has(obj.text)) out.push(at(prop));
    return out;
  }
  if (DECLARATOR_WRAPPER.test(t)) {
    // C++ reference_declarator has no field: its declarator is the last named child
    const d = node.childForFieldName('declarator') ?? node.childForFieldName('name') ?? node.namedChild(node.namedChildCount - 1);
    if (d) return namesIn(d, out, depth + 1);
  }
  if (t === 'pair_pattern' || t === 'keyword_pattern') {
    return namesIn(node.childForFieldName('value') ?? node.namedChild(node.namedChildCount - 1), out, depth + 1);
  }
  if (t === 'assignment_pattern' || t === 'object_assignment_pattern' || t === 'default_parameter') {
    return namesIn(node.childForFieldName('left') ?? node.namedChild(0), out, depth + 1);
  }
  if (PATTERN_CONTAINER.test(t)) {
    for (const ch of node.namedChildren) if (ch) namesIn(ch, out, depth + 1);
  }
  return out;
}

/** The last identifier-like leaf of a subtree (`a.b.c` -> c). */
export function lastName(node: Node | null | undefined): NameAt | null {
  if (!node) return null;
  if (IDENTIFIER_TYPES.has(node.type) || node.childCount === 0) {
    return /^[A-Za-z_$][\w$]*$/.test(node.text) ? at(node) : null;
  }
  for (let i = node.namedChildCount - 1; i >= 0; i--) {
    const r = lastName(node.namedChild(i));
    if (r) return r;
  }
  return null;
}

/** The first identifier-like leaf of a subtree (`import a.b.c` binds a). */
export function firstName(node: Node | null | undefined): NameAt | null {
  if (!node) return null;
  if (IDENTIFIER_TYPES.has(node.type) || node.childCount === 0) {
    return /^[A-Za-z_$][\w$]*$/.test(node.text) ? at(node) : null;
  }
  for (let i = 0; i < node.namedChildCount; i++) {
    const r = firstName(node.namedChild(i));
    if (r) return r;
  }
  return null;
}

/** Named descendants of given types (bounded, for small import subtrees). */
export function descendants(node: Node, types: ReadonlySet<string>, out: Node[] = [], depth = 0): Node[] {
  if (depth > 10) return out;
  for (const ch of node.namedChildren) {
    if (!ch) continue;
    if (types.has(ch.type)) out.push(ch);
    else descendants(ch, types, out, depth + 1);
  }
  return out;
}

export const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
