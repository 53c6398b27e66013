/**
 * What the adapters (`skim run`/`out`/`show`, HTTP, MCP) need of stored outputs: a handle spec as
 * markers print it (`HANDLE:a-b`), a stored output's lines, and the JSON of an output's result.
 * (pruneOutput() itself names a handle only when the session keeps the output.)
 */
import { SkimError } from '../errors.js';
import { splitOutput } from './lines.js';
import type { OutputMemory, StoredOutput } from './memory.js';
import type { OutputResult } from './types.js';

/** A line range of an output: 1-based, inclusive. */
export interface LineRange {
  from: number;
  to: number;
}

/** "a-b" or "a" (1-based, a <= b) as a range; anything else is a usage error. */
export function parseLineRange(text: string): LineRange {
  const m = /^\s*(\d{1,9})\s*(?:-\s*(\d{1,9}))?\s*$/.exec(text);
  const from = m ? Number(m[1]) : Number.NaN;
  const to = m?.[2] !== undefined ? Number(m[2]) : from;
  if (!m || from < 1 || to < from) throw new SkimError(`a line range is "a-b" (1-based, a <= b) or "a", got "${text}"`, 'EUSAGE');
  return { from, to };
}

/** `HANDLE` or `HANDLE:a-b`, as a marker prints it. */
export function parseHandleSpec(spec: string): { handle: string; range?: LineRange } {
  const colon = spec.indexOf(':');
  const handle = (colon < 0 ? spec : spec.slice(0, colon)).trim();
  if (!/^[0-9A-Za-z]{1,64}$/.test(handle)) throw new SkimError(`not an output handle: "${spec}" (a marker names one as HANDLE or HANDLE:a-b)`, 'EUSAGE');
  return colon < 0 ? { handle } : { handle, range: parseLineRange(spec.slice(colon + 1)) };
}

/**
 * The output and lines a request names: `HANDLE[:a-b]`, and perhaps the lines apart ("a-b", as
 * `lines` of show_output and GET /v1/outputs). Two different ranges are a usage error, not one
 * silently preferred.
 */
export function parseOutputRequest(spec: string, lines?: string): { handle: string; range?: LineRange } {
  const { handle, range } = parseHandleSpec(spec);
  if (lines === undefined) return { handle, range };
  const asked = parseLineRange(lines);
  if (range && (range.from !== asked.from || range.to !== asked.to))
    throw new SkimError(`"${spec}" names lines ${range.from}-${range.to} and lines "${lines}" others: give one range`, 'EUSAGE');
  return { handle, range: asked };
}

/** A stored output's lines (all, or a range; a range past the end is cut to it), byte for byte. */
export function storedLines(o: StoredOutput, range?: LineRange): { text: string; from: number; to: number; lines: number } {
  const { lines, ends } = splitOutput(o.text);
  if (!range) return { text: o.text, from: 1, to: lines.length, lines: lines.length };
  if (range.from > lines.length) throw new SkimError(`lines ${range.from}-${range.to}: output ${o.handle} has ${lines.length} lines`, 'EUSAGE');
  const to = Math.min(range.to, lines.length);
  let text = '';
  for (let i = range.from - 1; i < to; i++) text += lines[i] + ends[i];
  return { text, from: range.from, to, lines: lines.length };
}

/** The stored output behind `handle`, or a SkimError (ENOINPUT) that says where it was looked for. */
export function findStoredOutput(memory: OutputMemory | undefined, handle: string, where: string): StoredOutput {
  const o = memory?.get(handle);
  if (!o) throw new SkimError(`no output ${handle} in ${where} (outputs are kept per session, the latest ${memory?.limits.maxOutputs ?? 0})`, 'ENOINPUT');
  return o;
}

/** An output result as JSON (`--json`, HTTP, batch lines): the fields a prune result has where they overlap (text, kept, omitted, warnings), plus the output's own. */
export interface OutputResultJson {
  text: string;
  shape: string;
  kept: [number, number][];
  omitted: [number, number][];
  folds: OutputResult['folds'];
  handle: string | null;
  linesIn: number;
  charsIn: number;
  charsOut: number;
  warnings: string[];
  diagnostics: OutputResult['diagnostics'];
}

export function outputResultJson(r: OutputResult): OutputResultJson {
  const { keepMask: _mask, ...json } = r;
  return json;
}
