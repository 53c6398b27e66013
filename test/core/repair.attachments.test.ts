/**
 * Attributes, decorators, annotations and doc comments travel with their item (issue #20 B): a
 * kept `#[doc = include_str!(...)]` followed by a marker and `}` does not parse (rustfmt: "expected
 * item after attributes"), and a kept doc comment whose item is omitted documents nothing. If
 * they are kept, the first line of their item is kept; if the item has to go, they go too. The
 * scorer is a fixed one (lines matching a pattern) so that the tests are about repair.
 */
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/core/ingest/ingest.js';
import type { KeepReason } from '../../src/core/pipeline/types.js';
import { createPruner } from '../../src/core/prune.js';
import { dropOrphans, repairClosure } from '../../src/core/repair/repair.js';
import { buildSyntaxIndex, checkSyntax, ensureGrammar } from '../../src/core/syntax/index.js';
import type { LineScores, PruneRequest, ScoreInput, Scorer } from '../../src/core/types.js';
import { attachmentItems, attachmentViolations } from '../helpers/attachments.js';
import { checkInvariants } from '../helpers/invariants.js';

/** Keep probability 1 for lines matching `re` and 0.9 for the line above each (budget mode ranks a lone line with its neighbour). */
function patternScorer(re: RegExp): Scorer {
  return {
    name: 'pattern',
    defaultThreshold: 0.95,
    score(input: ScoreInput): LineScores {
      const keep = Float64Array.from(input.lines, (l) => (re.test(l) ? 1 : 0));
      for (let i = 1; i < keep.length; i++) if (keep[i] === 1 && keep[i - 1] === 0) keep[i - 1] = 0.9;
      return { keep, docScore: 1 };
    },
  };
}

async function check(re: RegExp, req: PruneRequest & { language: string }) {
  // an explicit threshold: the read policy would return a file this small whole
  const mode = req.tokens ? {} : { threshold: 0.95 };
  const r = await createPruner({ scorer: patternScorer(re) }).prune({ query: 'q', keepSmall: false, ...mode, ...req });
  expect(checkInvariants(req.code, r)).toBeNull();
  const items = await attachmentItems(req.code, req.language);
  expect(items!.size).toBeGreaterThan(0);
  expect(
    attachmentViolations(
      items!,
      r.keepMask,
      splitLines(req.code).lines.map((l) => l.text),
    ),
  ).toEqual([]);
  expect((await checkSyntax(r.text, req.language)).ok).toBe(true);
  return r;
}

const filler = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('\n');

const RUST = `//! Colors and their names.

use std::fmt;

/// Runs the README examples as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// A color in RGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb {
    /// Red channel.
    pub r: u8,
    /// Green channel.
    pub g: u8,
    /// Blue channel.
    pub b: u8,
}

impl fmt::Display for Rgb {
    /// Formats the color as \`#rrggbb\`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

${filler(12, (i) => `/// Returns shade number ${i} of the palette, darkened by a fixed step.\npub fn shade_${i}(c: Rgb) -> Rgb {\n    Rgb { r: c.r / ${i + 2}, g: c.g / ${i + 2}, b: c.b / ${i + 2} }\n}\n`)}
`;

const JAVA = `package demo;

import java.util.List;

public final class Pinner {
${filler(8, (i) => `  /**\n   * Returns pin number ${i} of the given certificate chain, hashed with the configured algorithm.\n   */\n  public static String pin${i}(List<String> chain) {\n    return chain.get(${i});\n  }\n`)}
  @Deprecated
  public static String legacyPin(List<String> chain) {
    return chain.get(0);
  }
}
`;

const TS = `import { Component, Input } from '@angular/core';

@Component({ selector: 'app-color' })
export class ColorComponent {
  /** The name shown next to the swatch. */
  @Input()
  label: string = '';

${filler(8, (i) => `  /**\n   * Shade number ${i}: the base color darkened by a fixed step, as a CSS string.\n   */\n  shade${i}(): string {\n    return darken(this.label, ${i});\n  }\n`)}
}
`;

const GO = `package palette

import "fmt"

${filler(8, (i) => `// Shade${i} returns shade number ${i} of the palette, darkened by a fixed step.\n// It never returns an error.\nfunc Shade${i}(c int) int {\n\treturn c / ${i + 2}\n}\n`)}
// String formats the palette for humans.
func String() string {
\treturn fmt.Sprint("palette")
}
`;

const CS = `using Xunit;

public class PaletteTests
{
${filler(8, (i) => `    /// <summary>Shade number ${i} is darker than the base color by a fixed step.</summary>\n    [Fact]\n    public void Shade${i}IsDarker()\n    {\n        Assert.True(Palette.Shade(${i}) < Palette.Base);\n    }\n`)}
}
`;

const PY = `import functools


