/**
 * Repair (design 2.5): after selection, add back what kept lines cannot be read without:
 * enclosing scope headers and their decorators, the first (and closing) line of a multi-line
 * statement, lines that close brackets/blocks opened on kept lines, paired clauses
 * (try/except/finally, if/elif/else), the header of every clause a kept line sits in, and the
 * import or definition header of names a score-kept line uses. Works on one segment; indexes are
 * segment-local. dropOrphans is the same rule run the other way, for headers that had to go.
 */
import type { KeepReason } from '../pipeline/types.js';
import type { SyntaxIndex } from '../types.js';

export interface RepairOptions {
  /** Pull imports/definitions of names used by score-kept lines (default true). */
  dependencies?: boolean;
  /** At most this many definition headers pulled per used name (default 2). */
  maxDefinitionsPerName?: number;
  /** The language delimits blocks with braces (Allman `{` lines, preprocessor chains). */
  braces?: boolean;
  /**
   * Whole multi-line signatures and decorators (default true). Budget mode turns this off: the
   * first and last header line keep the output valid, the middle is a marker inside brackets.
   */
  fullHeaders?: boolean;
}

/**
 * Close `mask` (1 = kept) under the dependency rules. `reasons` receives why each added line came
 * back; lines already kept keep their reason. Returns the number of lines added.
 */
