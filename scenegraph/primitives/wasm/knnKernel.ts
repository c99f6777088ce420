// AssemblyScript (compiled to WebAssembly by `npm run build`, not by tsc): the inner loop of the
// all-points k-nearest-neighbour distances behind statistical outlier removal.
//
// Why WebAssembly: in V8's JavaScript this loop spends most of its time re-checking typed arrays and
// mispredicting branches; here the memory is one flat buffer and comparisons become flag moves. On the
// 1 M-point bench cloud the kernel runs in about half the time of the same algorithm in JavaScript.
//
// Input, laid out by knnKernelHost.ts in the imported memory:
//   X, Y, Z   f32[n]        coordinates (the input floats), sorted so that each cell's points are contiguous
//   START     i32[cells+1]  cell c holds sorted points START[c] .. START[c+1]-1
//   COORDS    i32[3*cells]  ix, iy, iz of each cell
//   ROWS      i32[18*cells] for each cell, the 9 rows (dy, dz in -1..1) of its 3x3x3 block as sorted
//                           point ranges [begin, end): cells x-1, x, x+1 of a row are adjacent in raster
//                           order, so each row is one range
//   OUT       f64[n]        per sorted point: the mean k-NN distance, or -1 when the block cannot settle it
// Scratch (per query): two lane buffers of candidate distances, the sorted list, bucket ids and counts.
//
// Per query point p: collect the squared distances to the block's points that are <= T, where T is
// the previous point's k-th distance times `growth` (neighbouring points have similar k-NN radii),
// capped at the squared distance to the block's nearest outside face. Fewer than k found: double T and
// collect again, up to the cap; still fewer means a point outside the block may be nearer (OUT = -1,
// the host finishes it). Then a counting sort of the found values on [0, T] (near-uniform there: most
// clouds are surfaces) and an insertion sort of the prefix that holds the k smallest put them in
// ascending order, and the k square roots are summed nearest first, as Open3D does. Every squared
// distance is ((dx*dx) + dy*dy) + dz*dz in double, nanoflann's expression, so sums match Open3D's bit for bit.

let X: usize = 0;
let Y: usize = 0;
let Z: usize = 0;
let OUT: usize = 0;
let START: usize = 0;
let COORDS: usize = 0;
let ROWS: usize = 0;
let LANE0: usize = 0;
let LANE1: usize = 0;
let SORTED: usize = 0;
let BUCKET: usize = 0;
let COUNT: usize = 0;
let K: i32 = 1;
let GROWTH: f64 = 1.5;
let ORIGIN_X: f64 = 0;
let ORIGIN_Y: f64 = 0;
let ORIGIN_Z: f64 = 0;
let CELL: f64 = 1;
let NX: i32 = 1;
let NY: i32 = 1;
let NZ: i32 = 1;
/** k-th squared distance of the last settled point: the next point's first guess. */
let lastR2: f64 = 1;

/** Buckets per collected value in the counting sort (2: few collisions, so few insertion-sort moves). */
const BUCKETS_PER_VALUE: i32 = 2;
/** Relative guard on the "nothing outside the block is nearer" test (rounding in cell assignment). */
const SAFE: f64 = 1 - 1e-9;

export function setup(
  x: usize, y: usize, z: usize, out: usize, start: usize, coords: usize, rows: usize,
  lane0: usize, lane1: usize, sorted: usize, bucket: usize, count: usize,
  k: i32, growth: f64, originX: f64, originY: f64, originZ: f64, cell: f64, nx: i32, ny: i32, nz: i32,
): void {
  X = x; Y = y; Z = z; OUT = out; START = start; COORDS = coords; ROWS = rows;
  LANE0 = lane0; LANE1 = lane1; SORTED = sorted; BUCKET = bucket; COUNT = count;
  K = k; GROWTH = growth; ORIGIN_X = originX; ORIGIN_Y = originY; ORIGIN_Z = originZ; CELL = cell;
  NX = nx; NY = ny; NZ = nz;
  lastR2 = cell * cell;
}

