/** tree-sitter-go node types. */

import { at, set } from './names.js';
import type { GrammarSpec, NameAt } from './types.js';

/** Package name a Go import path binds when not aliased: last segment, minus version suffixes. */
function packageOf(path: string): string | null {
  const segs = path
    .replace(/^["`]|["`]$/g, '')
    .split('/')
    .filter(Boolean);
  let last = segs.pop();
  if (last && /^v\d+$/.test(last)) last = segs.pop();
  if (!last) return null;
  const name = last
    .replace(/\.v\d+$/, '')
    .replace(/^go-/, '')
    .replace(/[.-]go$/, '')
    .replace(/[^\w]/g, '_');
  return name || null;
}

export const go: GrammarSpec = {
  grammar: 'go',
  softKeywords: set('len', 'cap', 'make', 'new', 'append'),
  extraKeywords: 'nil iota string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr byte rune bool error float32 float64 any'.split(' '),
  scopes: {
    function_declaration: 'function',
    method_declaration: 'method',
    func_literal: 'function',
    type_declaration: 'type',
    if_statement: 'if',
    for_statement: 'for',
    expression_switch_statement: 'switch',
    type_switch_statement: 'switch',
    select_statement: 'select',
  },
  blocks: set('source_file', 'statement_list', 'block', 'field_declaration_list', 'method_spec_list'),
  decorators: set(),
  comments: set('comment'),
  opaque: set('interpreted_string_literal', 'raw_string_literal', 'rune_literal'),
  clauses: set('expression_case', 'default_case', 'type_case', 'communication_case'),
  clauseKeywords: set('else'),
  owners: set('if_statement', 'expression_switch_statement', 'type_switch_statement', 'select_statement'),
  imports: set('import_declaration'),
  importNames(node) {
    const out: NameAt[] = [];
    const visit = (n: typeof node) => {
      for (const ch of n.namedChildren) {
        if (!ch) continue;
        if (ch.type === 'import_spec_list') visit(ch);
        else if (ch.type === 'import_spec') {
          const alias = ch.childForFieldName('name');
          const path = ch.childForFieldName('path');
          if (alias) {
            if (alias.type === 'package_identifier') out.push(at(alias));
          } else if (path) {
            const p = packageOf(path.text);
            if (p) out.push({ name: p, row: path.startPosition.row });
          }
        }
      }
    };
    visit(node);
    return out;
  },
  defDepth: 1,
  definers: {
    function_declaration: 'name',
    method_declaration: 'name',
    type_spec: 'name',
    type_alias: 'name',
    var_spec: 'name',
    const_spec: 'name',
    short_var_declaration: 'left',
  },
  bodyFields: ['body', 'consequence'],
  nameOf(node) {
    if (node.type === 'type_declaration') {
      const spec = node.namedChildren.find((c) => c?.type === 'type_spec' || c?.type === 'type_alias');
      return spec?.childForFieldName('name')?.text;
    }
    return undefined;
  },
  kindOf(node, kind) {
    if (node.type !== 'type_declaration') return kind;
    const spec = node.namedChildren.find((c) => c?.type === 'type_spec');
    const t = spec?.childForFieldName('type')?.type;
    return t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
  },
};
