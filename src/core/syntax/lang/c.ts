/** tree-sitter-c and tree-sitter-cpp node types (C++ adds types C never produces). */

import { lastName, namesIn, set } from './names.js';
import type { GrammarSpec } from './types.js';

export const c: GrammarSpec = {
  grammar: 'c',
  extraKeywords: 'include define undef ifdef ifndef endif elif pragma void int char long short unsigned signed float double bool this nullptr'.split(' '),
  scopes: {
    function_definition: 'function',
    struct_specifier: 'struct',
    union_specifier: 'struct',
    enum_specifier: 'enum',
    class_specifier: 'class',
    namespace_definition: 'namespace',
    linkage_specification: 'block',
    lambda_expression: 'function',
    if_statement: 'if',
    for_statement: 'for',
    for_range_loop: 'for',
    while_statement: 'while',
    do_statement: 'while',
    switch_statement: 'switch',
    try_statement: 'try',
    preproc_if: 'preproc',
    preproc_ifdef: 'preproc',
  },
  blocks: set(
    'translation_unit',
    'compound_statement',
    'declaration_list',
    'field_declaration_list',
    'case_statement',
    'preproc_if',
    'preproc_ifdef',
    'preproc_else',
    'preproc_elif',
    'preproc_elifdef',
    'enumerator_list',
  ),
  decorators: set('attribute_declaration', 'template_parameter_list'),
  comments: set('comment'),
  opaque: set('string_literal', 'raw_string_literal', 'char_literal', 'system_lib_string', 'concatenated_string'),
  clauses: set('else_clause', 'case_statement', 'catch_clause', 'preproc_else', 'preproc_elif', 'preproc_elifdef'),
  clauseKeywords: set('else'),
  owners: set('if_statement', 'switch_statement', 'try_statement', 'preproc_if', 'preproc_ifdef'),
  endTokens: set('#endif'),
  imports: set('preproc_include', 'using_declaration'),
  importNames(node) {
    if (node.type !== 'using_declaration' || /^using\s+namespace\b/.test(node.text)) return [];
    const n = lastName(node);
    return n ? [n] : [];
  },
  defDepth: 1,
  definers: {
    function_definition: 'declarator',
    declaration: 'declarator',
    field_declaration: 'declarator',
    type_definition: 'declarator',
    struct_specifier: 'name',
    union_specifier: 'name',
    enum_specifier: 'name',
    class_specifier: 'name',
    namespace_definition: 'name',
    alias_declaration: 'name',
    preproc_def: 'name',
    preproc_function_def: 'name',
    enumerator: 'name',
  },
  definerNeeds: { struct_specifier: 'body', union_specifier: 'body', enum_specifier: 'body', class_specifier: 'body' },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('compound_statement', 'field_declaration_list', 'declaration_list'),
  nameOf(node) {
    if (node.type === 'function_definition') return namesIn(node.childForFieldName('declarator'))[0]?.name;
    if (node.type === 'preproc_ifdef' || node.type === 'preproc_if') return node.childForFieldName('name')?.text;
    return undefined;
  },
};

export const cpp: GrammarSpec = { ...c, grammar: 'cpp' };