@inline function f64At(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}

@inline function f32At(base: usize, i: i32): f64 {
  return <f64>load<f32>(base + (<usize>i << 2)); // exact: every float is a double
}

@inline function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

/** Processes cells c0 .. c1-1; returns how many of their points the 27 cells could not settle. */
export function run(c0: i32, c1: i32): i32 {
  // globals copied to locals: V8 reloads a mutable global from the instance at every use
  const x = X, y = Y, z = Z, out = OUT, start = START, coords = COORDS, lane0 = LANE0, lane1 = LANE1;
  const sorted = SORTED, bucket = BUCKET, count = COUNT, k = K, growth = GROWTH, cell = CELL;
  const originX = ORIGIN_X, originY = ORIGIN_Y, originZ = ORIGIN_Z, nx = NX, ny = NY, nz = NZ;
  let last = lastR2;
  let unsettled = 0;
  for (let c = c0; c < c1; c++) {
    const cx = i32At(coords, 3 * c), cy = i32At(coords, 3 * c + 1), cz = i32At(coords, 3 * c + 2);
    // faces of the 3x3x3 block (a side at the grid's edge has nothing beyond it)
    const lowX = cx <= 1 ? -Infinity : originX + <f64>(cx - 1) * cell, highX = cx >= nx - 2 ? Infinity : originX + <f64>(cx + 2) * cell;
    const lowY = cy <= 1 ? -Infinity : originY + <f64>(cy - 1) * cell, highY = cy >= ny - 2 ? Infinity : originY + <f64>(cy + 2) * cell;
    const lowZ = cz <= 1 ? -Infinity : originZ + <f64>(cz - 1) * cell, highZ = cz >= nz - 2 ? Infinity : originZ + <f64>(cz + 2) * cell;
    const rows = ROWS + <usize>c * 72;
    const first = i32At(start, c);
    for (let p = first, pe = i32At(start, c + 1); p < pe; p++) {
      const px = f32At(x, p), py = f32At(y, p), pz = f32At(z, p);
      // a copy of the previous point has the same distances to everything: same result (the host
      // groups the copies in crowded cells, where recomputing each would be quadratic)
      if (p > first && px == f32At(x, p - 1) && py == f32At(y, p - 1) && pz == f32At(z, p - 1)) {
        const previous = f64At(out, p - 1);
        store<f64>(out + (<usize>p << 3), previous);
        if (previous < 0) unsettled++;
        continue;
      }
      const gap = min(min(min(px - lowX, highX - px), min(py - lowY, highY - py)), min(pz - lowZ, highZ - pz));
      const cap = gap * gap * SAFE;
      let limit = min(last * growth, cap);
      let found = collect(x, y, z, lane0, lane1, rows, px, py, pz, limit);
      while (found < k && limit < cap) {
        limit = limit > 0 ? min(limit * 2, cap) : min(cell * cell * 1e-6, cap);
        found = collect(x, y, z, lane0, lane1, rows, px, py, pz, limit);
      }
      if (found < k) {
        store<f64>(out + (<usize>p << 3), -1);
        unsettled++;
        continue;
      }
      sortSmallest(lane0, sorted, bucket, count, k, found, limit);
      last = f64At(sorted, k - 1);
      let sum: f64 = 0;
      for (let i = 0; i < k; i++) sum += sqrt(f64At(sorted, i));
      store<f64>(out + (<usize>p << 3), sum / <f64>k);
    }
  }
  lastR2 = last;
  return unsettled;
}

/**
 * Squared distances from (px, py, pz) to the block's points that are <= limit, into lane0; returns
 * their number. Two candidates per step: their distances in one SIMD pair of doubles (lane-wise the
 * same IEEE operations as the scalar expression, so the same bits), and a counter each, so the two
 * appends do not wait on each other; lane 1's values are appended to lane 0's at the end.
 */
