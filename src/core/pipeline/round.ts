/** Rounding of the scores a result reports. */

/** Four decimals: document scores and gate shares. */
export function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Three significant digits: line scores near a calibrated τ of 0.0025 must stay comparable to it. */
export function roundSignificant(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(3));
}
