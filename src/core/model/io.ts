/**
 * Weights on disk: <dir>/model.json (header, feature names, threshold, metrics, parameters as a
 * base64 Float32 blob) and <dir>/bridge.json (the learned query->code translation table; a model
 * may point at another directory's table with "bridge": "<relative path>").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BridgeTable, bridgeFromJson, bridgeToJson } from '../features/bridge.js';
import { CONTEXT_FEATURE_NAMES } from '../features/contextFeatures.js';
import { FEATURE_NAMES } from '../features/lineFeatures.js';
import { LamrModel, makeLayout, type ModelMode } from './lamr.js';

export const MODEL_FORMAT = 'skim-lamr/1';

export interface ModelHeader {
  format: string;
  mode: ModelMode;
  features: string[];
  hidden: number;
  /** Default keep threshold calibrated on validation data. */
  threshold: number;
  /** Which SyntaxIndex the features were computed with during training. */
  syntax?: string;
  createdAt?: string;
  [extra: string]: unknown;
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

const toBlob = (p: Float64Array): string => Buffer.from(new Float32Array(p).buffer).toString('base64');

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
  const full: Record<string, unknown> = {
    format: MODEL_FORMAT,
    mode: model.mode,
    features: FEATURE_NAMES,
    hidden: model.H,
    ...header,
    paramCount: model.p.length,
    params: toBlob(model.p),
  };
  if (context) {
    full.context = { mode: context.mode, features: CONTEXT_FEATURE_NAMES, hidden: context.H, paramCount: context.p.length, params: toBlob(context.p) };
  }
  writeFileSync(join(dir, 'model.json'), JSON.stringify(full, null, 1) + '\n');
  writeFileSync(join(dir, 'bridge.json'), JSON.stringify(bridgeToJson(bridge)) + '\n');
}

interface ContextBlock {
  mode: ModelMode;
  features: string[];
  hidden: number;
  params: string;
}

export function modelExists(dir: string): boolean {
  if (!existsSync(join(dir, 'model.json'))) return false;
  try {
    const raw = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { bridge?: unknown };
    return existsSync(typeof raw.bridge === 'string' ? join(dir, raw.bridge) : join(dir, 'bridge.json'));
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
  const raw = readJson(join(dir, 'model.json')) as ModelHeader & { params: string; context?: ContextBlock };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`model.json in ${dir} is not a JSON object`);
  if (raw.format !== MODEL_FORMAT) throw new Error(`unsupported model format ${JSON.stringify(raw.format)} in ${dir}`);
  if (!sameNames(raw.features, FEATURE_NAMES)) throw new Error(`model in ${dir} was trained with a different feature set`);
  const model = stage(dir, 'model', raw, FEATURE_NAMES.length);
  let context: LamrModel | undefined;
  if (raw.context !== undefined) {
    const c = raw.context;
    if (!c || !sameNames(c.features, CONTEXT_FEATURE_NAMES)) throw new Error(`model in ${dir} has a context stage trained with a different feature set`);
    context = stage(dir, 'context stage', c, FEATURE_NAMES.length + c.features.length);
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
  const bridgePath = typeof raw.bridge === 'string' ? join(dir, raw.bridge) : join(dir, 'bridge.json');
  if (!existsSync(bridgePath)) throw new Error(`model in ${dir}: its bridge table ${bridgePath} is missing`);
  const bridge = bridgeFromJson(checkBridge(bridgePath, readJson(bridgePath)));
  const { params: _p, context: _c, ...header } = raw;
  return { header, model, bridge, ...(context ? { context } : {}) };
}

function readJson(file: string): unknown {
  const text = readFileSync(file, 'utf8');
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
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) throw new Error(`model in ${dir}: ${key} ${JSON.stringify(value) ?? 'missing'} is not ${want}`);
}

/** One stage's weights: a hidden size, a mode, and a base64 blob of exactly the right number of finite parameters. */
function stage(dir: string, what: string, s: { hidden?: unknown; mode?: unknown; params?: unknown }, features: number): LamrModel {
  if (!Number.isInteger(s.hidden) || (s.hidden as number) < 1) throw new Error(`${what} in ${dir}: hidden size ${JSON.stringify(s.hidden)} is not a positive integer`);
  if (s.mode !== 'lamr' && s.mode !== 'single') throw new Error(`${what} in ${dir}: unknown mode ${JSON.stringify(s.mode)}`);
  if (typeof s.params !== 'string') throw new Error(`${what} in ${dir} has no parameters`);
  if (Buffer.byteLength(s.params, 'base64') % 4 !== 0) throw new Error(`${what} in ${dir}: the parameter blob is not a whole number of float32 values (truncated?)`);
  const p = fromBlob(s.params);
  const expected = makeLayout(features, s.hidden as number).size;
  if (p.length !== expected) throw new Error(`${what} in ${dir} has ${p.length} parameters, expected ${expected} (truncated or corrupt weights?)`);
  const bad = p.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new Error(`${what} in ${dir}: weight ${bad} is ${p[bad]} (weights must be finite numbers)`);
  return new LamrModel(features, s.hidden as number, s.mode, p);
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
  for (const [c, v] of Object.entries(o.prior)) if (!Number.isFinite(v)) throw new Error(`${file}: the prior of ${JSON.stringify(c)} is ${JSON.stringify(v)}, not a finite number`);
  return o as { table: Record<string, [string, number][]>; prior: Record<string, number> };
}
