/**
 * The hot loop of scoring, the hidden layer's pre-activations, as a small WebAssembly function
 * with two-lane float64 SIMD: per line, gather the non-zero varying features, then for every pair
 * of hidden units sum bias + weight x feature over them in feature order. Each lane does the same
 * IEEE double multiply and add, in the same order, as the JavaScript loop in lamr.ts, so the sums
 * are bit for bit the same; tanh stays in JavaScript (Math.exp). WebAssembly runs compiled from
 * its first call, which matters in a one-shot `skim` process where JavaScript starts interpreted.
 * The module is assembled here (no build step); `hiddenKernel()` is null when this runtime cannot
 * compile it, and lamr.ts then uses its JavaScript loop.
 */
import { coreSettings } from '../settings.js';

// --- a minimal assembler for the one function below ---
const I32 = 0x7f;
const F64 = 0x7c;
const V128 = 0x7b;
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  i32Load: 0x28,
  f64Load: 0x2b,
  i32Store: 0x36,
  f64Store: 0x39,
  i32Const: 0x41,
  f64Const: 0x44,
  i32GeU: 0x4f,
  f64Ne: 0x62,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Shl: 0x74,
  f64Add: 0xa0,
  f64Mul: 0xa2,
};
const SIMD = 0xfd;
const simd = { v128Load: 0x00, v128Store: 0x0b, f64x2Splat: 0x14, f64x2Add: 0xf0, f64x2Mul: 0xf2 };

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

// parameters (i32): X, n, F, vary, nv, WT, H, bias, out, rowAt, val; then the locals
const P = { X: 0, n: 1, F: 2, vary: 3, nv: 4, WT: 5, H: 6, bias: 7, out: 8, rowAt: 9, val: 10 };
const L = { i: 11, k: 12, m: 13, xo: 14, ho: 15, jb: 16, f: 17, h2b: 18, xv: 19, s: 20, acc: 21 };

// --- instruction helpers ---
const get = (x: number) => [op.localGet, ...uleb(x)];
const set = (x: number) => [op.localSet, ...uleb(x)];
const i32 = (v: number) => [op.i32Const, ...sleb(v)];
const mem = (align: number) => [...uleb(align), 0];
const inc = (x: number, by = 1) => [...get(x), ...i32(by), op.i32Add, ...set(x)];
/** for (x = 0; x < limit; x += step) { inner } */
const forUp = (x: number, limit: number[], inner: number[], step = 1) => [
  ...i32(0),
  ...set(x),
  op.block,
  op.void,
  op.loop,
  op.void,
  ...get(x),
  ...limit,
  op.i32GeU,
  op.brIf,
  1,
  ...inner,
  ...inc(x, step),
  op.br,
  0,
  op.end,
  op.end,
];
/** address of row `index` of a row-major f64 matrix `width` wide at `base` */
const rowAddress = (base: number, index: number, width: number) => [...get(base), ...get(index), ...get(width), op.i32Mul, ...i32(3), op.i32Shl, op.i32Add];
/** address of the f64 base[index] */
const f64At = (base: number, index: number) => [...get(base), ...get(index), ...i32(3), op.i32Shl, op.i32Add];
/** Per line: m = the number of its non-zero varying features; rowAt[k], val[k] = the k-th one's weight row offset and value. */
const gather = () => [
  ...i32(0),
  ...set(L.m),
  ...forUp(L.k, get(P.nv), [
    // f = vary[k]; xv = X[i][f]
    ...get(P.vary),
    ...get(L.k),
    ...i32(2),
    op.i32Shl,
    op.i32Add,
    op.i32Load,
    ...mem(2),
    ...set(L.f),
    ...f64At(L.xo, L.f),
    op.f64Load,
    ...mem(3),
    ...set(L.xv),
    ...get(L.xv),
    op.f64Const,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    op.f64Ne,
    op.if,
    op.void,
    // rowAt[m] = f * H * 8; val[m] = xv; m++
    ...get(P.rowAt),
    ...get(L.m),
    ...i32(2),
    op.i32Shl,
    op.i32Add,
    ...get(L.f),
    ...get(P.H),
    op.i32Mul,
    ...i32(3),
    op.i32Shl,
    op.i32Store,
    ...mem(2),
    ...f64At(P.val, L.m),
    ...get(L.xv),
    op.f64Store,
    ...mem(3),
    ...inc(L.m),
    op.end,
  ]),
];
/** address of WT[rowAt[k]] + jb */
const weightAt = () => [...get(P.WT), ...get(P.rowAt), ...get(L.k), ...i32(2), op.i32Shl, op.i32Add, op.i32Load, ...mem(2), op.i32Add, ...get(L.jb), op.i32Add];
const valK = () => [...f64At(P.val, L.k), op.f64Load, ...mem(3)];
/** Per line: every pair of hidden units, out[i][j..j+1] = bias + sum of weight x value, two lanes at once. */
const pairs = () =>
  forUp(
    L.jb,
    get(L.h2b),
    [
      ...get(P.bias),
      ...get(L.jb),
      op.i32Add,
      SIMD,
      ...uleb(simd.v128Load),
      ...mem(3),
      ...set(L.acc),
      ...forUp(L.k, get(L.m), [
        ...get(L.acc),
        ...weightAt(),
        SIMD,
        ...uleb(simd.v128Load),
        ...mem(3),
        ...valK(),
        SIMD,
        ...uleb(simd.f64x2Splat),
        SIMD,
        ...uleb(simd.f64x2Mul),
        SIMD,
        ...uleb(simd.f64x2Add),
        ...set(L.acc),
      ]),
      ...get(L.ho),
      ...get(L.jb),
      op.i32Add,
      ...get(L.acc),
      SIMD,
      ...uleb(simd.v128Store),
      ...mem(3),
    ],
    16,
  );