@inline function collect(x: usize, y: usize, z: usize, lane0: usize, lane1: usize, rows: usize, px: f64, py: f64, pz: f64, limit: f64): i32 {
  let n0 = 0, n1 = 0;
  const vx = f64x2.splat(px), vy = f64x2.splat(py), vz = f64x2.splat(pz);
  for (let r = 0; r < 9; r++) {
    const end = load<i32>(rows + (<usize>r << 3) + 4);
    let q = load<i32>(rows + (<usize>r << 3));
    for (; q + 1 < end; q += 2) {
      const o = <usize>q << 2;
      const dx = f64x2.sub(vx, f64x2.promote_low_f32x4(v128.load64_zero(x + o)));
      const dy = f64x2.sub(vy, f64x2.promote_low_f32x4(v128.load64_zero(y + o)));
      const dz = f64x2.sub(vz, f64x2.promote_low_f32x4(v128.load64_zero(z + o)));
      const d = f64x2.add(f64x2.add(f64x2.mul(dx, dx), f64x2.mul(dy, dy)), f64x2.mul(dz, dz));
      const a = f64x2.extract_lane(d, 0), b = f64x2.extract_lane(d, 1);
      store<f64>(lane0 + (<usize>n0 << 3), a);
      n0 += <i32>(a <= limit);
      store<f64>(lane1 + (<usize>n1 << 3), b);
      n1 += <i32>(b <= limit);
    }
    if (q < end) {
      const ax = px - f32At(x, q), ay = py - f32At(y, q), az = pz - f32At(z, q);
      const a = ax * ax + ay * ay + az * az;
      store<f64>(lane0 + (<usize>n0 << 3), a);
      n0 += <i32>(a <= limit);
    }
  }
  for (let i = 0; i < n1; i++) store<f64>(lane0 + (<usize>(n0 + i) << 3), f64At(lane1, i));
  return n0 + n1;
}

/** Puts the k smallest of lane0[0 .. found-1] (all in [0, limit]) in ascending order at sorted[0 .. k-1]. */
@inline function sortSmallest(lane0: usize, sorted: usize, bucket: usize, count: usize, k: i32, found: i32, limit: f64): void {
  const buckets = found * BUCKETS_PER_VALUE;
  // limit is 0 (all duplicates) or infinite (a cloud smaller than the block): one bucket, plain insertion sort
  const scale: f64 = limit > 0 && limit < Infinity ? <f64>buckets / limit : 0;
  for (let b = 0; b <= buckets + 1; b++) store<i32>(count + (<usize>b << 2), 0); // a loop: memory.fill is a call in V8
  for (let i = 0; i < found; i++) {
    // bucket = the value scaled to [0, buckets], rounded to nearest (monotone, which is all the sort
    // needs) by adding 2^52, which leaves the integer in the low mantissa bits: far cheaper than a
    // float-to-int conversion, which WebAssembly makes check for NaN and overflow
    const b = <i32>reinterpret<i64>(f64At(lane0, i) * scale + 4503599627370496.0);
    store<i32>(bucket + (<usize>i << 2), b);
    const at = count + (<usize>(b + 1) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  let running = 0;
  for (let b = 0; b <= buckets + 1; b++) {
    const at = count + (<usize>b << 2);
    running += load<i32>(at);
    store<i32>(at, running); // count[b] = first slot of bucket b
  }
  for (let i = 0; i < found; i++) {
    const at = count + (<usize>i32At(bucket, i) << 2);
    const slot = load<i32>(at);
    store<i32>(at, slot + 1);
    store<f64>(sorted + (<usize>slot << 3), f64At(lane0, i));
  }
  // count[b] is now the end of bucket b: sort up to the end of the bucket holding the k-th value
  let b = 0;
  while (i32At(count, b) < k) b++;
  const end = i32At(count, b);
  for (let i = 1; i < end; i++) {
    const v = f64At(sorted, i);
    let t = i;
    while (t > 0) {
      const u = f64At(sorted, t - 1);
      if (!(u > v)) break;
      store<f64>(sorted + (<usize>t << 3), u);
      t--;
    }
    store<f64>(sorted + (<usize>t << 3), v);
  }
}
