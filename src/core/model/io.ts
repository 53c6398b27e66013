/**
 * Weights on disk, format skim-lamr/2 (what saveModel writes):
 *   <dir>/model.json   header: feature names, threshold, calibration, metrics (no parameters)
 *   <dir>/weights.bin  the parameters, little-endian Float32: the first stage, then the context stage
 *   <dir>/bridge.bin   the learned query->code translation table, packed (features/bridgePack.ts)
 *   <dir>/bridge.json  the same table as JSON, for reading; skim loads bridge.bin when it is there
 * Loading parses no megabytes: the table is looked up in place, the weights are one typed array.
 * Format skim-lamr/1 (parameters as base64 Float32 blobs inside model.json, bridge.json only) still
 * loads. A model may point at another directory's table with "bridge": "<relative path>" (the
 * packed sibling of a named .json file is used when it exists).
 */
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readSync, type Stats, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BridgeTable, bridgeFromJson, bridgeToJson } from '../features/bridge.js';
import { packBridge, unpackBridge } from '../features/bridgePack.js';
import { FEATURE_NAMES } from '../features/columns.js';
import { CONTEXT_FEATURE_NAMES } from '../features/contextFeatures.js';
import type { ModelFile, ModelHeader } from './header.js';
import { LamrModel, type ModelMode, makeLayout } from './lamr.js';

export type { ModelHeader };

export const MODEL_FORMAT = 'skim-lamr/2';
/** Parameters inside model.json as base64 blobs, bridge.json only: still loaded. */
const MODEL_FORMAT_V1 = 'skim-lamr/1';
const WEIGHTS_FILE = 'weights.bin';

/**
 * Largest model files skim reads (the shipped ones: model.json 3 KB, bridge tables 4 MB): a
 * larger file is not a model, and reading it would only fill the heap.
 */
const MAX_HEADER_BYTES = 1024 * 1024;
const MAX_TABLE_BYTES = 256 * 1024 * 1024;
/** Open flags: a FIFO must not make open wait for a writer (it is then refused by its type). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isDirectory()) return 'a directory';
  return 'not a file';
}

/**
 * A model file's bytes: a regular file (a link to /dev/zero or a FIFO is refused, never read) of
 * at most `maxBytes`, or of exactly `size(bytes)` when given; read through the one descriptor
 * that was checked. Errors name the file and the problem.
 */
