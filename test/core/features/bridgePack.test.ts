/** The packed bridge table: the same lookups and values as the JSON form, and corrupt files refused. */
import { describe, expect, it } from 'vitest';
import { type BridgeTable, bridgeFromJson, bridgeToJson, emptyBridge, expandQuery } from '../../../src/core/features/bridge.js';
import { packBridge, unpackBridge } from '../../../src/core/features/bridgePack.js';

function sample(): BridgeTable {
  const b = emptyBridge();
  b.table.set('redraw', [
    ['refresh', 2.41],
    ['render', 1.07],
    ['paint', 0.4],
  ]);
  b.table.set('0', [['zero', 0.55]]);
  b.table.set('größe', [
    ['size', 1.3],
    ['länge', 0.91],
  ]);
  b.table.set('emoji😀', [['smile', 0.5]]);
  b.prior.set('refresh', -1.234567); // unrounded in memory: files keep two decimals
  b.prior.set('render', 0.5);
  b.prior.set('länge', -0.004);
  b.prior.set('size', 3);
  return b;
}

/** What a table is after a round trip through bridge.json. */
const viaJson = (b: BridgeTable) => bridgeFromJson(JSON.parse(JSON.stringify(bridgeToJson(b))));

describe('packed bridge table', () => {
  it('looks up what the JSON form holds, to the same double', () => {
    const b = sample();
    const json = viaJson(b);
    const packed = unpackBridge(packBridge(b));
    expect(packed.table.size).toBe(json.table.size);
    expect(packed.prior.size).toBe(json.prior.size);
    for (const [k, row] of json.table) {
      const got = packed.table.get(k)!;
      expect(got).toEqual(row);
      row.forEach(([, a], i) => expect(Object.is(got[i][1], a)).toBe(true));
    }
    for (const [k, v] of json.prior) expect(Object.is(packed.prior.get(k), v)).toBe(true);
    expect(packed.table.get('missing')).toBeUndefined();
    expect(packed.prior.get('')).toBeUndefined();
    expect(packed.table.has('größe')).toBe(true);
    expect(expandQuery(packed, ['redraw', 'größe'])).toEqual(expandQuery(json, ['redraw', 'größe']));
    // iteration and re-serialization give the same file content
    expect(JSON.stringify(bridgeToJson(packed))).toBe(JSON.stringify(bridgeToJson(json)));
    expect(new Map(packed.prior)).toEqual(new Map([...json.prior].sort()));
  });

  it('an empty table, and values too large for 16 bits', () => {
    const empty = unpackBridge(packBridge(emptyBridge()));
    expect(empty.table.size).toBe(0);
    expect(empty.prior.get('x')).toBeUndefined();
    const b = emptyBridge();
    b.table.set('q', [['c', 400.25]]);
    b.prior.set('c', -1234.5);
    const packed = unpackBridge(packBridge(b));
    expect(packed.table.get('q')).toEqual([['c', 400.25]]);
    expect(packed.prior.get('c')).toBe(-1234.5);
  });

  it('refuses bytes that are not a well-formed table, naming the problem', () => {
    const bin = packBridge(sample());
    expect(() => unpackBridge(bin.subarray(0, bin.length - 4), 'b.bin')).toThrow(/b\.bin .*truncated/);
    expect(() => unpackBridge(new Uint8Array(20))).toThrow(/too short/);
    const wrongMagic = bin.slice();
    wrongMagic[0] ^= 0xff;
    expect(() => unpackBridge(wrongMagic)).toThrow(/magic/);
    // a string id beyond the string table (the first row's key), a flipped bit in the pool
    const dv = new DataView(bin.buffer.slice(0));
    const strings = dv.getUint32(8, true);
    dv.setUint32(4 * 16 + 4 * (strings + 1), strings + 5, true);
    expect(() => unpackBridge(new Uint8Array(dv.buffer))).toThrow(/SHA-1 does not match/);
    const flipped = bin.slice();
    flipped[flipped.length - 3] ^= 1;
    expect(() => unpackBridge(flipped)).toThrow(/SHA-1 does not match/);
  });

  it('unaligned input is copied, not misread', () => {
    const bin = packBridge(sample());
    const shifted = new Uint8Array(bin.length + 1);
    shifted.set(bin, 1);
    expect(unpackBridge(shifted.subarray(1)).table.get('redraw')).toEqual([
      ['refresh', 2.41],
      ['render', 1.07],
      ['paint', 0.4],
    ]);
  });
});
