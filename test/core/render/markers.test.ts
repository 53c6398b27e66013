/**
 * Markers show the shape of what they hide, on real files pruned by a fixed scorer (lines matching
 * a pattern), so the tests are about placement and text, not the model: a run that goes on past
 * the end of a definition sits at the depth of what it hides and names it; a Python placeholder
 * stays in its block; a marker never lands in a doc comment, never stands for one line, and blank
 * lines between two markers do not separate them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenDefinitions, MARKER_RE } from '../../../src/core/layout/layout.js';
import { createPruner } from '../../../src/core/prune.js';
import { buildSyntaxIndex, checkSyntax, ensureGrammar } from '../../../src/core/syntax/index.js';
import type { LineScores, PruneRequest, ScoreInput, Scorer } from '../../../src/core/types.js';
import { checkInvariants } from '../../helpers/invariants.js';

const fixture = (name: string) => readFileSync(path.resolve(__dirname, '../../fixtures/markers', name), 'utf8');
const FLASK = fixture('flask_config.py');
const HIREDIS = fixture('hiredis_read.c');
const GUZZLE = fixture('guzzle_Client.php');

/** Keep probability 1 for lines matching `re`, 0 for the others. */
function patternScorer(re: RegExp): Scorer {
  return {
    name: 'pattern',
    defaultThreshold: 0.95,
    score: (input: ScoreInput): LineScores => ({ keep: Float64Array.from(input.lines, (l) => (re.test(l) ? 1 : 0)), docScore: 1 }),
  };
}

async function prune(re: RegExp, req: PruneRequest & { language: string }) {
  const mode = req.tokens || req.maxChars ? {} : { threshold: 0.95 };
  const r = await createPruner({ scorer: patternScorer(re) }).prune({ query: 'q', keepSmall: false, ...mode, ...req });
  expect(checkInvariants(req.code, r)).toBeNull();
  expect((await checkSyntax(r.text, req.language)).ok).toBe(true);
  return { r, out: r.text.split('\n') };
}

const markers = (out: string[]) => out.filter((l) => MARKER_RE.test(l));

describe('markers show what they hide', () => {
  it('flask config.py: a kept header keeps its placeholder for its body only; what follows gets its own marker, at the depth of what it hides', async () => {
    // budget mode ranks headers first: ConfigAttribute.__init__ is kept, its body and all after it is not
    const { out } = await prune(/def from_object/, { code: FLASK, language: 'python', tokens: 120 });
    const at = out.indexOf('    ) -> None:');
    expect(out[at + 1]).toBe('        ...  # 2 lines omitted (26-27)');
    // (the budget's lines come first; what is left of it names what the marker hides)
    expect(out[at + 2]).toBe('# ... 340 lines omitted (28-367): rest of ConfigAttribute; __get__, __set__, Config and 9 more');
  });

  it('a run past the end of a method names the rest of it and the methods after it; a one-line body is kept, not marked', async () => {
    const { out } = await prune(/def from_pyfile|if silent and e.errno/, { code: FLASK, language: 'python' });
    const at = out.indexOf('            if silent and e.errno in (errno.ENOENT, errno.EISDIR, errno.ENOTDIR):');
    expect(out[at + 1]).toBe('                return False');
    expect(out[at + 2]).toMatch(/^ {4}# \.\.\. \d+ lines omitted \(213-\d+\): rest of from_pyfile; from_object$/);
  });

  it('budget modes spend the budget on lines first: markers name what they hide with what is left, and the output fits', async () => {
    const byTokens = await prune(/def from_object|def from_pyfile/, { code: FLASK, language: 'python', tokens: 300 });
    expect(markers(byTokens.out).some((l) => /\): /.test(l))).toBe(true);
    expect(byTokens.r.tokensOut).toBeLessThanOrEqual(300);
    const byChars = await prune(/def from_object|def from_pyfile/, { code: FLASK, language: 'python', maxChars: 1200 });
    expect(markers(byChars.out).some((l) => /\): /.test(l))).toBe(true);
    expect(byChars.r.text.length).toBeLessThanOrEqual(1200);
  });

  it('hono.ts, a file tree-sitter does not parse cleanly: a run from inside a method past the methods after it sits at their depth', async () => {
    // (the parse error puts the class's last methods in one statement at one depth: their headers still tell where they start)
    const code = fixture('hono_hono.ts');
    const r = await createPruner({ scorer: patternScorer(/async fetch|async handleEvent|return this.dispatch\(event.request/) }).prune({
      code,
      query: 'q',
      keepSmall: false,
      language: 'typescript',
      tokens: 400,
    });
    expect(checkInvariants(code, r)).toBeNull();
    const out = r.text.split('\n');
    const at = out.indexOf('  async fetch(request: Request, env?: E, event?: FetchEvent): Promise<Response> {');
    expect(out[at + 1]).toMatch(/^ {2}\/\/ \.\.\. 13 lines omitted \(194-206\)/);
  });

  it('hiredis read.c: one function is not cut into markers for one line or markers with only blank lines between them', async () => {
    const { out } = await prune(/Bulk string length out of range|createNil|bytelen \+= len\+2|case REDIS_REPLY_ARRAY/, { code: HIREDIS, language: 'c' });
    const ms = out.map((l, i) => (MARKER_RE.test(l) ? i : -1)).filter((i) => i >= 0);
    expect(ms.length).toBeGreaterThan(2);
    for (const i of ms) expect(out[i]).not.toMatch(/\b1 line omitted/);
    for (let k = 1; k < ms.length; k++) expect(out.slice(ms[k - 1] + 1, ms[k]).some((l) => l.trim() !== '')).toBe(true);
    // after processBulkItem the next functions are hidden: the marker is at column 0 and names them
    expect(out.find((l) => l.includes(': redisReaderGrow'))).toMatch(/^\/\/ \.\.\. \d+ lines omitted \(\d+-\d+\): redisReaderGrow\b/);
  });

  it('guzzle Client.php: a line kept inside a docblock keeps the docblock whole, never a `//` marker inside it', async () => {
    const { out } = await prune(/'base_uri' {8}=>|function __construct/, { code: GUZZLE, language: 'php' });
    const open = out.indexOf('    /**', out.findIndex((l) => l.includes("'base_uri'")) - 8);
    const close = out.indexOf('     */', open);
    expect(open).toBeGreaterThan(0);
    expect(out.slice(open, close + 1).some((l) => MARKER_RE.test(l))).toBe(false);
    expect(out.slice(open, close + 1).join('\n')).toContain("'base_uri'        => 'http://www.foo.com/1.0/',");
  });
});

describe('hiddenDefinitions', () => {
  it('names definitions wholly inside a run, outermost first, counts the rest, and names those it ends', async () => {
    await ensureGrammar('python');
    const lines = FLASK.split('\n');
    const index = buildSyntaxIndex(lines, 'python');
    // 0-based: from the middle of from_pyfile (row 200) to the end of the file
    expect(hiddenDefinitions(index, 200, lines.length - 1, lines.length - 2)).toBe(
      'rest of from_pyfile; from_object, from_file, from_mapping, get_namespace and 1 more',
    );
    // the whole file: the two classes, and their 11 methods counted
    expect(hiddenDefinitions(index, 0, lines.length - 1, lines.length - 2)).toMatch(/^ConfigAttribute, Config and \d+ more$/);
    // inside one method: nothing to name
    expect(hiddenDefinitions(index, 200, 205, 205)).toBe('');
  });
});
