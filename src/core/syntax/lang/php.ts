/** tree-sitter-php node types. */

import { at, lastName, set } from './names.js';
import type { GrammarSpec, NameAt } from './types.js';

export const php: GrammarSpec = {
  grammar: 'php',
  extraKeywords: ['this', 'php'],
  scopes: {
    function_definition: 'function',
    method_declaration: 'method',
    class_declaration: 'class',
    interface_declaration: 'interface',
    trait_declaration: 'trait',
    enum_declaration: 'enum',
    namespace_definition: 'namespace',
    anonymous_function: 'function',
    anonymous_function_creation_expression: 'function',
    arrow_function: 'function',
    if_statement: 'if',
    for_statement: 'for',
    foreach_statement: 'for',
    while_statement: 'while',
    do_statement: 'while',
    switch_statement: 'switch',
    try_statement: 'try',
  },
  blocks: set('program', 'compound_statement', 'declaration_list', 'case_statement', 'default_statement', 'enum_declaration_list', 'switch_block'),
  decorators: set('attribute_list'),
  comments: set('comment'),
  opaque: set('string', 'encapsed_string', 'heredoc', 'nowdoc'),
  clauses: set('else_clause', 'else_if_clause', 'catch_clause', 'finally_clause', 'case_statement', 'default_statement'),
  owners: set('if_statement', 'try_statement', 'switch_statement'),
  endTokens: set('endif', 'endforeach', 'endfor', 'endwhile', 'endswitch'),
  imports: set('namespace_use_declaration'),
  importNames(node) {
    const out: NameAt[] = [];
    const clauses = node.namedChildren.filter((c) => c?.type === 'namespace_use_clause');
    const group = node.namedChildren.find((c) => c?.type === 'namespace_use_group');
    if (group) for (const c of group.namedChildren) if (c?.type === 'namespace_use_clause' || c?.type === 'namespace_use_group_clause') clauses.push(c);
    for (const cl of clauses) {
      if (!cl) continue;
      const alias = cl.childForFieldName('alias') ?? cl.namedChildren.find((c) => c?.type === 'namespace_aliasing_clause')?.namedChild(0);
      const n = alias ? at(alias) : lastName(cl);
      if (n) out.push(n);
    }
    return out;
  },
  requireCandidates: set('expression_statement'),
  requireImport(node) {
    const e = node.namedChild(0);
    return e && /^(require|include)(_once)?_expression$/.test(e.type) ? [] : null;
  },
  defDepth: 1,
  definers: {
    function_definition: 'name',
    method_declaration: 'name',
    class_declaration: 'name',
    interface_declaration: 'name',
    trait_declaration: 'name',
    enum_declaration: 'name',
    assignment_expression: 'left',
    const_element: 'name',
    property_element: 'name',
  },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('compound_statement', 'declaration_list'),
};
