/**
 * The o200k_base vocabulary as one little-endian binary file that is looked up in place (no
 * parse, no map to build): the 2.4 MB JavaScript module of gpt-tokenizer and the 200,000-entry
 * map it builds cost about 0.2 s of CPU per process, most of a short `skim` command.
 *
 * Layout (all sections 4-byte aligned; u32 = little-endian unsigned 32-bit):
 *   header   u32[8]  magic "SKT1", version, tokens, slots (a power of 2), pool bytes, 0, 0, 0
 *   offsets  u32[tokens + 1]  token r's bytes are pool[offsets[r], offsets[r + 1])
 *   slots    i32[slots]       open addressing (linear probing) on fnv1a(bytes); -1 = empty
 *   kinds    u8[tokens]       1 = the vocabulary lists the token as a string, 2 = as raw bytes, 0 = unused rank
 *   pool     u8[pool bytes]
 * `buildO200kTable` makes it from gpt-tokenizer's rank list (scripts/build-o200k-table.ts writes
 * assets/o200k_base.bin; test/core/tokens/o200k.test.ts checks the shipped file is what it builds).
 */

export const TABLE_MAGIC = 0x31544b53; // "SKT1"
export const TABLE_VERSION = 1;
export const KIND_STRING = 1;
export const KIND_BYTES = 2;

export interface O200kTable {
  offsets: Uint32Array;
  slots: Int32Array;
  kinds: Uint8Array;
  pool: Uint8Array;
  mask: number;
}

/** FNV-1a over bytes[start, end). */
export function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** The rank of the token whose bytes are bytes[start, end), or -1. */
export function findToken(t: O200kTable, bytes: Uint8Array, start: number, end: number): number {
  const { offsets, slots, pool, mask } = t;
  const len = end - start;
  let i = fnv1a(bytes, start, end) & mask;
  for (;;) {
    const r = slots[i];
    if (r < 0) return -1;
    const o = offsets[r];
    if (offsets[r + 1] - o === len) {
      let k = 0;
      while (k < len && pool[o + k] === bytes[start + k]) k++;
      if (k === len) return r;
    }
    i = (i + 1) & mask;
  }
}

/** Build the file from a rank list: a string (UTF-8 text) or a byte array per rank, holes allowed. */
export function buildO200kTable(ranks: readonly (string | readonly number[] | undefined)[]): Uint8Array {
  const enc = new TextEncoder();
  const n = ranks.length;
  const tokenBytes: (Uint8Array | null)[] = new Array(n);
  const kinds = new Uint8Array(n);
  let poolBytes = 0;
  for (let r = 0; r < n; r++) {
    const v = ranks[r];
    if (v === undefined || v === null) {
      tokenBytes[r] = null;
      continue;
    }
    const b = typeof v === 'string' ? enc.encode(v) : Uint8Array.from(v);
    tokenBytes[r] = b;
    kinds[r] = typeof v === 'string' ? KIND_STRING : KIND_BYTES;
    poolBytes += b.length;
  }
  let slotCount = 1;
  while (slotCount < n * 2) slotCount *= 2;
  const align4 = (x: number) => (x + 3) & ~3;
  const headerBytes = 32;
  const offsetsAt = headerBytes;
  const slotsAt = offsetsAt + 4 * (n + 1);
  const kindsAt = slotsAt + 4 * slotCount;
  const poolAt = align4(kindsAt + n);
  const out = new Uint8Array(align4(poolAt + poolBytes));
  const dv = new DataView(out.buffer);
  [TABLE_MAGIC, TABLE_VERSION, n, slotCount, poolBytes, 0, 0, 0].forEach((v, i) => dv.setUint32(4 * i, v, true));
  const pool = out.subarray(poolAt, poolAt + poolBytes);
  const offsets = new Uint32Array(n + 1);
  let o = 0;
  for (let r = 0; r < n; r++) {
    offsets[r] = o;
    const b = tokenBytes[r];
    if (b) {
      pool.set(b, o);
      o += b.length;
    }
  }
  offsets[n] = o;
  const slots = new Int32Array(slotCount).fill(-1);
  const table: O200kTable = { offsets, slots, kinds, pool, mask: slotCount - 1 };
  for (let r = 0; r < n; r++) {
    const b = tokenBytes[r];
    if (!b) continue;
    if (findToken(table, b, 0, b.length) >= 0) throw new Error(`o200k table: rank ${r} repeats the bytes of an earlier token`);
    let i = fnv1a(b, 0, b.length) & table.mask;
    while (slots[i] >= 0) i = (i + 1) & table.mask;
    slots[i] = r;
  }
  for (let r = 0; r <= n; r++) dv.setUint32(offsetsAt + 4 * r, offsets[r], true);
  for (let i = 0; i < slotCount; i++) dv.setInt32(slotsAt + 4 * i, slots[i], true);
  out.set(kinds, kindsAt);
  return out;
}

/** Views on a table file's bytes (no copy when the buffer is 4-byte aligned); null when it is not one. */
export function readO200kTable(file: Uint8Array): O200kTable | null {
  if (file.byteLength < 32) return null;
  const bytes = file.byteOffset % 4 === 0 ? file : file.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [magic, version, n, slotCount, poolBytes] = [0, 1, 2, 3, 4].map((i) => dv.getUint32(4 * i, true));
  if (magic !== TABLE_MAGIC || version !== TABLE_VERSION || slotCount === 0 || (slotCount & (slotCount - 1)) !== 0) return null;
  const offsetsAt = 32;
  const slotsAt = offsetsAt + 4 * (n + 1);
  const kindsAt = slotsAt + 4 * slotCount;
  const poolAt = (kindsAt + n + 3) & ~3;
  if (poolAt + poolBytes > bytes.byteLength) return null;
  // typed-array views are in platform byte order; the file is little-endian
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
  const offsets = new Uint32Array(bytes.buffer, bytes.byteOffset + offsetsAt, n + 1);
  if (offsets[n] !== poolBytes) return null;
  return {
    offsets,
    slots: new Int32Array(bytes.buffer, bytes.byteOffset + slotsAt, slotCount),
    kinds: new Uint8Array(bytes.buffer, bytes.byteOffset + kindsAt, n),
    pool: new Uint8Array(bytes.buffer, bytes.byteOffset + poolAt, poolBytes),
    mask: slotCount - 1,
  };
}
