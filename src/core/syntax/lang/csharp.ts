/** tree-sitter-c-sharp node types. */

import { at, lastName, set } from './names.js';
import type { GrammarSpec } from './types.js';

export const c_sharp: GrammarSpec = {
  grammar: 'c_sharp',
  softKeywords: set(
    ...'value var nameof global record file args select from where group into let on by with get set add remove partial init when dynamic'.split(' '),
  ),
  extraKeywords: 'this bool byte char decimal double float int long object sbyte short string uint ulong ushort void'.split(' '),
  scopes: {
    namespace_declaration: 'namespace',
    class_declaration: 'class',
    struct_declaration: 'struct',
    interface_declaration: 'interface',
    enum_declaration: 'enum',
    record_declaration: 'class',
    record_struct_declaration: 'struct',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
    destructor_declaration: 'method',
    operator_declaration: 'method',
    conversion_operator_declaration: 'method',
    property_declaration: 'property',
    indexer_declaration: 'property',
    local_function_statement: 'function',
    lambda_expression: 'function',
    anonymous_method_expression: 'function',
    if_statement: 'if',
    for_statement: 'for',
    foreach_statement: 'for',
    for_each_statement: 'for',
    while_statement: 'while',
    do_statement: 'while',
    switch_statement: 'switch',
    try_statement: 'try',
    using_statement: 'block',
    lock_statement: 'block',
    // #if ... #elif ... #else ... #endif, as in C: a line inside a branch needs that branch's directive
    preproc_if: 'preproc',
  },
  blocks: set(
    'compilation_unit',
    'block',
    'declaration_list',
    'switch_section',
    'enum_member_declaration_list',
    'file_scoped_namespace_declaration',
    'preproc_if',
    'preproc_elif',
    'preproc_else',
  ),
  decorators: set('attribute_list'),
  comments: set('comment'),
  opaque: set('string_literal', 'verbatim_string_literal', 'raw_string_literal', 'character_literal', 'interpolated_string_expression'),
  clauses: set('catch_clause', 'finally_clause', 'switch_section', 'preproc_elif', 'preproc_else'),
  clauseKeywords: set('else'),
  owners: set('if_statement', 'try_statement', 'switch_statement', 'preproc_if'),
  endTokens: set('#endif'),
  imports: set('using_directive'),
  importNames(node) {
    const alias = node.childForFieldName('name');
    if (alias) return [at(alias)];
    const n = lastName(node);
    return n ? [n] : [];
  },
  defDepth: 2,
  definers: {
    class_declaration: 'name',
    struct_declaration: 'name',
    interface_declaration: 'name',
    enum_declaration: 'name',
    record_declaration: 'name',
    method_declaration: 'name',
    constructor_declaration: 'name',
    property_declaration: 'name',
    variable_declarator: 'name',
    namespace_declaration: 'name',
    delegate_declaration: 'name',
    local_function_statement: 'name',
    enum_member_declaration: 'name',
    event_declaration: 'name',
  },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('block', 'declaration_list', 'accessor_list', 'switch_body'),
};
