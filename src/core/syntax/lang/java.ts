/** tree-sitter-java node types. */

import { lastName, set } from './names.js';
import type { GrammarSpec } from './types.js';

export const java: GrammarSpec = {
  grammar: 'java',
  extraKeywords: ['this'],
  scopes: {
    class_declaration: 'class',
    interface_declaration: 'interface',
    enum_declaration: 'enum',
    record_declaration: 'class',
    annotation_type_declaration: 'interface',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
    compact_constructor_declaration: 'constructor',
    lambda_expression: 'function',
    static_initializer: 'block',
    if_statement: 'if',
    for_statement: 'for',
    enhanced_for_statement: 'for',
    while_statement: 'while',
    do_statement: 'while',
    try_statement: 'try',
    try_with_resources_statement: 'try',
    switch_expression: 'switch',
    synchronized_statement: 'block',
  },
  blocks: set(
    'program',
    'block',
    'class_body',
    'interface_body',
    'enum_body',
    'constructor_body',
    'switch_block_statement_group',
    'annotation_type_body',
    'enum_body_declarations',
  ),
  decorators: set('annotation', 'marker_annotation'),
  modifierWrappers: set('modifiers'),
  comments: set('line_comment', 'block_comment', 'comment'),
  opaque: set('string_literal', 'character_literal', 'text_block'),
  clauses: set('catch_clause', 'finally_clause', 'switch_block_statement_group', 'switch_rule'),
  clauseKeywords: set('else'),
  owners: set('if_statement', 'try_statement', 'try_with_resources_statement', 'switch_expression', 'switch_statement'),
  imports: set('import_declaration'),
  importNames(node) {
    if (node.namedChildren.some((c) => c?.type === 'asterisk')) return [];
    const n = lastName(node);
    return n ? [n] : [];
  },
  defDepth: 1,
  definers: {
    class_declaration: 'name',
    interface_declaration: 'name',
    enum_declaration: 'name',
    record_declaration: 'name',
    annotation_type_declaration: 'name',
    method_declaration: 'name',
    constructor_declaration: 'name',
    variable_declarator: 'name',
    enum_constant: 'name',
  },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('block', 'class_body', 'switch_block'),
};
