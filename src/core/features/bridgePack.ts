/**
 * The bridge table (./bridge.ts) in a binary form that is looked up in place: bridge.json is
 * 3.2 MB of JSON whose parse and 77,000 map entries cost about a third of a second per process,
 * while a prune looks up a few dozen query terms and a few thousand code terms.
 *
 * Layout (little-endian; every section 4-byte aligned):
 *   header       u32[16]  magic "SKB1", version, strings, pool bytes, rows, pairs, priors,
 *                         row slots, prior slots, value bytes (2 or 4), SHA-1 of everything after
 *                         the header (20 bytes), 0
 *   strOffsets   u32[strings + 1]   string s is pool[strOffsets[s], strOffsets[s + 1]) (UTF-8)
 *   rowKey       u32[rows]          query term of each row (a string id)
 *   rowStart     u32[rows + 1]      row r's pairs are [rowStart[r], rowStart[r + 1])
 *   pairTerm     u32[pairs]         code term of each pair (a string id)
 *   priorKey     u32[priors]        code term of each prior (a string id)
 *   rowSlots     i32[row slots]     open addressing on fnv1a(UTF-8 key) -> row, -1 = empty
 *   priorSlots   i32[prior slots]   the same -> prior
 *   pairValue    i16|i32[pairs]     association x 100 (bridge.json keeps two decimals too)
 *   priorValue   i16|i32[priors]    prior logit x 100
 *   pool         u8[pool bytes]
 * A value v is stored as round(100 v) and read as that integer / 100: the same double that
 * JSON.parse gives for the two-decimal number bridge.json holds, so both files score alike.
 * Loading checks the header against the file's size and the SHA-1 against its content (truncated
 * or damaged files are refused) instead of walking every id and offset.
 */
import { createHash } from 'node:crypto';
import type { BridgeTable } from './bridge.js';

const MAGIC = 0x31424b53; // "SKB1"
const VERSION = 1;
const HEADER_WORDS = 16;
const SHA_AT = 10; // header word where the SHA-1 starts

function sha1(bytes: Uint8Array): Buffer {
  return createHash('sha1').update(bytes).digest();
}

/** FNV-1a over bytes[start, end). */
function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** UTF-8 bytes of `s` into the shared scratch buffer; their count. */
function encodeKey(s: string): number {
  if (scratch.length < s.length * 3) scratch = new Uint8Array(s.length * 3 + 256);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(s, scratch).written;
    scratch[i] = c;
  }
  return s.length;
}

/** Hash slots for n keys: a power of two, at most two thirds full. */
function slotCountFor(n: number): number {
  let s = 8;
  while (s < n * 1.5) s *= 2;
  return s;
}

const hundredths = (v: number): number => Math.round(v * 100);

