import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KeepReason } from '../../../src/core/pipeline/types.js';
import { fillCheapGaps, type GapCosts, omitTextAroundMarkers, placeMarkers } from '../../../src/core/repair/gaps.js';
import { buildSyntaxIndex, ensureGrammar } from '../../../src/core/syntax/index.js';

/** Costs from a per-line token table and a flat marker price. */
const costs = (lineTokens: number[], marker: number): GapCosts => ({ line: (k) => lineTokens[k], marker: () => marker });
const fill = (mask: number[], lineTokens: number[], marker: number) => {
  const local = Uint8Array.from(mask);
  const reasons: (KeepReason | undefined)[] = mask.map((v) => (v ? 'score' : undefined));
  const filled = fillCheapGaps(local, reasons, costs(lineTokens, marker));
  return { mask: [...local], reasons, filled };
};

describe('fillCheapGaps', () => {
  it('keeps a run whose lines cost no more than its marker, and marks the gap lines as such', () => {
    // lines 1-3 are a blank, a closer and a blank: 3 tokens against a 12-token marker
    const r = fill([1, 0, 0, 0, 1], [9, 1, 1, 1, 9], 12);
    expect(r.mask).toEqual([1, 1, 1, 1, 1]);
    expect(r.reasons.slice(1, 4)).toEqual(['gap', 'gap', 'gap']);
    expect(r.filled).toBe(3);
  });

  it('leaves a run dearer than its marker omitted', () => {
    const r = fill([1, 0, 0, 1], [9, 7, 7, 9], 12);
    expect(r.mask).toEqual([1, 0, 0, 1]);
    expect(r.filled).toBe(0);
  });

  it('always keeps an interior one-line gap, even a long line (design 2.6)', () => {
    expect(fill([1, 0, 1], [5, 40, 5], 12).mask).toEqual([1, 1, 1]);
  });

  it('fills cheap runs at the edges, and a single edge line however dear (its marker would stand for no more)', () => {
    expect(fill([0, 1, 1, 0, 0], [1, 5, 5, 1, 2], 12).mask).toEqual([1, 1, 1, 1, 1]);
    expect(fill([0, 1, 1, 0], [20, 5, 5, 20], 12).mask).toEqual([1, 1, 1, 1]);
    expect(fill([0, 0, 1, 1, 0, 0], [20, 20, 5, 5, 20, 20], 12).mask).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it('leaves a segment with nothing kept alone: it is one marker by design', () => {
    expect(fill([0, 0, 0], [1, 1, 1], 12).mask).toEqual([0, 0, 0]);
  });

  it('asks for the marker price only of runs that could be cheaper than any marker', () => {
    const asked: [number, number][] = [];
    const local = Uint8Array.from([1, 0, 0, 0, 1, 0, 1]);
    const marker = (a: number, b: number) => {
      asked.push([a, b]);
      return 12;
    };
    fillCheapGaps(local, [], { line: (k) => (k < 4 ? 20 : 1), marker });
    // lines 1-3 cost 60 tokens: never compared; line 5 is a one-line interior gap: filled outright
    expect(asked).toEqual([]);
    expect([...local]).toEqual([1, 0, 0, 0, 1, 1, 1]);
  });
});

describe('placeMarkers', () => {
  it('keeps an omitted run inside a JS/TS template literal: a `//` marker there would be text of the string', async () => {
    await ensureGrammar('tsx');
    const lines = readFileSync(path.resolve(__dirname, '../../fixtures/markers/hono_streaming.test.tsx'), 'utf8').split('\n');
    const syntax = buildSyntaxIndex(lines, 'tsx');
    // 0-based: the template opens on row 45 (`<template data-hono-target=...><script>`) and closes on row 53
    const open = lines.findIndex((l) => l.includes('`<template data-hono-target="H:') && l.endsWith('<h1>Hello</h1></template><script>'));
    const close = lines.indexOf('</script>`,', open);
    expect(close - open).toBe(8);
    const local = new Uint8Array(lines.length).fill(1);
    // the two rows with `${suspenseCounter}` and `if(!d)return` omitted, inside the template
    local[open + 3] = local[open + 4] = 0;
    const reasons: (KeepReason | undefined)[] = Array.from(local, (v) => (v ? 'score' : undefined));
    placeMarkers(local, reasons, syntax, () => true);
    expect(local[open + 3]).toBe(1);
    expect(local[open + 4]).toBe(1);
  });
});

describe('omitTextAroundMarkers (budget modes: only omits)', () => {
  const fixture = (name: string) => readFileSync(path.resolve(__dirname, '../../fixtures/markers', name), 'utf8').split('\n');
  const reasonsOf = (local: Uint8Array): (KeepReason | undefined)[] => Array.from(local, (v) => (v ? 'score' : undefined));

  it('takes a string of code out with its statement rather than leave a marker inside the string', async () => {
    await ensureGrammar('tsx');
    const lines = fixture('hono_streaming.test.tsx');
    const syntax = buildSyntaxIndex(lines, 'tsx');
    const open = lines.findIndex((l) => l.includes('`<template data-hono-target="H:') && l.endsWith('<h1>Hello</h1></template><script>'));
    // the statement holding the template: `expect(chunks).toEqual([` ... `])`
    const first = lines.lastIndexOf('    expect(chunks).toEqual([', open);
    const last = lines.indexOf('    ])', open);
    expect(last - first).toBe(11);
    const local = new Uint8Array(lines.length).fill(1);
    local[open + 3] = local[open + 4] = 0;
    const reasons = reasonsOf(local);
    const dropped = omitTextAroundMarkers(local, reasons, syntax, () => true);
    expect(dropped).toBe(12 - 2);
    for (let k = first; k <= last; k++) expect(local[k]).toBe(0);
    expect(reasons[first]).toBeUndefined();
    expect(local[first - 1]).toBe(1);
    expect(local[last + 1]).toBe(1);
  });

  /** guzzle's Client.php, everything kept, with the first line of the constructor's doc comment. */
  async function guzzleDocComment() {
    await ensureGrammar('php');
    const lines = fixture('guzzle_Client.php');
    const open = lines.indexOf('    /**', 24);
    return { lines, syntax: buildSyntaxIndex(lines, 'php'), open, local: new Uint8Array(lines.length).fill(1) };
  }

  it('takes a doc comment out whole, lines kept for their score too', async () => {
    const { lines, syntax, open, local } = await guzzleDocComment();
    const close = lines.indexOf('     */', open);
    expect(lines[open + 1]).toContain('Clients accept an array of constructor parameters.');
    // a run inside the comment (its example) omitted, the lines around it kept
    for (let k = open + 6; k <= open + 11; k++) local[k] = 0;
    omitTextAroundMarkers(local, reasonsOf(local), syntax, () => true);
    for (let k = open; k <= close; k++) expect(local[k]).toBe(0);
    expect(local[open - 1]).toBe(1);
    expect(local[close + 1]).toBe(1);
  });

  it("never keeps a line, and leaves a run that touches the comment's edge alone", async () => {
    const { syntax, open, local } = await guzzleDocComment();
    // from the comment's opener on: a marker there stands outside the comment
    for (let k = open; k <= open + 11; k++) local[k] = 0;
    const before = [...local];
    expect(omitTextAroundMarkers(local, reasonsOf(local), syntax, () => true)).toBe(0);
    expect([...local]).toEqual(before);
  });
});
