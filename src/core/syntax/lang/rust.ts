/** tree-sitter-rust node types. */
import type { Node } from 'web-tree-sitter';
import { at, lastName, set } from './names.js';
import type { GrammarSpec, NameAt } from './types.js';

/** Names bound by a `use` tree: `a::b` -> b, `a::{b, c as d}` -> b, d, `a::*` -> none. */
function useNames(node: Node | null, out: NameAt[], depth = 0): void {
  if (!node || depth > 10) return;
  switch (node.type) {
    case 'use_as_clause': {
      const alias = node.childForFieldName('alias');
      if (alias) out.push(at(alias));
      return;
    }
    case 'use_list':
      for (const ch of node.namedChildren) useNames(ch, out, depth + 1);
      return;
    case 'scoped_use_list':
      useNames(node.childForFieldName('list'), out, depth + 1);
      return;
    case 'use_wildcard':
      return;
    case 'self': {
      return;
    }
    default: {
      const n = node.type === 'identifier' ? at(node) : lastName(node.childForFieldName('name') ?? node);
      if (n && n.name !== 'self') out.push(n);
    }
  }
}

export const rust: GrammarSpec = {
  grammar: 'rust',
  softKeywords: set('union', 'default', 'macro_rules', 'raw'),
  extraKeywords: 'self Self bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64'.split(' '),
  scopes: {
    function_item: 'function',
    impl_item: 'impl',
    trait_item: 'trait',
    struct_item: 'struct',
    enum_item: 'enum',
    union_item: 'struct',
    mod_item: 'module',
    macro_definition: 'macro',
    closure_expression: 'function',
    if_expression: 'if',
    match_expression: 'match',
    for_expression: 'for',
    while_expression: 'while',
    loop_expression: 'loop',
    unsafe_block: 'block',
  },
  blocks: set('source_file', 'block', 'declaration_list', 'field_declaration_list', 'enum_variant_list'),
  decorators: set('attribute_item'),
  comments: set('line_comment', 'block_comment'),
  opaque: set('string_literal', 'raw_string_literal', 'char_literal'),
  clauses: set('else_clause', 'match_arm'),
  owners: set('if_expression', 'match_expression'),
  imports: set('use_declaration', 'extern_crate_declaration'),
  importNames(node) {
    const out: NameAt[] = [];
    if (node.type === 'extern_crate_declaration') {
      const n = node.childForFieldName('alias') ?? node.childForFieldName('name');
      if (n) out.push(at(n));
      return out;
    }
    useNames(node.childForFieldName('argument'), out);
    return out;
  },
  defDepth: 1,
  definers: {
    function_item: 'name',
    function_signature_item: 'name',
    struct_item: 'name',
    enum_item: 'name',
    union_item: 'name',
    trait_item: 'name',
    type_item: 'name',
    const_item: 'name',
    static_item: 'name',
    mod_item: 'name',
    macro_definition: 'name',
    enum_variant: 'name',
    let_declaration: 'pattern',
  },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('block', 'declaration_list', 'field_declaration_list', 'match_block'),
  nameOf(node) {
    if (node.type === 'impl_item') {
      return node.childForFieldName('type')?.text;
    }
    return undefined;
  },
};