/** The binary form of a table. Values keep two decimals, as bridgeToJson does. */
export function packBridge(b: BridgeTable): Uint8Array {
  const ids = new Map<string, number>();
  const strings: Uint8Array[] = [];
  const id = (s: string): number => {
    let v = ids.get(s);
    if (v === undefined) {
      v = strings.length;
      ids.set(s, v);
      strings.push(encoder.encode(s));
    }
    return v;
  };
  const rowKeys = [...b.table.keys()].sort();
  const priorKeys = [...b.prior.keys()].sort();
  const rowKey = rowKeys.map(id);
  const rowStart: number[] = [0];
  const pairTerm: number[] = [];
  const pairValue: number[] = [];
  for (const q of rowKeys) {
    for (const [c, a] of b.table.get(q)!) {
      pairTerm.push(id(c));
      pairValue.push(hundredths(a));
    }
    rowStart.push(pairTerm.length);
  }
  const priorKey = priorKeys.map(id);
  const priorValue = priorKeys.map((c) => hundredths(b.prior.get(c)!));
  for (const v of [...pairValue, ...priorValue]) if (!Number.isSafeInteger(v)) throw new Error(`bridge table: value ${v / 100} cannot be stored`);
  const wide = [...pairValue, ...priorValue].some((v) => v < -32768 || v > 32767);
  const valueBytes = wide ? 4 : 2;

  const poolBytes = strings.reduce((t, s) => t + s.length, 0);
  const rowSlots = slotCountFor(rowKey.length);
  const priorSlots = slotCountFor(priorKey.length);
  const align4 = (x: number) => (x + 3) & ~3;
  const sizes = [
    4 * HEADER_WORDS,
    4 * (strings.length + 1),
    4 * rowKey.length,
    4 * (rowKey.length + 1),
    4 * pairTerm.length,
    4 * priorKey.length,
    4 * rowSlots,
    4 * priorSlots,
    align4(valueBytes * pairValue.length),
    align4(valueBytes * priorValue.length),
    align4(poolBytes),
  ];
  const out = new Uint8Array(sizes.reduce((a, b) => a + b, 0));
  const dv = new DataView(out.buffer);
  let at = 0;
  const u32 = (xs: ArrayLike<number>) => {
    for (let i = 0; i < xs.length; i++) dv.setUint32(at + 4 * i, xs[i], true);
    at += 4 * xs.length;
  };
  u32([MAGIC, VERSION, strings.length, poolBytes, rowKey.length, pairTerm.length, priorKey.length, rowSlots, priorSlots, valueBytes, 0, 0, 0, 0, 0, 0]);
  const offsets: number[] = [0];
  for (const s of strings) offsets.push(offsets[offsets.length - 1] + s.length);
  u32(offsets);
  u32(rowKey);
  u32(rowStart);
  u32(pairTerm);
  u32(priorKey);
  const pool = new Uint8Array(poolBytes);
  strings.forEach((s, i) => pool.set(s, offsets[i]));
  const slots = (keys: number[], count: number) => {
    const t = new Int32Array(count).fill(-1);
    keys.forEach((s, k) => {
      let i = fnv1a(pool, offsets[s], offsets[s + 1]) & (count - 1);
      while (t[i] >= 0) i = (i + 1) & (count - 1);
      t[i] = k;
    });
    for (let i = 0; i < count; i++) dv.setInt32(at + 4 * i, t[i], true);
    at += 4 * count;
  };
  slots(rowKey, rowSlots);
  slots(priorKey, priorSlots);
  const values = (xs: number[]) => {
    for (let i = 0; i < xs.length; i++) {
      if (valueBytes === 2) dv.setInt16(at + 2 * i, xs[i], true);
      else dv.setInt32(at + 4 * i, xs[i], true);
    }
    at += align4(valueBytes * xs.length);
  };
  values(pairValue);
  values(priorValue);
  out.set(pool, at);
  out.set(sha1(out.subarray(4 * HEADER_WORDS)), 4 * SHA_AT);
  return out;
}

/** A string-keyed table over the packed file: keys as string ids, hash slots to find them. */
class Keys {
  constructor(
    private readonly f: PackedFile,
    readonly key: Uint32Array,
    private readonly slots: Int32Array,
  ) {}

  /** Index of `s` among the keys, or -1. */
  find(s: string): number {
    const { pool, offsets } = this.f;
    const len = encodeKey(s);
    const mask = this.slots.length - 1;
    let i = fnv1a(scratch, 0, len) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const k = this.slots[i];
      if (k < 0) return -1;
      const id = this.key[k];
      const o = offsets[id];
      if (offsets[id + 1] - o === len) {
        let j = 0;
        while (j < len && pool[o + j] === scratch[j]) j++;
        if (j === len) return k;
      }
      i = (i + 1) & mask;
    }
    return -1;
  }
}

interface PackedFile {
  buf: Buffer;
  offsets: Uint32Array;
  pool: Uint8Array;
  poolAt: number;
}

function stringOf(f: PackedFile, id: number): string {
  return f.buf.toString('utf8', f.poolAt + f.offsets[id], f.poolAt + f.offsets[id + 1]);
}

const MISSING = Symbol('missing');
/** Lookups remembered per table: a server or a batch meets the same terms call after call. */
const MEMO_MAX = 65_536;

