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
import { LamrModel, type ModelMode } from './lamr.js';

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

export function loadModel(dir: string): LoadedModel {
  const raw = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as ModelHeader & { params: string; context?: ContextBlock };
  if (raw.format !== MODEL_FORMAT) throw new Error(`unsupported model format ${raw.format} in ${dir}`);
  if (raw.features.join(',') !== FEATURE_NAMES.join(',')) throw new Error(`model in ${dir} was trained with a different feature set`);
  const model = new LamrModel(raw.features.length, raw.hidden, raw.mode, fromBlob(raw.params));
  let context: LamrModel | undefined;
  if (raw.context) {
    const c = raw.context;
    if (c.features.join(',') !== CONTEXT_FEATURE_NAMES.join(',')) throw new Error(`model in ${dir} has a context stage trained with a different feature set`);
    context = new LamrModel(FEATURE_NAMES.length + c.features.length, c.hidden, c.mode, fromBlob(c.params));
  }
  // a model may share another model's bridge table (same training data): "bridge": "../default/bridge.json"
  const bridgePath = typeof raw.bridge === 'string' ? join(dir, raw.bridge) : join(dir, 'bridge.json');
  const bridge = bridgeFromJson(JSON.parse(readFileSync(bridgePath, 'utf8')));
  const { params: _p, context: _c, ...header } = raw;
  return { header, model, bridge, ...(context ? { context } : {}) };
}
