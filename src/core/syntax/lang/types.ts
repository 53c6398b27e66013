/**
 * Per-language node-type tables consumed by the generic walker (walker.ts).
 * Each language module only says which node types mean what; the walking logic is shared.
 */
import type { Node } from 'web-tree-sitter';

/** A name bound or defined by a node, with the row it appears on. */
export interface NameAt {
  name: string;
  row: number;
}

export interface GrammarSpec {
  /** Grammar name as used by grammars.ts ("python", "tsx", ...). */
  readonly grammar: string;
  /** Contextual keywords that are also common identifiers: kept as uses. */
  readonly softKeywords?: ReadonlySet<string>;
  /** Literal-like identifiers the grammar models as named nodes (`self`, `nil`, built-in types): not uses. */
  readonly extraKeywords?: readonly string[];
  /** Node type -> normalized scope kind ("function", "class", "if", ...). Only multi-line nodes become scopes. */
  readonly scopes: Readonly<Record<string, string>>;
  /** Containers whose named children are statements (module, block, class body, ...). The root always is. */
  readonly blocks: ReadonlySet<string>;
  /** Decorator / annotation / attribute node types. */
  readonly decorators: ReadonlySet<string>;
  /** Children of a definition that may hold annotations before the first real token (java `modifiers`). */
  readonly modifierWrappers?: ReadonlySet<string>;
  /** Comment node types (not descended into). */
  readonly comments: ReadonlySet<string>;
  /** Node types not descended into (string literals): they count as code on their first row. */
  readonly opaque: ReadonlySet<string>;
  /**
   * Literals walked like code (their substitutions are code) whose inner rows are still text to a
   * marker: none may land there (JS template strings).
   */
  readonly templates?: ReadonlySet<string>;
  /** Named node types whose first row is a clause line (else/except/catch/case/match arm...). */
  readonly clauses: ReadonlySet<string>;
  /** Anonymous keyword tokens that are clause lines when their parent is an owner (`else` in Go/Java/C#). */
  readonly clauseKeywords?: ReadonlySet<string>;
  /** Node types that own clauses (if/try/switch/match...). */
  readonly owners: ReadonlySet<string>;
  /** Anonymous tokens that close the node they belong to (`end`, `#endif`). */
  readonly endTokens?: ReadonlySet<string>;
  /** Import statement node types. */
  readonly imports: ReadonlySet<string>;
  /** Names bound by an import node. */
  importNames(node: Node): NameAt[];
  /** Statement node types that may be a require-style import (`const x = require('y')`, ruby `require`). */
  readonly requireCandidates?: ReadonlySet<string>;
  /** For a require candidate: null when it is not an import, else the names it binds. */
  requireImport?(node: Node): NameAt[] | null;
  /** Node type -> field(s) holding the name(s) it defines. */
  readonly definers: Readonly<Record<string, string | readonly string[]>>;
  /** Node type -> field that must be present for the node to define anything (C `struct x {...}` vs `struct x *p`). */
  readonly definerNeeds?: Readonly<Record<string, string>>;
  /**
   * How deep below a one-line statement definitions can sit (python `x = 1`: expression_statement >
   * assignment = 1; C# field > variable_declaration > variable_declarator = 2). Deeper is not visited.
   */
  readonly defDepth: number;
  /** Python-style docstrings (first string statement of a module/class/function body). */
  readonly docstrings?: boolean;
  /** Definition node types whose body may hold a docstring. */
  readonly docstringOwners?: ReadonlySet<string>;
  /** Field names that hold a scope's body, in order of preference. */
  readonly bodyFields: readonly string[];
  /** Node types that are a scope's body when no body field is set. */
  readonly bodyTypes?: ReadonlySet<string>;
  /** Special-case scope names (rust impl type, go type declarations). */
  nameOf?(node: Node): string | undefined;
  /** Scope kind override for a node (go type_declaration -> struct/interface). */
  kindOf?(node: Node, kind: string): string;
}
