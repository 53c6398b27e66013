/**
 * Rewrites a model directory in the current on-disk format (skim-lamr/2: weights.bin, bridge.bin
 * next to model.json and bridge.json; src/core/model/io.ts). Older directories still load as they
 * are; converted ones load without parsing megabytes of JSON.
 *   npx tsx scripts/convert-model.ts models/default [more dirs...]
 */
import { loadModel, saveModel } from '../src/core/model/io.js';

for (const dir of process.argv.slice(2)) {
  const m = loadModel(dir);
  saveModel(dir, m.model, m.bridge, m.header, m.context);
  const again = loadModel(dir);
  const same = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  if (!same(m.model.p, again.model.p) || (m.context && !same(m.context.p, again.context!.p))) throw new Error(`${dir}: weights changed in the rewrite`);
  console.log(`${dir}: written as ${again.header.format}`);
}
