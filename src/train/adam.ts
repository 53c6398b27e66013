/** Adam over a flat parameter vector, with decoupled L2 on a prefix (the MLP weights). */
export class Adam {
  private m: Float64Array;
  private v: Float64Array;
  private t = 0;
  constructor(
    size: number,
    public lr = 0.003,
    readonly beta1 = 0.9,
    readonly beta2 = 0.999,
    readonly eps = 1e-8,
  ) {
    this.m = new Float64Array(size);
    this.v = new Float64Array(size);
  }

  step(p: Float64Array, g: Float64Array, decay = 0, decayEnd = 0): void {
    this.t++;
    const b1 = this.beta1;
    const b2 = this.beta2;
    const c1 = 1 - Math.pow(b1, this.t);
    const c2 = 1 - Math.pow(b2, this.t);
    for (let k = 0; k < p.length; k++) {
      const gk = g[k];
      this.m[k] = b1 * this.m[k] + (1 - b1) * gk;
      this.v[k] = b2 * this.v[k] + (1 - b2) * gk * gk;
      p[k] -= (this.lr * (this.m[k] / c1)) / (Math.sqrt(this.v[k] / c2) + this.eps);
      if (k < decayEnd) p[k] -= this.lr * decay * p[k];
    }
  }
}