/** Per line: an odd last unit, one lane. */
const oddUnit = () => [
  ...get(P.H),
  ...i32(1),
  op.i32And,
  op.if,
  op.void,
  ...get(P.bias),
  ...get(L.jb),
  op.i32Add,
  op.f64Load,
  ...mem(3),
  ...set(L.s),
  ...forUp(L.k, get(L.m), [...get(L.s), ...weightAt(), op.f64Load, ...mem(3), ...valK(), op.f64Mul, op.f64Add, ...set(L.s)]),
  ...get(L.ho),
  ...get(L.jb),
  op.i32Add,
  ...get(L.s),
  op.f64Store,
  ...mem(3),
  op.end,
];

/** The function's body: its locals, then for each line i the gather, the pairs of hidden units and an odd last one. */
function body(): number[] {
  const code = [
    // h2b = (H & ~1) * 8
    ...get(P.H),
    ...i32(-2),
    op.i32And,
    ...i32(3),
    op.i32Shl,
    ...set(L.h2b),
    ...forUp(L.i, get(P.n), [...rowAddress(P.X, L.i, P.F), ...set(L.xo), ...gather(), ...rowAddress(P.out, L.i, P.H), ...set(L.ho), ...pairs(), ...oddUnit()]),
    op.end,
  ];
  const locals = [3, ...uleb(8), I32, ...uleb(2), F64, ...uleb(1), V128];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const params = Object.keys(P).length;
  const type = [1, 0x60, ...uleb(params), ...Array(params).fill(I32), 0];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, type),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]), // one memory, at least one page
    ...section(7, [2, ...str('memory'), 2, 0, ...str('hidden'), 0, 0]),
    ...section(10, [1, ...body()]),
  ];
  return new Uint8Array(bytes);
}

export interface HiddenKernel {
  /**
   * Pre-activations (n x H, row-major) of the lines of X (n x F): bias[j] + sum over the
   * non-zero X[i][f], f in `varying` (ascending), of WT[f * H + j] * X[i][f].
   */
  preActivations(
    X: Float64Array | Float32Array,
    n: number,
    F: number,
    varying: Int32Array,
    WT: Float64Array,
    H: number,
    bias: Float64Array,
  ): Float64Array | null;
}

/** Inputs needing more memory than this stay in JavaScript (the module's memory never shrinks). */
const MAX_BYTES = 256 * 1024 * 1024;

let kernel: HiddenKernel | null | undefined;

/** The compiled kernel, or null when WebAssembly SIMD is not there or the core's settings turn it off (wasmKernel). */
export function hiddenKernel(): HiddenKernel | null {
  if (!coreSettings().wasmKernel) return null;
  if (kernel !== undefined) return kernel;
  kernel = null;
  if (typeof WebAssembly !== 'object') return kernel;
  try {
    const bytes = moduleBytes();
    if (!WebAssembly.validate(bytes)) return kernel;
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
    const memory = instance.exports.memory as WebAssembly.Memory;
    const run = instance.exports.hidden as (...args: number[]) => void;
    kernel = {
      preActivations(X, n, F, varying, WT, H, bias) {
        const align = (x: number) => (x + 15) & ~15;
        const nv = varying.length;
        const at = { X: 0, vary: 0, WT: 0, bias: 0, out: 0, rowAt: 0, val: 0, end: 0 };
        at.vary = align(n * F * 8);
        at.WT = align(at.vary + nv * 4);
        at.bias = align(at.WT + F * H * 8);
        at.out = align(at.bias + H * 8);
        at.rowAt = align(at.out + n * H * 8);
        at.val = align(at.rowAt + nv * 4);
        at.end = align(at.val + nv * 8);
        if (at.end > MAX_BYTES) return null;
        if (at.end > memory.buffer.byteLength) memory.grow(Math.ceil((at.end - memory.buffer.byteLength) / 65536));
        const buf = memory.buffer;
        new Float64Array(buf, at.X, n * F).set(X);
        new Int32Array(buf, at.vary, nv).set(varying);
        new Float64Array(buf, at.WT, F * H).set(WT);
        new Float64Array(buf, at.bias, H).set(bias);
        run(at.X, n, F, at.vary, nv, at.WT, H, at.bias, at.out, at.rowAt, at.val);
        // a view: read it before the next call (a grown memory detaches it)
        return new Float64Array(memory.buffer, at.out, n * H);
      },
    };
  } catch {
    kernel = null;
  }
  return kernel;
}
