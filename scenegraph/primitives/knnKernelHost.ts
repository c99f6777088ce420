/**
 * Host side of the WebAssembly k-NN kernel (wasm/knnKernel.ts, compiled by `npm run build`): lays a
 * cell-sorted cloud out in the kernel's memory and runs it.
 *
 * The memory (about 28 bytes per point and 88 per occupied cell, plus 16 per point for sorting the
 * points by cell, which then hold the results) is kept for KNN_MEMORY_KEEP_MS after a call and reused by the next one, then
 * dropped. Why: fresh memory is zero pages that fault in on first touch, and on this project's
 * machines that costs about 3 ms per MiB (measured: 97 ms to first-write 32 MiB, 4 ms to write it
 * again), about half as much again as the kernel's own work for a million points. Back-to-back calls
 * (an ablation, the benchmark's repeated runs) skip it, the way a C++ peer's malloc reuses its heap.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { SortScratch } from "./radixSort.js";

const KERNEL_URL = new URL("./wasm/knnKernel.wasm", import.meta.url);
const PAGE = 65536;
/** WebAssembly (32-bit) memories stop at 65536 pages (4 GiB). */
const MAX_PAGES = 65536;
/** How long the kernel memory outlives its last use. */
export const KNN_MEMORY_KEEP_MS = 10_000;
/**
 * Cells per kernel call. V8 first runs WebAssembly as baseline code and switches to optimised code
 * at a later call, so one call over the whole cloud would run entirely unoptimised.
 */
export const KNN_KERNEL_CALLS = 64;

interface KernelExports {
  setup(
    x: number, y: number, z: number, out: number, start: number, coords: number, rows: number,
    lane0: number, lane1: number, sorted: number, bucket: number, count: number,
    k: number, growth: number, originX: number, originY: number, originZ: number, cell: number, nx: number, ny: number, nz: number,
  ): void;
  run(c0: number, c1: number): number;
}

let compiled: WebAssembly.Module | null = null;

function kernelModule(): WebAssembly.Module {
  if (compiled === null) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(KERNEL_URL);
    } catch {
      throw new Error(`the k-NN kernel ${fileURLToPath(KERNEL_URL)} is missing: run \`npm run build\``);
    }
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

interface Arena {
  memory: WebAssembly.Memory;
  kernel: KernelExports;
}

let kept: Arena | null = null;
let keptSort: SortScratch | null = null;
let dropTimer: ReturnType<typeof setTimeout> | null = null;

/** (Re)starts the countdown after which the kept memory is dropped. */
function keepForNow(): void {
  if (dropTimer !== null) clearTimeout(dropTimer);
  dropTimer = setTimeout(releaseKnnMemory, KNN_MEMORY_KEEP_MS);
  dropTimer.unref(); // never keeps the process alive
}

/** A kernel instance whose memory holds at least `bytes` (reusing the kept one when it is big enough). */
function arenaOf(bytes: number): Arena {
  const pages = Math.ceil(bytes / PAGE);
  if (pages > MAX_PAGES) throw new RangeError(`k-NN: the cloud needs ${Math.ceil(bytes / 2 ** 20)} MiB of kernel memory, over WebAssembly's 4 GiB; split it`);
  if (kept === null || kept.memory.buffer.byteLength < pages * PAGE) {
    kept = null; // let the old one go before the new one is allocated
    const memory = new WebAssembly.Memory({ initial: pages });
    const instance = new WebAssembly.Instance(kernelModule(), { env: { memory } });
    kept = { memory, kernel: instance.exports as unknown as KernelExports };
  }
  keepForNow();
  return kept;
}

/**
 * Working arrays for sorting `points` points by cell, kept along with the kernel memory. The two key
 * arrays lie side by side, so once the sort is done they can hold the results (`resultsOver`).
 */
export function keptSortScratch(points: number): SortScratch {
  if (keptSort === null || keptSort.idx.length < points) {
    keptSort = null;
    const buf = new ArrayBuffer(16 * points);
    keptSort = {
      lo: new Uint32Array(buf, 0, points), lo2: new Uint32Array(buf, 4 * points, points),
      idx: new Int32Array(buf, 8 * points, points), idx2: new Int32Array(buf, 12 * points, points),
    };
  }
  keepForNow();
  return keptSort;
}