export function repairClosure(mask: Uint8Array, syntax: SyntaxIndex, texts: string[], reasons: (KeepReason | undefined)[], opts: RepairOptions = {}): number {
  const n = mask.length;
  const useDeps = opts.dependencies ?? true;
  const maxDefs = opts.maxDefinitionsPerName ?? 2;
  const braces = opts.braces ?? false;
  const full = opts.fullHeaders ?? true;
  /** A scope's header: all of a multi-line signature and the decorators, or (economy) its first and last line. */
  const addHeader = (s: { start: number; headerEnd: number; decorators: number[] }) => {
    if (full) {
      for (let h = s.start; h <= s.headerEnd; h++) add(h, 'header');
      for (const d of s.decorators) add(d, 'decorator');
    } else {
      add(s.start, 'header');
      add(s.headerEnd, 'header');
    }
  };
  const queue: number[] = [];
  const seeds = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (mask[i]) {
      queue.push(i);
      if (reasons[i] === 'score' || reasons[i] === undefined) seeds[i] = 1;
    }
  }
  let added = 0;
  const add = (j: number, why: KeepReason) => {
    if (j < 0 || j >= n || mask[j]) return;
    mask[j] = 1;
    reasons[j] = why;
    queue.push(j);
    added++;
  };

  const linkHead = linkHeads(syntax, texts);

  while (queue.length > 0) {
    const i = queue.pop()!;
    const ls = syntax.lines[i];
    if (!ls) continue;
    if (ls.kind === 'blank') continue;
    for (const k of ls.scopes) {
      const s = syntax.scopes[k];
      if (!s) continue;
      addHeader(s);
    }
    // ...and the header of every clause around it: an `else:` body shown without its `else:` would
    // read as the `if` body (dropOrphans is the other half of this rule, for lines that cannot stay).
    for (const c of clauseHeaders(syntax, i)) add(c, 'header');
    // An attribute, decorator or doc comment documents nothing without its item.
    const item = syntax.attachedTo?.[i] ?? -1;
    if (item > i) add(item, 'header');
    // A scope that starts on this line: its multi-line header (up to an Allman-style `{` line) and decorators come along.
    for (const s of scopesStartingAt(syntax, i)) addHeader(s);
    // Brackets this line closes need the lines that opened them.
    for (const o of openersOf(syntax, i)) add(o, 'closer');
    // The innermost bracket pair around this line comes along (outer ones follow by closure).
    const enclosing = enclosingBrackets(syntax)[i];
    if (enclosing >= 0) {
      add(enclosing, 'header');
      for (const c of syntax.lines[enclosing].closers) if (c > i) add(c, 'closer');
    }
    if (braces) {
      // Allman style: a bare `{` belongs to the header line above it, and a kept header or clause
      // (`catch (...)`, `finally`, `get`) needs the `{` line below it.
      const t = texts[i] ?? '';
      if (/^\s*\{\s*$/.test(t)) add(prevCodeLine(syntax, i), 'header');
      else if ((ls.kind === 'header' || ls.kind === 'clause' || isScopeStart(syntax, i)) && !t.includes('{')) {
        const next = nextCodeLine(syntax, i);
        if (next >= 0 && /^\s*\{/.test(texts[next] ?? '')) add(next, 'header');
      }
      for (const p of directivePartners(texts, i)) add(p, 'pair');
    }
    // A line inside a block comment (/* ... */, =begin/=end) needs the comment's first and last line.
    if (ls.kind === 'comment') {
      const [first, last] = blockCommentRun(syntax, texts, i);
      if (first !== i) add(first, 'statement');
      if (last !== i) add(last, 'statement');
    }
    if (ls.stmtStart !== i && ls.stmtStart >= 0) add(ls.stmtStart, 'statement');
    if (ls.stmtEnd !== i && ls.stmtEnd >= 0 && !isScopeStart(syntax, ls.stmtStart)) add(ls.stmtEnd, 'statement');
    for (const c of ls.closers) add(c, 'closer');
    // A line continuing an expression needs the line it continues (a clause) or the head of the
    // expression, the nearest line above that is not itself a link (a link): without it the output
    // would start an expression with an operator. Links in between may be omitted (a marker inside a
    // method chain still parses), which keeps long builder chains affordable in budget mode.
    const cont = ls.stmtStart >= 0 && ls.stmtStart < i ? continuation(syntax.language, texts[i] ?? '') : null;
    if (cont) {
      const head = cont === 'link' ? linkHead(i, ls.stmtStart) : prevCodeLine(syntax, i);
      if (head >= ls.stmtStart) add(head, 'statement');
    }
    // Paired clauses: a clause needs what comes before it (`else` needs its `if`, `except` its
    // `try`); an owner needs a follower only where the grammar demands one (`try` needs a handler).
    for (const p of ls.pairs) if (p < i) add(p, 'pair');
    if (ls.pairs.length && /^\s*(try|begin)\b/.test(texts[i] ?? '')) {
      const next = ls.pairs.filter((p) => p > i).sort((a, b) => a - b)[0];
      if (next !== undefined) add(next, 'pair');
    }
    if (useDeps && seeds[i]) {
      for (const name of ls.uses) {
        const imp = syntax.imports.get(name);
        if (imp !== undefined) add(imp, 'import');
        const defs = syntax.definitions.get(name);
        if (defs && !ls.defines.includes(name)) {
          for (const d of defs.slice(0, maxDefs)) if (d !== i) add(d, 'definition');
        }
      }
    }
  }
  return added;
}

/**
 * The head of the expression a link line continues: up past the links above it, to the first line
 * that is not one (or the statement's start, `bound`). Remembered per link line and bound: each
 * kept link of a long builder chain would otherwise walk the whole chain again.
 */
function linkHeads(syntax: SyntaxIndex, texts: string[]): (i: number, bound: number) => number {
  const heads = new Map<string, number>();
  return (i, bound) => {
    const walked: number[] = [];
    let head = prevCodeLine(syntax, i);
    while (head > bound && continuation(syntax.language, texts[head] ?? '') === 'link') {
      const known = heads.get(`${head}:${bound}`);
      if (known !== undefined) {
        head = known;
        break;
      }
      walked.push(head);
      head = prevCodeLine(syntax, head);
    }
    for (const w of walked) heads.set(`${w}:${bound}`, head);
    return head;
  };
}

/**
 * The lines a kept line cannot be shown without, outermost first: the first line of every
 * enclosing scope and the header of every clause (else/elif/except/finally/catch/case/default/
 * match arm/rescue...) that contains it. Without them the line would read as part of another block.
 */
export function requiredHeaders(syntax: SyntaxIndex, i: number): number[] {
  const ls = syntax.lines[i];
  if (!ls) return [];
  const out: number[] = [];
  for (const k of ls.scopes) {
    const s = syntax.scopes[k];
    if (s && s.start !== i) out.push(s.start);
  }
  out.push(...clauseHeaders(syntax, i));
  return out;
}

/**
 * Drop kept lines whose required headers are not kept (a header the budget or the syntax fix
 * banned), so that no line is ever shown under the wrong block or clause; then attributes,
 * decorators and doc comments whose item went. Returns the number of lines dropped.
 */
export function dropOrphans(mask: Uint8Array, syntax: SyntaxIndex): number {
  let dropped = 0;
  // headers come before the lines that need them: one forward pass sees every cascade
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i] || syntax.lines[i]?.kind === 'blank') continue;
    if (requiredHeaders(syntax, i).some((h) => !mask[h])) {
      mask[i] = 0;
      dropped++;
    }
  }
  // items come after their attachments, and their fate is settled above
  const items = syntax.attachedTo;
  if (items) {
    for (let i = 0; i < mask.length; i++) {
      if (mask[i] && items[i] > i && !mask[items[i]]) {
        mask[i] = 0;
        dropped++;
      }
    }
  }
  return dropped;
}

