/**
 * Seeded pseudo-random numbers. Every random choice in esi3d comes from an Rng passed in explicitly,
 * so the same seed gives byte-identical tasks, bundles, clouds and reports.
 *
 * Generator: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator, 128-bit state), seeded from a
 * string by the cyrb128 hash. Both are tiny, fast and well-distributed; neither is cryptographic.
 */

function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  readonly seed: string;

  constructor(seed: string | number) {
    this.seed = String(seed);
    [this.a, this.b, this.c, this.d] = cyrb128(this.seed);
    for (let i = 0; i < 12; i++) this.nextUint32(); // warm up away from the hash output
  }

  /** An independent stream for a named sub-task: the same (seed, label) always gives the same stream. */
  fork(label: string | number): Rng {
    return new Rng(`${this.seed}/${label}`);
  }

  nextUint32(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /**
   * The next `count` values of nextUint32 into out[0..count): the same stream, with the state in locals
   * (a loop of nextUint32 calls loads and stores the four fields per draw: ~6x slower for noise fields).
   */
  fillUint32(out: Uint32Array, count = out.length): void {
    // the loop runs in a function of its own, on a typed-array copy of the state: when the loop was here, V8
    // compiled it on the stack before the field stores after it had ever run, and discarded that code at
    // those stores on every later call (23 times in a 4-unit run; docs/design.md: hot loops and the JIT)
    const st = FILL_STATE;
    st[0] = this.a;
    st[1] = this.b;
    st[2] = this.c;
    st[3] = this.d;
    sfc32Words(st, out, count);
    this.a = st[0]!;
    this.b = st[1]!;
    this.c = st[2]!;
    this.d = st[3]!;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  bool(pTrue = 0.5): boolean {
    return this.next() < pTrue;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by non-negative weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Fisher-Yates shuffle into a new array (a pair stays a pair, so its two places destructure unchecked). */
  shuffle<T>(items: readonly [T, T]): [T, T];
  shuffle<T>(items: readonly T[]): T[];
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** k distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, k);
  }

  /** Standard normal (Box-Muller; one value per call, deterministic). */
  normal(mean = 0, std = 1): number {
    let u = this.next();
    while (u <= 1e-300) u = this.next();
    const v = this.next();
    return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** Rng.fillUint32's state on its way to and from sfc32Words (one per thread; the calls never nest). */
const FILL_STATE = new Uint32Array(4);

/** `count` sfc32 outputs into out[0..count) from the state in `st` (a, b, c, d), which is left advanced. */
function sfc32Words(st: Uint32Array, out: Uint32Array, count: number): void {
  let a = st[0]!,
    b = st[1]!,
    c = st[2]!,
    d = st[3]!;
  for (let k = 0; k < count; k++) {
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    out[k] = t >>> 0;
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
  }
  st[0] = a;
  st[1] = b;
  st[2] = c;
  st[3] = d;
}
