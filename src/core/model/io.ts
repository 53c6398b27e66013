/**
 * Weights on disk: <dir>/model.json (header, feature names, threshold, metrics, parameters as a
 * base64 Float32 blob) and <dir>/bridge.json (the learned query->code translation table; a model
 * may point at another directory's table with "bridge": "<relative path>").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BridgeTable, bridgeFromJson, bridgeToJson } from '../features/bridge.js';
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
}

export function saveModel(dir: string, model: LamrModel, bridge: BridgeTable, header: Omit<ModelHeader, 'format' | 'mode' | 'features' | 'hidden'>): void {
  mkdirSync(dir, { recursive: true });
  const blob = Buffer.from(new Float32Array(model.p).buffer).toString('base64');
  const full: Record<string, unknown> = {
    format: MODEL_FORMAT,
    mode: model.mode,
    features: FEATURE_NAMES,
    hidden: model.H,
    ...header,
    paramCount: model.p.length,
    params: blob,
  };
  writeFileSync(join(dir, 'model.json'), JSON.stringify(full, null, 1) + '\n');
  writeFileSync(join(dir, 'bridge.json'), JSON.stringify(bridgeToJson(bridge)) + '\n');
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
  const raw = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as ModelHeader & { params: string };
  if (raw.format !== MODEL_FORMAT) throw new Error(`unsupported model format ${raw.format} in ${dir}`);
  if (raw.features.join(',') !== FEATURE_NAMES.join(',')) throw new Error(`model in ${dir} was trained with a different feature set`);
  const buf = Buffer.from(raw.params, 'base64');
  const f32 = new Float32Array(Uint8Array.from(buf).buffer); // copy: pooled Buffers are not 4-byte aligned
  const model = new LamrModel(raw.features.length, raw.hidden, raw.mode, Float64Array.from(f32));
  // a model may share another model's bridge table (same training data): "bridge": "../default/bridge.json"
  const bridgePath = typeof raw.bridge === 'string' ? join(dir, raw.bridge) : join(dir, 'bridge.json');
  const bridge = bridgeFromJson(JSON.parse(readFileSync(bridgePath, 'utf8')));
  const { params: _p, ...header } = raw;
  return { header, model, bridge };
}
