/**
 * Repair closure: a kept line that continues an expression (a `.method()` link, a leading `&&`)
 * needs the head of that expression; a clause (`else` of a conditional expression, a
 * comprehension's `if`, the `:` of `?:`) needs the line right above it. Seen on rich's syntax.py
 * at 4x: `.with_indent_guides(...)` was kept without `Text("\n")` above it; the parser then reported
 * the error at an earlier statement and syntax repair ended up omitting the whole `Syntax` class
 * (173 kept lines). The links in between stay omittable: ripgrep's 400-line clap builder chain
 * otherwise cost more than an 8x budget and the whole file came out empty.
 */
import { describe, expect, it } from 'vitest';
import type { KeepReason } from '../../src/core/pipeline/types.js';
import { repairClosure } from '../../src/core/repair/repair.js';
import { buildSyntaxIndex, checkSyntax, ensureGrammar } from '../../src/core/syntax/index.js';

/** The kept lines with a comment marker (indented like the next kept line) for each omitted run. */
function renderPruned(lines: string[], kept: Set<number>, comment: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (kept.has(i)) {
      out.push(lines[i]);
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && !kept.has(j + 1)) j++;
    const next = lines[j + 1] ?? '';
    out.push(`${next.match(/^\s*/)![0]}${comment} ... ${j - i + 1} lines omitted (${i + 1}-${j + 1})`);
    i = j;
  }
  return out.join('\n');
}

/** Keep the lines containing `seed`, close the mask under the repair rules, return the kept rows. */
async function close(code: string, language: string, seed: string): Promise<{ kept: Set<number>; lines: string[] }> {
  await ensureGrammar(language);
  const lines = code.split('\n');
  const idx = buildSyntaxIndex(lines, language);
  const mask = Uint8Array.from(lines, (l) => (l.includes(seed) ? 1 : 0));
  const reasons: (KeepReason | undefined)[] = Array.from(mask, (m) => (m ? 'score' : undefined));
  repairClosure(mask, idx, lines, reasons, { braces: language !== 'python', dependencies: false });
  return { kept: new Set([...mask.keys()].filter((i) => mask[i])), lines };
}

const PY = `def render(self, lines, style):
    if self.indent_guides:
        lines = (
            Text("\\n")
            .join(lines)
            .with_indent_guides(self.tab_size, style=style)
            .split("\\n", allow_blank=True)
        )
        ok = (
            self.enabled
            and self.visible
            or self.forced
        )
    return lines
`;

const JS = `export function load(url) {
  return fetch(url)
    .then((r) => r.json())
    .catch((err) => report(err))
    .finally(() => done());
}
`;

describe('repair: expression continuations', () => {
  it('python: a kept `.method()` line brings back the head of its chain, not the links between', async () => {
    const { kept, lines } = await close(PY, 'python', '.with_indent_guides');
    for (const t of ['lines = (', 'Text("\\n")', '.with_indent_guides', ')']) {
      expect(kept.has(lines.findIndex((l) => l.trim().startsWith(t))), t).toBe(true);
    }
    // neither the link between nor the chain's later links are needed
    expect(kept.has(lines.findIndex((l) => l.includes('.join(')))).toBe(false);
    expect(kept.has(lines.findIndex((l) => l.includes('.split(')))).toBe(false);
    expect((await checkSyntax(renderPruned(lines, kept, '#'), 'python')).ok).toBe(true);
  });

  it('python: a kept `or` line brings back the first operand', async () => {
    const { kept, lines } = await close(PY, 'python', 'or self.forced');
    expect(kept.has(lines.findIndex((l) => l.includes('self.enabled')))).toBe(true);
    expect(kept.has(lines.findIndex((l) => l.includes('and self.visible')))).toBe(false);
    expect((await checkSyntax(renderPruned(lines, kept, '#'), 'python')).ok).toBe(true);
  });

  it('javascript: a kept `.catch(...)` line brings back the call it continues', async () => {
    const { kept, lines } = await close(JS, 'javascript', '.catch(');
    expect(kept.has(1)).toBe(true); // return fetch(url)
    expect(kept.has(2)).toBe(false); // .then(...)
    expect((await checkSyntax(renderPruned(lines, kept, '//'), 'javascript')).ok).toBe(true);
  });

  it('rust: a link deep in a long builder chain costs its head, not the chain', async () => {
    const links = Array.from({ length: 300 }, (_, k) => `        .arg(flag("opt-${k}"))`);
    const code = ['fn app() -> App {', '    App::new("tool")', ...links, '}', ''].join('\n');
    const { kept, lines } = await close(code, 'rust', '"opt-250"');
    // the statement's last line comes too (it ends the expression), nothing else of the chain
    expect([...kept].sort((a, b) => a - b).map((i) => lines[i].trim())).toEqual([
      'fn app() -> App {',
      'App::new("tool")',
      '.arg(flag("opt-250"))',
      '.arg(flag("opt-299"))',
      '}',
    ]);
    expect((await checkSyntax(renderPruned(lines, kept, '//'), 'rust')).ok).toBe(true);
  });

  it('javascript: the `:` of a conditional needs its `?` line, the `?` its condition', async () => {
    const code = 'const mode = isTTY\n  ? "color"\n  : "plain";\n';
    const { kept, lines } = await close(code, 'javascript', ': "plain"');
    expect(kept.size).toBe(3);
    expect((await checkSyntax(renderPruned(lines, kept, '//'), 'javascript')).ok).toBe(true);
  });

  it('ruby: a `.method` line continues the chain, a `:symbol` line in a list does not', async () => {
    const code =
      'class Job\n  KINDS = [\n    :build,\n    :test,\n    :deploy,\n  ]\n  def run(items)\n    items\n      .select(&:ready?)\n      .each { |i| i.go }\n  end\nend\n';
    const chain = await close(code, 'ruby', '.each {');
    expect(chain.kept.has(chain.lines.findIndex((l) => l.trim() === 'items'))).toBe(true);
    expect(chain.kept.has(chain.lines.findIndex((l) => l.includes('.select(')))).toBe(false);
    expect((await checkSyntax(renderPruned(chain.lines, chain.kept, '#'), 'ruby')).ok).toBe(true);
    const list = await close(code, 'ruby', ':deploy,');
    expect(list.kept.has(list.lines.findIndex((l) => l.includes(':test,')))).toBe(false);
  });

  it('an `else:` clause is not a continuation; the `if`/`for` of a comprehension is', async () => {
    const code = 'def f(xs):\n    if xs:\n        y = 1\n    else:\n        y = [x\n             for x in xs\n             if x]\n    return y\n';
    const clause = await close(code, 'python', 'else:');
    // the clause needs its `if` (a pair), not the last line of the branch above it
    expect([...clause.kept].sort((a, b) => a - b).map((i) => clause.lines[i].trim())).toEqual(['def f(xs):', 'if xs:', 'else:']);
    const comp = await close(code, 'python', 'if x]');
    for (const t of ['y = [x', 'for x in xs', 'if x]']) expect(comp.kept.has(comp.lines.findIndex((l) => l.trim() === t)), t).toBe(true);
  });
});
