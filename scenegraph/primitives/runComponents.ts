/**
 * The 8-connected components of equal key in a label image, found by runs: each row is cut into maximal runs
 * of one key, a run joins the runs of the row above that touch it (8-connected: columns overlapping after
 * widening by one) and hold the same key, and a union-find over runs merges them. A flood fill visits eight
 * neighbours of every foreground pixel; this touches each pixel once (its key) and each run a few times, and a
 * 518×392 view has a few thousand runs against tens of thousands of foreground pixels.
 *
 * Components are numbered in raster order of their first pixel, as a flood fill started at each unvisited
 * pixel in raster order numbers them: a union always keeps the lower run index as the root, so a component's
 * root is its first run.
 */
/** Runs a labelling has room for at first (a 518×392 view of the suite has about 1-6 thousand); it doubles as needed. */
const INITIAL_RUNS = 8192;

export class RunComponents {
  /** Components found by the last `label`. */
  count = 0;
  /** Per component: its pixel count, inclusive pixel box and first pixel (raster index). */
  area: Int32Array = new Int32Array(0);
  x0: Int32Array = new Int32Array(0);
  y0: Int32Array = new Int32Array(0);
  x1: Int32Array = new Int32Array(0);
  y1: Int32Array = new Int32Array(0);
  firstPixel: Int32Array = new Int32Array(0);
  private runs = 0;
  // per run (raster order): first column, column after the last, row, key, union-find parent (always a lower
  // index, so a run's component is known once its parent's is), component
  private start: Int32Array = new Int32Array(0);
  private end: Int32Array = new Int32Array(0);
  private row: Int32Array = new Int32Array(0);
  private key: Int32Array = new Int32Array(0);
  private parent: Int32Array = new Int32Array(0);
  private comp: Int32Array = new Int32Array(0);

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.grow(INITIAL_RUNS);
  }

  /**
   * Room for `runs` runs (and as many components), keeping the runs so far. Sized by runs, not pixels: a view
   * has a few thousand, and twelve arrays of a view's size each cost every builder their pages.
   */
  private grow(runs: number): void {
    const copy = (a: Int32Array) => {
      const b = new Int32Array(runs);
      b.set(a.subarray(0, Math.min(a.length, this.runs)));
      return b;
    };
    [this.start, this.end, this.row, this.key, this.parent, this.comp] = [this.start, this.end, this.row, this.key, this.parent, this.comp].map(copy) as [
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
    [this.area, this.x0, this.y0, this.x1, this.y1, this.firstPixel] = Array.from({ length: 6 }, () => new Int32Array(runs)) as [
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
  }

  /** Finds the components of `keyOfId[ids[p]]` (negative: background, in no component). */
  label(ids: ArrayLike<number>, keyOfId: Int32Array): void {
    const { width: W, height: H } = this;
    let n = 0,
      above = 0;
    for (let y = 0; y < H; y++) {
      const base = y * W,
        first = n;
      // a row has at most W runs
      if (n + W > this.start.length) {
        this.runs = n;
        this.grow(Math.max(2 * this.start.length, n + W));
      }
      const { start, end, row, key, parent } = this;
      let x = 0;
      while (x < W) {
        const k = keyOfId[ids[base + x]!]!;
        if (k < 0) {
          x++;
          continue;
        }
        start[n] = x;
        x++;
        while (x < W && keyOfId[ids[base + x]!] === k) x++;
        end[n] = x;
        row[n] = y;
        key[n] = k;
        parent[n] = n;
        n++;
      }
      // runs of the row above, in column order, that reach column start-1..end of a run of this row
      let j = above;
      for (let r = first; r < n; r++) {
        const s = start[r]!,
          e = end[r]!,
          k = key[r]!;
        while (j < first && end[j]! < s) j++;
        for (let q = j; q < first && start[q]! <= e; q++) if (key[q] === k) this.union(q, r);
      }
      above = first;
    }
    this.runs = n;
    this.number();
  }

  /** Writes `valueOf[component]` into `map` at each pixel of a component whose value is not negative. */
  paint(map: Int32Array, valueOf: Int32Array): void {
    const { width: W, start, end, row, comp } = this;
    for (let r = 0; r < this.runs; r++) {
      const v = valueOf[comp[r]!]!;
      if (v < 0) continue;
      const base = row[r]! * W;
      for (let p = base + start[r]!, e = base + end[r]!; p < e; p++) map[p] = v;
    }
  }

  private find(a: number): number {
    const parent = this.parent;
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]!]!;
      a = parent[a]!;
    }
    return a;
  }

  private union(a: number, b: number): void {
    const ra = this.find(a),
      rb = this.find(b);
    if (ra < rb) this.parent[rb] = ra;
    else if (rb < ra) this.parent[ra] = rb;
  }

  /** Numbers the components in order of their roots and sums each one's area and box. */
  private number(): void {
    const { width: W, start, end, row, parent, comp, area, x0, y0, x1, y1, firstPixel } = this;
    let c = 0;
    for (let r = 0; r < this.runs; r++) {
      const s = start[r]!,
        e = end[r]! - 1,
        y = row[r]!;
      if (parent[r] === r) {
        comp[r] = c;
        area[c] = e - s + 1;
        x0[c] = s;
        x1[c] = e;
        y0[c] = y;
        y1[c] = y;
        firstPixel[c] = y * W + s;
        c++;
        continue;
      }
      // the parent is a lower run of the same component, numbered already
      const k = (comp[r] = comp[parent[r]!]!);
      area[k]! += e - s + 1;
      if (s < x0[k]!) x0[k] = s;
      if (e > x1[k]!) x1[k] = e;
      if (y > y1[k]!) y1[k] = y;
    }
    this.count = c;
  }
}
