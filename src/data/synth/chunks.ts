/**
 * Split a code corpus into chunks of about 40-200 lines along top-level scopes (functions,
 * classes, and the runs of imports/constants between them), using the syntax index.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { buildSyntaxIndex, detectLanguage, ensureGrammar } from '../../core/syntax/index.js';
import type { Scope } from '../../core/types.js';
import { decodeInput, isBinary, listFiles, readFileBytes } from '../../tools/fileTools.js';
import { hash32 } from '../../train/datasets.js';
import { CODE_LANGUAGES, rejectContent, rejectPath } from '../commitFilters.js';

export interface Chunk {
  /** Stable id: path, line range and a content hash (a changed file gets new ids). */
  id: string;
  /** Ordinal in the corpus order (drives the task-type rotation). */
  ordinal: number;
  path: string;
  lang: string;
  /** All lines of the file. */
  fileLines: string[];
  /** 1-based first and last line of the chunk in the file. */
  start: number;
  end: number;
}

export const MIN_CHUNK = 40;
export const MAX_CHUNK = 200;

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Top-level units as 0-based [start, end] ranges covering the file: scopes (with decorators) and the gaps between them. */
export function topLevelUnits(scopes: Scope[], n: number): [number, number][] {
  const tops = scopes.map((s) => ({ start: Math.min(s.start, ...s.decorators), end: s.end })).sort((a, b) => a.start - b.start || b.end - a.end);
  const units: [number, number][] = [];
  let pos = 0;
  for (const s of tops) {
    if (s.start < pos) continue; // nested in (or overlapping) a unit already taken
    if (s.start > pos) units.push([pos, s.start - 1]);
    units.push([s.start, Math.min(s.end, n - 1)]);
    pos = Math.min(s.end, n - 1) + 1;
  }
  if (pos < n) units.push([pos, n - 1]);
  return units;
}

/** Pack units into chunks of MIN..MAX lines; an oversized unit is cut at blank lines (or hard at MAX). */
export function packUnits(units: [number, number][], lines: string[]): [number, number][] {
  const pieces: [number, number][] = [];
  for (const [s, e] of units) {
    let a = s;
    while (e - a + 1 > MAX_CHUNK) {
      let cut = a + MAX_CHUNK - 1;
      for (let k = cut; k > a + MIN_CHUNK; k--)
        if (lines[k].trim() === '') {
          cut = k;
          break;
        }
      pieces.push([a, cut]);
      a = cut + 1;
    }
    pieces.push([a, e]);
  }
  const chunks: [number, number][] = [];
  let cur: [number, number] | null = null;
  for (const p of pieces) {
    if (!cur) cur = [p[0], p[1]];
    else if (p[1] - cur[0] + 1 <= MAX_CHUNK && cur[1] - cur[0] + 1 < MIN_CHUNK) cur[1] = p[1];
    else if (p[1] - cur[0] + 1 <= MAX_CHUNK && p[1] - p[0] + 1 < MIN_CHUNK && cur[1] - cur[0] + 1 + (p[1] - p[0] + 1) <= MAX_CHUNK) cur[1] = p[1];
    else {
      chunks.push(cur);
      cur = [p[0], p[1]];
    }
  }
  if (cur) {
    // a short tail joins the previous chunk when it fits
    const last = chunks[chunks.length - 1];
    if (last && cur[1] - cur[0] + 1 < MIN_CHUNK && cur[1] - last[0] + 1 <= MAX_CHUNK) last[1] = cur[1];
    else chunks.push(cur);
  }
  // chunks that are (almost) blank teach nothing
  return chunks.filter(([s, e]) => e - s + 1 >= 15 && lines.slice(s, e + 1).filter((l) => l.trim()).length >= 10);
}

/** Chunks of every code file under the corpus (a directory or one file), in a stable order. */
export async function chunkCorpus(corpus: string): Promise<{ chunks: Chunk[]; files: number; skippedFiles: number }> {
  const isDir = statSync(corpus).isDirectory();
  const paths = await listFiles([corpus]);
  const chunks: Chunk[] = [];
  let files = 0;
  let skippedFiles = 0;
  for (const abs of paths) {
    const rel = isDir ? relative(corpus, abs).split('\\').join('/') : abs.split(/[\\/]/).pop()!;
    const lang = detectLanguage(rel);
    if (!CODE_LANGUAGES.has(lang) || rejectPath(rel)) {
      skippedFiles++;
      continue;
    }
    const buf = await readFileBytes(abs).catch(() => null); // over the cap, vanished or unreadable: skipped
    if (!buf || isBinary(buf)) {
      skippedFiles++;
      continue;
    }
    const lines = splitLines(decodeInput(buf).text);
    if (lines.length < 15 || rejectContent(lines)) {
      skippedFiles++;
      continue;
    }
    files++;
    await ensureGrammar(lang).catch(() => false);
    let scopes: Scope[] = [];
    try {
      scopes = buildSyntaxIndex(lines, lang).scopes;
    } catch {
      scopes = []; // no index: fixed-size pieces
    }
    const fileHash = hash32(lines.join('\n')).toString(16);
    for (const [s, e] of packUnits(topLevelUnits(scopes, lines.length), lines)) {
      chunks.push({ id: `${rel}#L${s + 1}-${e + 1}@${fileHash}`, ordinal: chunks.length, path: rel, lang, fileLines: lines, start: s + 1, end: e + 1 });
    }
  }
  return { chunks, files, skippedFiles };
}
