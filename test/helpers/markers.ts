/**
 * What markers must show of the lines they hide, checked on a prune() result: no marker stands for
 * one non-blank line or for blank lines alone; none lies inside a comment or a string (straight
 * from the tree-sitter tree); every definition wholly inside an omitted run is named or counted
 * in its marker ("f, g and 3 more"), and the marker is indented no deeper than the shallowest of
 * them (definitions from the syntax index the pipeline builds).
 */
import type { Node } from 'web-tree-sitter';
import { splitLines } from '../../src/core/ingest/ingest.js';
import { markerName } from '../../src/core/layout/layout.js';
import { buildSyntaxIndex, ensureGrammar } from '../../src/core/syntax/index.js';
import type { PruneResult, Scope } from '../../src/core/types.js';
import { withTree } from './parseTree.js';

/** Multi-line comments and strings of the code, as [first row, last row] (0-based); null without a grammar. */
export async function textSpans(code: string, language: string): Promise<[number, number][] | null> {
  return withTree(code, language, (tree) => {
    const out: [number, number][] = [];
    const visit = (node: Node) => {
      if (/comment|string|heredoc/.test(node.type) && node.endPosition.row > node.startPosition.row) {
        out.push([node.startPosition.row, node.endPosition.row]);
        return;
      }
      for (const ch of node.children) if (ch) visit(ch);
    };
    visit(tree.rootNode);
    return out;
  });
}

/** The named definitions of the code, from the syntax index prune() uses. */
export async function definitions(code: string, language: string): Promise<Scope[]> {
  await ensureGrammar(language);
  const index = buildSyntaxIndex(
    splitLines(code).lines.map((l) => l.text),
    language,
  );
  return index.scopes.filter((s) => s.isDefinition && s.name);
}

export interface MarkerCounts {
  markers: number;
  /** Definitions wholly inside an omitted run. */
  hidden: number;
  /** Markers hiding a definition, and those of them that name what they hide. */
  hiding?: number;
  naming?: number;
}

/**
 * What is wrong with the markers of a raw-input result, one line each; `counts` receives what was
 * checked.
 */
export function markerViolations(code: string, r: PruneResult, spans: [number, number][] | null, defs: Scope[], counts?: MarkerCounts): string[] {
  if (r.shape !== 'raw' || r.kept.length === 0) return [];
  const inLines = splitLines(code).lines.map((l) => l.text);
  const outLines = splitLines(r.text).lines.map((l) => l.text);
  const out: string[] = [];
  // pair each omitted run with its marker line: output lines are kept lines or markers, in order
  const markerOf = new Map<number, string>();
  let p = 0;
  let o = 0;
  const omitted = [...r.omitted].sort((x, y) => x[0] - y[0]);
  for (const line of outLines) {
    if (o < omitted.length && p === omitted[o][0] - 1) {
      markerOf.set(o, line);
      p = omitted[o][1];
      o++;
    } else p++;
  }
  omitted.forEach(([a, b], k) => {
    const s = a - 1;
    const e = b - 1;
    const marker = markerOf.get(k) ?? '';
    if (counts) counts.markers++;
    let nonBlank = 0;
    for (let i = s; i <= e; i++) if (inLines[i].trim() !== '') nonBlank++;
    if (nonBlank === 0) out.push(`marker for blank lines alone (${a}-${b})`);
    if (nonBlank === 1 && a === b) out.push(`marker for one line (${a})`);
    for (const [from, to] of spans ?? []) if (from < s && to > e) out.push(`marker inside a comment or string (${a}-${b} in ${from + 1}-${to + 1})`);
    const inside = defs.filter((d) => d.start >= s && d.end <= e);
    if (inside.length === 0) return;
    // "(a-b): f, g and 3 more" names them; "(a-b): 5 definitions" (budget modes) only counts them
    const counted = /\(\d+-\d+\): (\d+) definitions?$/.exec(marker);
    const named = !counted && /\(\d+-\d+\): /.test(marker);
    if (counts) {
      counts.hidden += inside.length;
      counts.hiding = (counts.hiding ?? 0) + 1;
      if (named) counts.naming = (counts.naming ?? 0) + 1;
    }
    let wrong: boolean;
    if (counted) wrong = Number(counted[1]) !== inside.length;
    else {
      const said = /\(\d+-\d+\): (?:rest of [^;]*; )?(.*)$/.exec(marker)?.[1] ?? '';
      const m = /^(.*?)(?: and (\d+) more)?$/.exec(said)!;
      const names = m[1] ? m[1].split(', ') : [];
      wrong = names.length + Number(m[2] ?? 0) < inside.length || names.some((n) => !inside.some((d) => markerName(d.name!) === n));
    }
    if (wrong) out.push(`marker ${JSON.stringify(marker)} does not name the ${inside.length} definitions it hides (${inside.map((d) => d.name).join(', ')})`);
    const indent = (t: string) => /^[ \t]*/.exec(t)![0].length;
    const shallowest = Math.min(...inside.map((d) => indent(inLines[d.start])));
    if (indent(marker) > shallowest) out.push(`marker ${JSON.stringify(marker)} deeper than a definition it hides (${shallowest})`);
  });
  return out;
}