/** `points` doubles over a sort scratch's key arrays, free once the sort is done (no fresh pages). */
export function resultsOver(scratch: SortScratch, points: number): Float64Array {
  return new Float64Array(scratch.lo.buffer, scratch.lo.byteOffset, points);
}

/** Drops the kept memory now (tests, or a caller that knows no k-NN work follows). */
export function releaseKnnMemory(): void {
  kept = null;
  keptSort = null;
  if (dropTimer !== null) clearTimeout(dropTimer);
  dropTimer = null;
}

export interface KernelGrid {
  originX: number;
  originY: number;
  originZ: number;
  cellSize: number;
  nx: number;
  ny: number;
  nz: number;
}

/** Byte offsets of one call's arrays in the kernel memory (16-byte aligned). */
class Layout {
  bytes = 0;
  take(bytes: number): number {
    const at = this.bytes;
    this.bytes += Math.ceil(bytes / 16) * 16;
    return at;
  }
}

/**
 * One run of the kernel: fill x, y, z, start, coords and rows, call `run`, then read out. `run` may
 * grow the memory, which replaces every view: read the fields again after it.
 * Everything is valid until the next KnnRun is made.
 */
export class KnnRun {
  x!: Float32Array;
  y!: Float32Array;
  z!: Float32Array;
  /** Mean k-NN distance per sorted point, -1 where the kernel left the point to the host. */
  out!: Float64Array;
  start!: Int32Array;
  coords!: Int32Array;
  rows!: Int32Array;
  private readonly layout = new Layout();
  private readonly at: { x: number; y: number; z: number; out: number; start: number; coords: number; rows: number };
  private readonly arena: Arena;
  private readonly points: number;
  private readonly cells: number;

  constructor(points: number, cells: number) {
    const l = this.layout;
    this.at = {
      x: l.take(4 * points), y: l.take(4 * points), z: l.take(4 * points), out: l.take(8 * points),
      start: l.take(4 * (cells + 1)), coords: l.take(12 * cells), rows: l.take(72 * cells),
    };
    this.arena = arenaOf(l.bytes);
    this.points = points;
    this.cells = cells;
    this.makeViews();
  }

  private makeViews(): void {
    const buf = this.arena.memory.buffer, at = this.at, n = this.points, cells = this.cells;
    this.x = new Float32Array(buf, at.x, n);
    this.y = new Float32Array(buf, at.y, n);
    this.z = new Float32Array(buf, at.z, n);
    this.out = new Float64Array(buf, at.out, n);
    this.start = new Int32Array(buf, at.start, cells + 1);
    this.coords = new Int32Array(buf, at.coords, 3 * cells);
    this.rows = new Int32Array(buf, at.rows, 18 * cells);
  }

  /**
   * Runs every cell; `candidates` is the most points any cell's block holds (it sizes the per-query
   * scratch). Returns how many points were left to the host (out = -1).
   */
  run(candidates: number, k: number, growth: number, grid: KernelGrid): number {
    const l = this.layout;
    const lane0 = l.take(8 * candidates), lane1 = l.take(8 * candidates), sorted = l.take(8 * candidates);
    const bucket = l.take(4 * candidates), count = l.take(4 * (2 * candidates + 2));
    const memory = this.arena.memory;
    const missing = Math.ceil(l.bytes / PAGE) - memory.buffer.byteLength / PAGE;
    if (missing > 0) {
      if (memory.buffer.byteLength / PAGE + missing > MAX_PAGES) throw new RangeError(`k-NN: the cloud needs ${Math.ceil(l.bytes / 2 ** 20)} MiB of kernel memory, over WebAssembly's 4 GiB; split it`);
      memory.grow(missing); // keeps the contents, replaces the buffer
      this.makeViews();
    }
    const at = this.at, kernel = this.arena.kernel;
    kernel.setup(at.x, at.y, at.z, at.out, at.start, at.coords, at.rows, lane0, lane1, sorted, bucket, count,
      k, growth, grid.originX, grid.originY, grid.originZ, grid.cellSize, grid.nx, grid.ny, grid.nz);
    const step = Math.max(1, Math.ceil(this.cells / KNN_KERNEL_CALLS));
    let left = 0;
    for (let c = 0; c < this.cells; c += step) left += kernel.run(c, Math.min(this.cells, c + step));
    return left;
  }
}
