/** tree-sitter-ruby node types. */

import { set } from './names.js';
import type { GrammarSpec } from './types.js';

const REQUIRE = new Set(['require', 'require_relative', 'load', 'autoload']);

export const ruby: GrammarSpec = {
  grammar: 'ruby',
  extraKeywords: ['self', 'nil'],
  scopes: {
    method: 'method',
    singleton_method: 'method',
    class: 'class',
    singleton_class: 'class',
    module: 'module',
    do_block: 'block',
    block: 'block',
    lambda: 'function',
    if: 'if',
    unless: 'if',
    case: 'switch',
    case_match: 'match',
    while: 'while',
    until: 'while',
    for: 'for',
    begin: 'try',
  },
  blocks: set('program', 'body_statement', 'then', 'else', 'block_body', 'begin_block', 'end_block', 'ensure', 'do'),
  decorators: set(),
  comments: set('comment'),
  opaque: set('string', 'heredoc_body', 'regex', 'string_array', 'symbol_array', 'simple_symbol', 'delimited_symbol'),
  clauses: set('elsif', 'else', 'when', 'in_clause', 'rescue', 'ensure'),
  owners: set('if', 'unless', 'case', 'case_match', 'begin', 'method', 'singleton_method', 'do_block', 'block', 'class', 'module', 'while', 'until'),
  endTokens: set('end'),
  imports: set(),
  importNames: () => [],
  requireCandidates: set('call'),
  requireImport(node) {
    if (node.childForFieldName('receiver')) return null;
    const m = node.childForFieldName('method');
    return m && REQUIRE.has(m.text) ? [] : null;
  },
  defDepth: 1,
  definers: {
    method: 'name',
    singleton_method: 'name',
    class: 'name',
    module: 'name',
    assignment: 'left',
  },
  bodyFields: ['body', 'consequence'],
};
