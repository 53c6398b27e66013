/** tree-sitter-javascript / typescript / tsx node types (one table: TS adds types JS never produces). */
import type { Node } from 'web-tree-sitter';
import { at, namesIn, set } from './names.js';
import type { GrammarSpec, NameAt } from './types.js';

function isRequireCall(node: Node | null): boolean {
  if (!node) return false;
  if (node.type === 'await_expression') return isRequireCall(node.namedChild(0));
  if (node.type === 'member_expression') return isRequireCall(node.childForFieldName('object'));
  if (node.type !== 'call_expression') return false;
  const fn = node.childForFieldName('function');
  return !!fn && (fn.text === 'require' || fn.type === 'import');
}

function importNames(node: Node): NameAt[] {
  const out: NameAt[] = [];
  for (const ch of node.namedChildren) {
    if (!ch) continue;
    if (ch.type === 'import_clause') {
      for (const part of ch.namedChildren) {
        if (!part) continue;
        if (part.type === 'identifier') out.push(at(part));
        else if (part.type === 'namespace_import') {
          const id = part.namedChildren.find((x) => x?.type === 'identifier');
          if (id) out.push(at(id));
        } else if (part.type === 'named_imports') {
          for (const spec of part.namedChildren) {
            if (spec?.type !== 'import_specifier') continue;
            const n = spec.childForFieldName('alias') ?? spec.childForFieldName('name');
            if (n) out.push(at(n));
          }
        }
      }
    } else if (ch.type === 'import_require_clause') {
      const id = ch.namedChildren.find((x) => x?.type === 'identifier');
      if (id) out.push(at(id));
    }
  }
  return out;
}

export const javascript: GrammarSpec = {
  grammar: 'javascript',
  softKeywords: set('get', 'set', 'of', 'type', 'target', 'meta', 'module', 'namespace', 'require', 'constructor', 'global'),
  extraKeywords: ['this', 'undefined'],
  scopes: {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    function_expression: 'function',
    function: 'function',
    generator_function: 'function',
    arrow_function: 'function',
    method_definition: 'method',
    class_declaration: 'class',
    abstract_class_declaration: 'class',
    class: 'class',
    interface_declaration: 'interface',
    enum_declaration: 'enum',
    internal_module: 'namespace',
    module: 'namespace',
    if_statement: 'if',
    for_statement: 'for',
    for_in_statement: 'for',
    while_statement: 'while',
    do_statement: 'while',
    try_statement: 'try',
    switch_statement: 'switch',
  },
  blocks: set('program', 'statement_block', 'class_body', 'switch_case', 'switch_default', 'interface_body', 'enum_body', 'object_type'),
  decorators: set('decorator'),
  comments: set('comment', 'html_comment'),
  opaque: set('string', 'regex'),
  templates: set('template_string'),
  clauses: set('else_clause', 'catch_clause', 'finally_clause', 'switch_case', 'switch_default'),
  owners: set('if_statement', 'try_statement', 'switch_statement'),
  imports: set('import_statement'),
  importNames,
  requireCandidates: set('lexical_declaration', 'variable_declaration', 'expression_statement'),
  requireImport(node) {
    if (node.type === 'expression_statement') return isRequireCall(node.namedChild(0)) ? [] : null;
    // `var a = require('a'), b = f()` binds a only, but is still an import statement
    const out: NameAt[] = [];
    let any = false;
    for (const d of node.namedChildren) {
      if (d?.type !== 'variable_declarator' || !isRequireCall(d.childForFieldName('value'))) continue;
      any = true;
      namesIn(d.childForFieldName('name'), out);
    }
    return any ? out : null;
  },
  defDepth: 2,
  definers: {
    function_declaration: 'name',
    generator_function_declaration: 'name',
    class_declaration: 'name',
    abstract_class_declaration: 'name',
    method_definition: 'name',
    variable_declarator: 'name',
    interface_declaration: 'name',
    type_alias_declaration: 'name',
    enum_declaration: 'name',
    public_field_definition: 'name',
    field_definition: 'property',
    function_signature: 'name',
    method_signature: 'name',
    abstract_method_signature: 'name',
    internal_module: 'name',
  },
  bodyFields: ['body', 'consequence'],
  bodyTypes: set('statement_block', 'class_body'),
};

export const typescript: GrammarSpec = { ...javascript, grammar: 'typescript' };
export const tsx: GrammarSpec = { ...javascript, grammar: 'tsx' };