const clauseCache: WeakMap<SyntaxIndex, Map<number, number[]>> = new WeakMap();

/**
 * Scope index -> its clause lines in order (`elif`/`else`/`except`/`case`... rows that pair with
 * the scope's first line and sit directly in it). A clause runs from its line to the next one or
 * to the end of the scope.
 */
function clauseTable(syntax: SyntaxIndex): Map<number, number[]> {
  let m = clauseCache.get(syntax);
  if (!m) {
    m = new Map();
    syntax.lines.forEach((ls, c) => {
      if (ls.pairs.length === 0 || ls.scopes.length === 0) return;
      const k = ls.scopes[ls.scopes.length - 1];
      const s = syntax.scopes[k];
      if (!s || c <= s.start || !ls.pairs.includes(s.start)) return;
      const list = m!.get(k);
      if (list) list.push(c);
      else m!.set(k, [c]);
    });
    clauseCache.set(syntax, m);
  }
  return m;
}

/** Header lines of the clauses that contain line `i` (one per enclosing scope at most; not `i` itself). */
function clauseHeaders(syntax: SyntaxIndex, i: number): number[] {
  const ls = syntax.lines[i];
  if (!ls || ls.scopes.length === 0) return [];
  const table = clauseTable(syntax);
  const out: number[] = [];
  for (const k of ls.scopes) {
    const rows = table.get(k);
    if (!rows || rows[0] > i) continue;
    let lo = 0;
    let hi = rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (rows[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    if (rows[lo] !== i) out.push(rows[lo]);
  }
  return out;
}

const openerCache: WeakMap<SyntaxIndex, Map<number, number[]>> = new WeakMap();

/** Reverse of LineSyntax.closers: line -> lines whose brackets it closes. */
function openersOf(syntax: SyntaxIndex, line: number): number[] {
  let m = openerCache.get(syntax);
  if (!m) {
    m = new Map();
    syntax.lines.forEach((ls, o) => {
      for (const c of ls.closers) {
        if (c === o) continue;
        const list = m!.get(c);
        if (list) list.push(o);
        else m!.set(c, [o]);
      }
    });
    openerCache.set(syntax, m);
  }
  return m.get(line) ?? [];
}

const BLOCK_OPEN_RE = /^\s*(\/\*|=begin\b|<!--)/;
const BLOCK_CLOSE_RE = /(\*\/|^=end\b|-->)\s*$/;

/** The first/last line of the block comment around `line` (or [line, line] when it is a line comment). */
function blockCommentRun(syntax: SyntaxIndex, texts: string[], line: number): [number, number] {
  let first = line;
  while (first > 0 && !BLOCK_OPEN_RE.test(texts[first]) && syntax.lines[first - 1]?.kind === 'comment') first--;
  if (!BLOCK_OPEN_RE.test(texts[first] ?? '')) return [line, line];
  let last = line;
  while (!BLOCK_CLOSE_RE.test(texts[last]) && last + 1 < texts.length && syntax.lines[last + 1]?.kind === 'comment') last++;
  if (BLOCK_CLOSE_RE.test(texts[first]) && first !== line) return [line, line]; // a one-line /* */ above: not our block
  return [first, last];
}

const enclosingCache: WeakMap<SyntaxIndex, Int32Array> = new WeakMap();

/** line -> opener line of the innermost multi-line bracket pair strictly around it, or -1. */
function enclosingBrackets(syntax: SyntaxIndex): Int32Array {
  let out = enclosingCache.get(syntax);
  if (out) return out;
  const n = syntax.lines.length;
  out = new Int32Array(n).fill(-1);
  const stack: [number, number][] = []; // [opener, closer]
  for (let line = 0; line < n; line++) {
    while (stack.length && stack[stack.length - 1][1] <= line) stack.pop();
    if (stack.length) out[line] = stack[stack.length - 1][0];
    const cs = syntax.lines[line]?.closers ?? [];
    // Push the widest pair first so the innermost ends up on top.
    for (const c of [...cs].sort((a, b) => b - a)) if (c > line) stack.push([line, c]);
  }
  enclosingCache.set(syntax, out);
  return out;
}

/**
 * Leading tokens that continue the expression of the line above, in two kinds:
 * - a *link* (member access, `?.`, `&&`, `||`, `??`, the `?` of a conditional; Python's boolean,
 *   comparison and `/`/`%` operators) needs the head of the expression, not the links between;
 * - a *clause* (`:` of a conditional; Python's `if`/`else`/`for` of a conditional expression or
 *   comprehension) needs the line right above it: `else` needs its `if`, a comprehension's `if`
 *   its `for`.
 * Python's clause or loop headers end with `:` and are left out; so is a `...` spread. A leading
 * `+`/`-`/`*` is left out everywhere: it also reads as a unary operator or an unpacking. Ruby: a
 * leading `:` starts a symbol (`:name,` in a list), not the else-part of a conditional.
 */
const CONTINUATIONS: Record<'python' | 'ruby' | 'other', { link: RegExp; clause?: RegExp }> = {
  python: { link: /^\s*(\.\w|(and|or|is|in|not\s+in)\b|==|!=|<=|>=|\/|%)/, clause: /^\s*(if|else|async\s+for|for)\b(?!.*:\s*(#.*)?$)/ },
  ruby: { link: /^\s*(\.(?!\.\.)|&\.|&&|\|\||(and|or)\b)/ },
  other: { link: /^\s*(\.(?!\.\.)|\?\.|&&|\|\||\?\?|\?(?![?.]))/, clause: /^\s*:(?!:)/ },
};

function continuation(language: string, text: string): 'link' | 'clause' | null {
  const c = CONTINUATIONS[language === 'python' || language === 'ruby' ? language : 'other'];
  return c.link.test(text) ? 'link' : c.clause?.test(text) ? 'clause' : null;
}

function prevCodeLine(syntax: SyntaxIndex, i: number): number {
  for (let j = i - 1; j >= 0; j--) if (syntax.lines[j]?.kind !== 'blank' && syntax.lines[j]?.kind !== 'comment') return j;
  return -1;
}

function nextCodeLine(syntax: SyntaxIndex, i: number): number {
  for (let j = i + 1; j < syntax.lines.length; j++) if (syntax.lines[j]?.kind !== 'blank' && syntax.lines[j]?.kind !== 'comment') return j;
  return -1;
}

const DIRECTIVE_RE = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif|region|endregion)\b/;
const directiveCache: WeakMap<string[], Map<number, number[]>> = new WeakMap();

/** Preprocessor chains (#if/#elif/#else/#endif, #region/#endregion): each member needs the others. */
function directivePartners(texts: string[], line: number): number[] {
  let m = directiveCache.get(texts);
  if (!m) {
    m = new Map();
    const ifStack: number[][] = [];
    const regionStack: number[] = [];
    texts.forEach((t, i) => {
      const d = DIRECTIVE_RE.exec(t)?.[1];
      if (!d) return;
      if (d === 'if' || d === 'ifdef' || d === 'ifndef') ifStack.push([i]);
      else if (d === 'elif' || d === 'else') ifStack[ifStack.length - 1]?.push(i);
      else if (d === 'endif') {
        const chain = ifStack.pop();
        if (chain) {
          chain.push(i);
          for (const a of chain)
            m!.set(
              a,
              chain.filter((b) => b !== a),
            );
        }
      } else if (d === 'region') regionStack.push(i);
      else if (d === 'endregion') {
        const open = regionStack.pop();
        if (open !== undefined) {
          m!.set(open, [i]);
          m!.set(i, [open]);
        }
      }
    });
    directiveCache.set(texts, m);
  }
  return m.get(line) ?? [];
}

const scopeStartCache: WeakMap<SyntaxIndex, Map<number, number[]>> = new WeakMap();

function scopeStarts(syntax: SyntaxIndex): Map<number, number[]> {
  let m = scopeStartCache.get(syntax);
  if (!m) {
    m = new Map();
    syntax.scopes.forEach((s, k) => {
      const list = m!.get(s.start);
      if (list) list.push(k);
      else m!.set(s.start, [k]);
    });
    scopeStartCache.set(syntax, m);
  }
  return m;
}

function scopesStartingAt(syntax: SyntaxIndex, line: number) {
  return (scopeStarts(syntax).get(line) ?? []).map((k) => syntax.scopes[k]);
}

function isScopeStart(syntax: SyntaxIndex, line: number): boolean {
  return scopeStarts(syntax).has(line);
}
