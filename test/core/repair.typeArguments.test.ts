/**
 * Budget mode keeps a multi-line header's first and last line only. When the header's middle is a
 * type argument list (`Promise<\n  Record<...>\n>`), that left an empty `<>`, which does not
 * parse: syntax repair then had to spend budget (or drop kept lines) to mend it. The closing row
 * of a multi-line type argument/parameter list now needs the row its last entry starts on.
 */
import { describe, expect, it } from 'vitest';
import type { KeepReason } from '../../src/core/pipeline/types.js';
import { repairClosure } from '../../src/core/repair/repair.js';
import { buildSyntaxIndex, checkSyntax, ensureGrammar } from '../../src/core/syntax/index.js';

const TS = `export async function loadAll(
  urls: string[],
): Promise<
  Map<string, number>
> {
  const out = new Map<string, number>();
  for (const url of urls) {
    out.set(url, await fetchSize(url));
  }
  return out;
}
`;

const RUST = `fn collect<
    T: Clone,
    U: Into<T>,
>(items: &[U]) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        out.push(item.clone().into());
    }
    out
}
`;

async function closeEconomy(code: string, language: string, seed: string) {
  await ensureGrammar(language);
  const lines = code.split('\n');
  const idx = buildSyntaxIndex(lines, language);
  const mask = Uint8Array.from(lines, (l) => (l.includes(seed) ? 1 : 0));
  const reasons: (KeepReason | undefined)[] = Array.from(mask, (m) => (m ? 'score' : undefined));
  repairClosure(mask, idx, lines, reasons, { braces: true, dependencies: false, fullHeaders: false });
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (mask[i]) out.push(lines[i]);
    else if (i === 0 || mask[i - 1]) out.push('// ...');
  }
  return { kept: lines.filter((_, i) => mask[i]).map((l) => l.trim()), text: out.join('\n') };
}

describe('repair: multi-line type argument lists', () => {
  it('typescript: a kept return-type closer keeps the last type argument', async () => {
    const r = await closeEconomy(TS, 'typescript', 'return out;');
    expect(r.kept).toContain('Map<string, number>');
    expect((await checkSyntax(r.text, 'typescript')).ok).toBe(true);
  });

  it('rust: a kept generic parameter closer keeps the last parameter', async () => {
    const r = await closeEconomy(RUST, 'rust', 'out.push');
    expect(r.kept).toContain('U: Into<T>,');
    expect((await checkSyntax(r.text, 'rust')).ok).toBe(true);
  });
});
