/** tree-sitter-python node types. */

import { at, firstName, lastName, set } from './names.js';
import type { GrammarSpec, NameAt } from './types.js';

export const python: GrammarSpec = {
  grammar: 'python',
  softKeywords: set('match', 'case', 'type', 'print', 'exec', '_'),
  extraKeywords: ['True', 'False', 'None', 'self', 'cls'],
  scopes: {
    function_definition: 'function',
    class_definition: 'class',
    if_statement: 'if',
    for_statement: 'for',
    while_statement: 'while',
    try_statement: 'try',
    with_statement: 'with',
    match_statement: 'match',
  },
  blocks: set('module', 'block'),
  decorators: set('decorator'),
  comments: set('comment'),
  opaque: set('string', 'concatenated_string'),
  clauses: set('elif_clause', 'else_clause', 'except_clause', 'except_group_clause', 'finally_clause', 'case_clause'),
  owners: set('if_statement', 'try_statement', 'for_statement', 'while_statement', 'match_statement'),
  imports: set('import_statement', 'import_from_statement', 'future_import_statement'),
  importNames(node) {
    const out: NameAt[] = [];
    const from = node.type !== 'import_statement';
    for (const ch of node.childrenForFieldName('name')) {
      if (!ch) continue;
      if (ch.type === 'aliased_import') {
        const alias = ch.childForFieldName('alias');
        if (alias) out.push(at(alias));
      } else {
        // `import a.b` binds a; `from x import a` binds a.
        const n = from ? lastName(ch) : firstName(ch);
        if (n) out.push(n);
      }
    }
    return out;
  },
  defDepth: 1,
  definers: {
    function_definition: 'name',
    class_definition: 'name',
    assignment: 'left',
    type_alias_statement: 'left',
  },
  docstrings: true,
  docstringOwners: set('function_definition', 'class_definition'),
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('block'),
};