${filler(8, (i) => `@functools.lru_cache(maxsize=${i + 1})\ndef shade_${i}(color):\n    """Shade number ${i} of the palette, darkened by a fixed step."""\n    return color // ${i + 2}\n\n`)}
`;

describe('attributes, decorators and doc comments travel with their item', () => {
  it('rust: a kept #[doc = include_str!(...)] keeps `pub struct ReadmeDoctests;`, a kept doc comment its field or fn', async () => {
    for (const req of [{}, { tokens: 130 }]) {
      // (under the budget the attribute alone: which of three equal lines a budget affords is the budget order's)
      const r = await check(req.tokens ? /include_str/ : /include_str|Red channel|Formats the color/, { code: RUST, language: 'rust', ...req });
      expect(r.text).toContain('#[doc = include_str!("../README.md")]');
      expect(r.text).toContain('pub struct ReadmeDoctests;');
      if (!req.tokens) expect(r.text).toContain('    /// Red channel.\n    pub r: u8,\n');
    }
  });

  it('java: a kept javadoc keeps its method header; an annotation its method', async () => {
    for (const req of [{}, { tokens: 150 }]) {
      const r = await check(/pin number 3|@Deprecated/, { code: JAVA, language: 'java', ...req });
      expect(r.text).toContain('public static String pin3(List<String> chain) {');
      if (!req.tokens) expect(r.text).toContain('  @Deprecated\n  public static String legacyPin');
    }
  });

  it('typescript: a kept JSDoc keeps its method; a kept decorator its property', async () => {
    for (const req of [{}, { tokens: 150 }]) {
      const r = await check(/Shade number 5|The name shown/, { code: TS, language: 'typescript', ...req });
      expect(r.text).toContain('  shade5(): string {');
      expect(r.text).toContain('  label: string');
    }
  });

  it('go: a kept doc comment keeps its func', async () => {
    for (const req of [{}, { tokens: 100 }]) {
      const r = await check(/never returns/, { code: GO, language: 'go', ...req });
      expect(r.text).toMatch(/\/\/ It never returns an error\.\nfunc Shade\d\(c int\) int \{/);
    }
  });

  it('c#: a kept XML doc comment or [Fact] keeps its method', async () => {
    const r = await check(/Shade number 6 is/, { code: CS, language: 'c_sharp' });
    expect(r.text).toContain('    public void Shade6IsDarker()');
  });

  it('python: a kept decorator keeps its def', async () => {
    const r = await check(/maxsize=4\)/, { code: PY, language: 'python' });
    expect(r.text).toContain('@functools.lru_cache(maxsize=4)\ndef shade_3(color):');
  });

  it('when the item has to go, its attributes and doc comments go too', async () => {
    await ensureGrammar('rust');
    const lines = RUST.split('\n');
    const syntax = buildSyntaxIndex(lines, 'rust');
    const row = (s: string) => lines.findIndex((l) => l.includes(s));
    const mask = new Uint8Array(lines.length);
    const reasons: (KeepReason | undefined)[] = new Array(lines.length);
    mask[row('include_str')] = 1;
    mask[row('/// Red channel.')] = 1;
    repairClosure(mask, syntax, lines, reasons, { dependencies: false, fullHeaders: false });
    expect(mask[row('pub struct ReadmeDoctests;')]).toBe(1);
    expect(mask[row('pub r: u8,')]).toBe(1);
    // the budget (or the syntax fix) bans the items: what documents them goes with them
    mask[row('pub struct ReadmeDoctests;')] = 0;
    mask[row('pub r: u8,')] = 0;
    dropOrphans(mask, syntax);
    expect(mask[row('include_str')]).toBe(0);
    expect(mask[row('#[cfg(doctest)]')]).toBe(0);
    expect(mask[row('/// Red channel.')]).toBe(0);
    expect(mask[row('pub struct Rgb {')]).toBe(1);
  });

  it('a doc comment or attribute with nothing after it in the input is left alone', async () => {
    await ensureGrammar('rust');
    const lines = ['fn f() {', '    g();', '    /// trailing doc that documents nothing', '}', ''];
    const syntax = buildSyntaxIndex(lines, 'rust');
    expect(syntax.attachedTo?.[2]).toBe(-1);
    // a banner is not documentation
    const go = ['package p', '', '/************/', '/*** HTTP ***/', '/************/', '', 'func F() {}', ''];
    await ensureGrammar('go');
    expect(Array.from(buildSyntaxIndex(go, 'go').attachedTo!.slice(2, 5))).toEqual([-1, -1, -1]);
  });
});