function readModelFile(file: string, maxBytes: number, exact?: (bytes: number) => string | null): Buffer {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${file} is not a regular file (${kindOf(info)}): model files must be`);
    const wrong = exact?.(info.size);
    if (wrong) throw new Error(wrong);
    if (info.size > maxBytes) throw new Error(`${file} is ${info.size} bytes, larger than a model file can be (${maxBytes})`);
    // one more byte than stat says: a file that grew since is not the file that was checked
    const buf = Buffer.alloc(info.size + 1);
    let got = 0;
    for (let n; got < buf.length && (n = readSync(fd, buf, got, buf.length - got, null)) > 0; ) got += n;
    if (got !== info.size) throw new Error(`${file} changed while it was read`);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

export interface LoadedModel {
  header: ModelHeader;
  model: LamrModel;
  bridge: BridgeTable;
  /**
   * The optional second (auto-context) stage: the same architecture over the line features plus
   * the context features computed from the first stage's marginals (features/contextFeatures.ts).
   */
  context?: LamrModel;
}

function fromBlob(blob: string): Float64Array {
  const buf = Buffer.from(blob, 'base64');
  return Float64Array.from(new Float32Array(Uint8Array.from(buf).buffer)); // copy: pooled Buffers are not 4-byte aligned
}

export function saveModel(
  dir: string,
  model: LamrModel,
  bridge: BridgeTable,
  header: Omit<ModelHeader, 'format' | 'mode' | 'features' | 'hidden'>,
  context?: LamrModel,
): void {
  mkdirSync(dir, { recursive: true });
  // a header from a loaded skim-lamr/1 model may carry its old pointers: the files written here replace them
  const { params: _p, context: _c, weights: _w, paramCount: _n, format: _f, mode: _m, features: _x, hidden: _h, ...rest } = header as ModelFile;
  const full: ModelFile = {
    format: MODEL_FORMAT,
    mode: model.mode,
    features: FEATURE_NAMES,
    hidden: model.H,
    ...rest,
    weights: WEIGHTS_FILE,
    paramCount: model.p.length,
  };
  if (context) full.context = { mode: context.mode, features: CONTEXT_FEATURE_NAMES, hidden: context.H, paramCount: context.p.length };
  const weights = new Float32Array(model.p.length + (context?.p.length ?? 0));
  weights.set(model.p);
  if (context) weights.set(context.p, model.p.length);
  writeFileSync(join(dir, WEIGHTS_FILE), littleEndian(weights));
  writeFileSync(join(dir, 'model.json'), JSON.stringify(full, null, 1) + '\n');
  writeFileSync(join(dir, 'bridge.bin'), packBridge(bridge));
  writeFileSync(join(dir, 'bridge.json'), JSON.stringify(bridgeToJson(bridge)) + '\n');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The bytes of a Float32Array in little-endian order. */
function littleEndian(a: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  a.forEach((v, i) => dv.setFloat32(4 * i, v, true));
  return out;
}

/** Float32 values of little-endian bytes, widened to Float64 as the model computes in. */
function readFloat32(bytes: Uint8Array): Float64Array {
  const n = bytes.byteLength >> 2;
  if (LITTLE_ENDIAN) {
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    return Float64Array.from(new Float32Array(aligned.buffer, aligned.byteOffset, n));
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float64Array.from({ length: n }, (_, i) => dv.getFloat32(4 * i, true));
}

/**
 * The bridge table file of a model: "bridge" in model.json names another directory's (relative
 * path), else the directory's own. Of a named `.json`, its packed `.bin` sibling when there is one.
 */
function bridgeFile(dir: string, raw: object): string {
  const named0 = (raw as { bridge?: unknown }).bridge;
  if (typeof named0 === 'string') {
    const named = join(dir, named0);
    const packed = named.replace(/\.json$/, '.bin');
    return packed !== named && existsSync(packed) ? packed : named;
  }
  return existsSync(join(dir, 'bridge.bin')) ? join(dir, 'bridge.bin') : join(dir, 'bridge.json');
}

export function modelExists(dir: string): boolean {
  if (!existsSync(join(dir, 'model.json'))) return false;
  try {
    const raw = JSON.parse(readModelFile(join(dir, 'model.json'), MAX_HEADER_BYTES).toString('utf8')) as { bridge?: unknown };
    return existsSync(bridgeFile(dir, raw));
  } catch {
    return false;
  }
}

/**
 * Load and validate a model directory. Throws an Error naming the problem (unreadable or truncated
 * JSON, a different feature set, a parameter count that does not fit, NaN or infinite weights, a
 * threshold outside (0, 1], a malformed bridge table): a corrupt model must never score anything.
 */
export function loadModel(dir: string): LoadedModel {
  const raw = readJson(join(dir, 'model.json'), MAX_HEADER_BYTES) as ModelFile;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`model.json in ${dir} is not a JSON object`);
  if (raw.format !== MODEL_FORMAT && raw.format !== MODEL_FORMAT_V1) throw new Error(`unsupported model format ${JSON.stringify(raw.format)} in ${dir}`);
  if (!sameNames(raw.features, FEATURE_NAMES)) throw new Error(`model in ${dir} was trained with a different feature set`);
  const c = raw.context;
  if (c !== undefined && (!c || !sameNames(c.features, CONTEXT_FEATURE_NAMES)))
    throw new Error(`model in ${dir} has a context stage trained with a different feature set`);
  const contextFeatures = FEATURE_NAMES.length + CONTEXT_FEATURE_NAMES.length;
  let model: LamrModel;
  let context: LamrModel | undefined;
  if (raw.format === MODEL_FORMAT_V1) {
    model = stage(dir, 'model', raw, FEATURE_NAMES.length, blobParams(dir, 'model', raw));
    if (c) context = stage(dir, 'context stage', c, contextFeatures, blobParams(dir, 'context stage', c));
  } else {
    // one Float32 file: the first stage's parameters, then the context stage's
    shape(dir, 'model', raw);
    if (c) shape(dir, 'context stage', c);
    const n1 = makeLayout(FEATURE_NAMES.length, raw.hidden).size;
    const n2 = c ? makeLayout(contextFeatures, c.hidden).size : 0;
    const file = join(dir, typeof raw.weights === 'string' ? raw.weights : WEIGHTS_FILE);
    if (!existsSync(file)) throw new Error(`model in ${dir}: its weights file ${file} is missing`);
    const expected = (size: number) =>
      size === 4 * (n1 + n2) ? null : `${file} holds ${size / 4} parameters, expected ${n1}${c ? ` + ${n2}` : ''} (truncated or corrupt weights?)`;
    const bytes = readModelFile(file, 4 * (n1 + n2), expected);
    const all = readFloat32(bytes);
    model = stage(dir, 'model', raw, FEATURE_NAMES.length, all.slice(0, n1));
    if (c) context = stage(dir, 'context stage', c, contextFeatures, all.slice(n1));
  }
  checkNumber(dir, 'threshold', raw.threshold, (x) => x > 0 && x <= 1, 'a number in (0, 1]');
  if (raw.stage1Threshold !== undefined) checkNumber(dir, 'stage1Threshold', raw.stage1Threshold, (x) => x > 0 && x <= 1, 'a number in (0, 1]');
  for (const key of ['docPower', 'stage1DocPower'] as const) if (raw[key] !== undefined) checkNumber(dir, key, raw[key], (x) => x >= 0, 'a number >= 0');
  if (raw.relativeFloor !== undefined) checkNumber(dir, 'relativeFloor', raw.relativeFloor, (x) => x >= 0 && x < 1, 'a number in [0, 1)');
  if (raw.lift !== undefined) {
    const lift = raw.lift as { window?: unknown; alpha?: unknown } | null;
    checkNumber(dir, 'lift.window', lift?.window, (x) => x >= 0, 'a number >= 0');
    checkNumber(dir, 'lift.alpha', lift?.alpha, (x) => x >= 0, 'a number >= 0');
  }
  // a model may share another model's bridge table (same training data): "bridge": "../default/bridge.json"
  const bridgePath = bridgeFile(dir, raw);
  if (!existsSync(bridgePath)) throw new Error(`model in ${dir}: its bridge table ${bridgePath} is missing`);
  const bridge = bridgePath.endsWith('.bin')
    ? unpackBridge(readModelFile(bridgePath, MAX_TABLE_BYTES), bridgePath)
    : bridgeFromJson(checkBridge(bridgePath, readJson(bridgePath, MAX_TABLE_BYTES)));
  const { params: _p, context: _c, ...header } = raw;
  return { header, model, bridge, ...(context ? { context } : {}) };
}

function readJson(file: string, maxBytes: number): unknown {
  const text = readModelFile(file, maxBytes).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON (truncated or corrupt? ${(err as Error).message})`);
  }
}

