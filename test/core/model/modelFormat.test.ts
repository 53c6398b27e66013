/**
 * The on-disk model (skim-lamr/2): weights in one little-endian Float32 file, the bridge table
 * packed next to its JSON; the older skim-lamr/1 layout (base64 blobs in model.json, bridge.json
 * only) still loads, to the same scores.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bridgeFromJson, bridgeToJson } from '../../../src/core/features/bridge.js';
import { packBridge } from '../../../src/core/features/bridgePack.js';
import { createLearnedScorer, defaultModelDir } from '../../../src/core/model/index.js';
import { loadModel, MODEL_FORMAT, saveModel } from '../../../src/core/model/io.js';
import { createPruner } from '../../../src/core/prune.js';

const tmp = mkdtempSync(join(tmpdir(), 'skim-format-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const shipped = defaultModelDir()!;
const code = readFileSync(join(__dirname, '../../../examples/logging.py'), 'utf8');
const query = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';

/** models/default rewritten in the skim-lamr/1 layout. */
function asVersion1(dir: string): void {
  const m = loadModel(shipped);
  const blob = (p: Float64Array) => Buffer.from(new Float32Array(p).buffer).toString('base64');
  const header = JSON.parse(readFileSync(join(shipped, 'model.json'), 'utf8')) as Record<string, unknown>;
  const { weights: _w, context, ...rest } = header;
  const v1 = { ...rest, format: 'skim-lamr/1', params: blob(m.model.p), context: { ...(context as object), params: blob(m.context!.p) } };
  cpSync(join(shipped, 'bridge.json'), join(dir, 'bridge.json'));
  writeFileSync(join(dir, 'model.json'), JSON.stringify(v1));
}

describe('model files', () => {
  it('the shipped model is skim-lamr/2, and its bridge.bin is its bridge.json packed', () => {
    const header = JSON.parse(readFileSync(join(shipped, 'model.json'), 'utf8')) as Record<string, unknown>;
    expect(header.format).toBe(MODEL_FORMAT);
    expect(header.params).toBeUndefined();
    const fromJson = bridgeFromJson(JSON.parse(readFileSync(join(shipped, 'bridge.json'), 'utf8')));
    expect(Buffer.compare(readFileSync(join(shipped, 'bridge.bin')), Buffer.from(packBridge(fromJson)))).toBe(0);
  });

  it('saveModel writes weights.bin, bridge.bin and bridge.json, and loadModel gives back the same model', () => {
    const m = loadModel(shipped);
    const dir = join(tmp, 'saved');
    saveModel(dir, m.model, m.bridge, m.header, m.context);
    expect(readdirSync(dir).sort()).toEqual(['bridge.bin', 'bridge.json', 'model.json', 'weights.bin']);
    expect(readFileSync(join(dir, 'bridge.json'), 'utf8')).toBe(readFileSync(join(shipped, 'bridge.json'), 'utf8'));
    expect(readFileSync(join(dir, 'weights.bin')).length).toBe(4 * (m.model.p.length + m.context!.p.length));
    const again = loadModel(dir);
    expect(again.header).toEqual(m.header);
    expect(Array.from(again.model.p)).toEqual(Array.from(m.model.p));
    expect(Array.from(again.context!.p)).toEqual(Array.from(m.context!.p));
    expect(JSON.stringify(bridgeToJson(again.bridge))).toBe(JSON.stringify(bridgeToJson(m.bridge)));
  });

  it('a skim-lamr/1 directory still loads, and prunes exactly as the shipped one', async () => {
    const dir = join(tmp, 'v1');
    cpSync(shipped, dir, { recursive: true, filter: (src) => !/(weights|bridge)\.bin$|model\.json$/.test(src) });
    asVersion1(dir);
    expect(existsSync(join(dir, 'weights.bin'))).toBe(false);
    const v1 = loadModel(dir);
    expect(v1.header.format).toBe('skim-lamr/1');
    const v2 = loadModel(shipped);
    expect(Array.from(v1.model.p)).toEqual(Array.from(v2.model.p));
    for (const req of [
      { code, query },
      { code, query, ratio: 4 },
    ]) {
      const a = await createPruner({ modelDir: dir }).prune(req);
      const b = await createPruner({ modelDir: shipped }).prune(req);
      expect(a.warnings).toEqual(b.warnings);
      expect(a.text).toBe(b.text);
      expect(a.score).toBe(b.score);
    }
    // and rewriting it gives the current layout
    saveModel(dir, v1.model, v1.bridge, v1.header, v1.context);
    expect(loadModel(dir).header.format).toBe(MODEL_FORMAT);
  });

  it("a model that names another directory's bridge.json uses its packed sibling", () => {
    const single = createLearnedScorer(join(shipped, '..', 'single-crf'));
    expect(single).not.toBeNull();
    expect(single!.loaded.bridge.table.constructor.name).not.toBe('Map');
  });
});