/** A read-only map over packed keys; `valueAt(k)` makes the value of key k. */
abstract class PackedMap<V> implements ReadonlyMap<string, V> {
  private memo = new Map<string, V | typeof MISSING>();
  constructor(
    protected readonly f: PackedFile,
    protected readonly keys_: Keys,
  ) {}
  protected abstract valueAt(k: number): V;
  get size(): number {
    return this.keys_.key.length;
  }
  get(key: string): V | undefined {
    let v = this.memo.get(key);
    if (v === undefined) {
      const k = this.keys_.find(key);
      v = k < 0 ? MISSING : this.valueAt(k);
      if (this.memo.size >= MEMO_MAX) this.memo.clear();
      this.memo.set(key, v);
    }
    return v === MISSING ? undefined : v;
  }
  has(key: string): boolean {
    return this.keys_.find(key) >= 0;
  }
  *keys(): IterableIterator<string> {
    for (let k = 0; k < this.size; k++) yield stringOf(this.f, this.keys_.key[k]);
  }
  *values(): IterableIterator<V> {
    for (let k = 0; k < this.size; k++) yield this.valueAt(k);
  }
  *entries(): IterableIterator<[string, V]> {
    for (let k = 0; k < this.size; k++) yield [stringOf(this.f, this.keys_.key[k]), this.valueAt(k)];
  }
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

class PackedRows extends PackedMap<[string, number][]> {
  constructor(
    f: PackedFile,
    keys: Keys,
    private readonly start: Uint32Array,
    private readonly term: Uint32Array,
    private readonly value: Int16Array | Int32Array,
  ) {
    super(f, keys);
  }
  protected valueAt(k: number): [string, number][] {
    const row: [string, number][] = [];
    for (let p = this.start[k]; p < this.start[k + 1]; p++) row.push([stringOf(this.f, this.term[p]), this.value[p] / 100]);
    return row;
  }
}

class PackedPrior extends PackedMap<number> {
  constructor(
    f: PackedFile,
    keys: Keys,
    private readonly value: Int16Array | Int32Array,
  ) {
    super(f, keys);
  }
  protected valueAt(k: number): number {
    return this.value[k] / 100;
  }
}

/**
 * The table over a packed file's bytes, looked up in place. Throws an Error that names the
 * problem when the bytes are not a well-formed table (truncated, another format, ids or offsets
 * out of range): a corrupt table must never score anything.
 */
export function unpackBridge(file: Uint8Array, name = 'bridge table'): BridgeTable {
  const bad = (why: string): never => {
    throw new Error(`${name} is not a valid packed bridge table: ${why}`);
  };
  if (file.byteLength < 4 * HEADER_WORDS) bad('too short');
  const bytes = file.byteOffset % 4 === 0 ? file : file.slice();
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = Array.from({ length: HEADER_WORDS }, (_, i) => dv.getUint32(4 * i, true));
  const [magic, version, nStrings, poolBytes, nRows, nPairs, nPrior, rowSlots, priorSlots, valueBytes] = h;
  if (magic !== MAGIC) bad('wrong magic number');
  if (version !== VERSION) bad(`version ${version}, expected ${VERSION}`);
  if (valueBytes !== 2 && valueBytes !== 4) bad(`value width ${valueBytes}`);
  const pow2 = (x: number) => x >= 8 && (x & (x - 1)) === 0;
  if (!pow2(rowSlots) || !pow2(priorSlots) || rowSlots <= nRows || priorSlots <= nPrior) bad('hash slots do not fit the keys');
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) bad('this machine is big-endian');
  const align4 = (x: number) => (x + 3) & ~3;
  let at = 4 * HEADER_WORDS;
  const need =
    at +
    4 * (nStrings + 1 + nRows + nRows + 1 + nPairs + nPrior + rowSlots + priorSlots) +
    align4(valueBytes * nPairs) +
    align4(valueBytes * nPrior) +
    align4(poolBytes);
  if (need !== bytes.byteLength) bad(`${bytes.byteLength} bytes, the header describes ${need} (truncated?)`);
  const u32 = (count: number) => {
    const a = new Uint32Array(bytes.buffer, bytes.byteOffset + at, count);
    at += 4 * count;
    return a;
  };
  const i32 = (count: number) => {
    const a = new Int32Array(bytes.buffer, bytes.byteOffset + at, count);
    at += 4 * count;
    return a;
  };
  const values = (count: number) => {
    const a = valueBytes === 2 ? new Int16Array(bytes.buffer, bytes.byteOffset + at, count) : new Int32Array(bytes.buffer, bytes.byteOffset + at, count);
    at += align4(valueBytes * count);
    return a;
  };
  const offsets = u32(nStrings + 1);
  const rowKey = u32(nRows);
  const rowStart = u32(nRows + 1);
  const pairTerm = u32(nPairs);
  const priorKey = u32(nPrior);
  const rowSlotT = i32(rowSlots);
  const priorSlotT = i32(priorSlots);
  const pairValue = values(nPairs);
  const priorValue = values(nPrior);
  const poolAt = at;
  const pool = new Uint8Array(bytes.buffer, bytes.byteOffset + poolAt, poolBytes);
  // the content is what packBridge wrote (a walk over every id and offset costs ~20 ms cold)
  const sum = sha1(bytes.subarray(4 * HEADER_WORDS));
  if (Buffer.compare(sum, Buffer.from(bytes.buffer, bytes.byteOffset + 4 * SHA_AT, 20)) !== 0) bad('its SHA-1 does not match its content (damaged?)');
  if (offsets[0] !== 0 || offsets[nStrings] !== poolBytes || rowStart[0] !== 0 || rowStart[nRows] !== nPairs)
    bad('offsets do not cover the pool and the pairs');
  const f: PackedFile = { buf, offsets, pool, poolAt };
  return {
    table: new PackedRows(f, new Keys(f, rowKey, rowSlotT), rowStart, pairTerm, pairValue),
    prior: new PackedPrior(f, new Keys(f, priorKey, priorSlotT), priorValue),
  };
}