function sameNames(names: unknown, expected: readonly string[]): boolean {
  return Array.isArray(names) && names.length === expected.length && names.every((x, i) => x === expected[i]);
}

function checkNumber(dir: string, key: string, value: unknown, ok: (x: number) => boolean, want: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value))
    throw new Error(`model in ${dir}: ${key} ${JSON.stringify(value) ?? 'missing'} is not ${want}`);
}

/** A stage's hidden size and mode. */
function shape(dir: string, what: string, s: { hidden?: unknown; mode?: unknown }): asserts s is { hidden: number; mode: ModelMode } {
  if (!Number.isInteger(s.hidden) || (s.hidden as number) < 1)
    throw new Error(`${what} in ${dir}: hidden size ${JSON.stringify(s.hidden)} is not a positive integer`);
  if (s.mode !== 'lamr' && s.mode !== 'single') throw new Error(`${what} in ${dir}: unknown mode ${JSON.stringify(s.mode)}`);
}

/** skim-lamr/1: a stage's parameters as a base64 Float32 blob inside model.json. */
function blobParams(dir: string, what: string, s: { params?: unknown }): Float64Array {
  if (typeof s.params !== 'string') throw new Error(`${what} in ${dir} has no parameters`);
  if (Buffer.byteLength(s.params, 'base64') % 4 !== 0)
    throw new Error(`${what} in ${dir}: the parameter blob is not a whole number of float32 values (truncated?)`);
  return fromBlob(s.params);
}

/** One stage: a hidden size, a mode, and exactly the right number of finite parameters. */
function stage(dir: string, what: string, s: { hidden?: unknown; mode?: unknown }, features: number, p: Float64Array): LamrModel {
  shape(dir, what, s);
  const expected = makeLayout(features, s.hidden).size;
  if (p.length !== expected) throw new Error(`${what} in ${dir} has ${p.length} parameters, expected ${expected} (truncated or corrupt weights?)`);
  const bad = p.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new Error(`${what} in ${dir}: weight ${bad} is ${p[bad]} (weights must be finite numbers)`);
  // a trained model has no stage of zeros: a wiped or zero-filled file would score every line alike
  if (p.every((x) => x === 0)) throw new Error(`${what} in ${dir}: every weight is 0 (a wiped or zero-filled weights file?)`);
  return new LamrModel(features, s.hidden, s.mode, p);
}

/** A bridge table: query term -> [code term, finite weight] pairs, and a finite prior per code term. */
function checkBridge(file: string, j: unknown): { table: Record<string, [string, number][]>; prior: Record<string, number> } {
  const o = j as { table?: unknown; prior?: unknown } | null;
  const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (!isObject(o) || !isObject(o.table) || !isObject(o.prior)) throw new Error(`${file} is not a bridge table ({"table": {...}, "prior": {...}})`);
  for (const [q, row] of Object.entries(o.table)) {
    if (!Array.isArray(row) || !row.every((e) => Array.isArray(e) && typeof e[0] === 'string' && Number.isFinite(e[1])))
      throw new Error(`${file}: the row of ${JSON.stringify(q)} is not a list of [term, finite weight] pairs`);
  }
  for (const [c, v] of Object.entries(o.prior))
    if (!Number.isFinite(v)) throw new Error(`${file}: the prior of ${JSON.stringify(c)} is ${JSON.stringify(v)}, not a finite number`);
  return o as { table: Record<string, [string, number][]>; prior: Record<string, number> };
}
