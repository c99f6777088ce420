/** Shared helpers for benchmark modules: timing, memory and a summary of goals met. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The CLI as users run it: the bundle package.json's bin names (dist/bench/ -> dist/cli/main.js). */
export const CLI_MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** The bandwidth probe's array: 256 MB of float64, far above any last-level cache, so passes go to DRAM. */
export const BANDWIDTH_PROBE_BYTES = 256 * 1024 * 1024;
/** Passes of each kind; the best is kept (the machine is shared: the best pass is the least disturbed). */
export const BANDWIDTH_PROBE_PASSES = 5;
/** The peers' numpy probe (bench/peers/membw.py), a second opinion from SIMD reductions and memcpy. */
const PEER_MEMBW = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "peers", "membw.py");

export interface Bandwidth {
  /** Node: best read pass (a 4-accumulator sum over the array), bytes read per second. */
  readGBps: number;
  /** Node: best copy (TypedArray.set, a memcpy), bytes read plus written per second. */
  copyGBps: number;
  /** numpy's best single-thread read and copy (membw.py), when Debian's python3 with numpy can run it. */
  peer: { readGBps: number; copyGBps: number } | null;
  /** The rate floors are computed at: the fastest this machine moved bytes in any of the passes (Node's or numpy's read or copy). */
  floorGBps: number;
}

export interface GoalLine {
  name: string;
  measured: string;
  goal: string;
  met: boolean;
}

export class BenchContext {
  readonly goals: GoalLine[] = [];
  readonly workDir: string;

  constructor() {
    this.workDir = join(tmpdir(), `esi3d-bench-${process.pid}`);
    mkdirSync(this.workDir, { recursive: true });
  }

  /** Best (minimum) wall time of `runs` calls, in milliseconds. */
  async time<T>(fn: () => T | Promise<T>, runs = 3): Promise<{ ms: number; result: T }> {
    let best = Infinity;
    let result!: T;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      result = await fn();
      best = Math.min(best, performance.now() - t);
    }
    return { ms: best, result };
  }

  private bandwidthCache: Bandwidth | null = null;

  /**
   * This machine's memory bandwidth, measured once per bench run: the best of BANDWIDTH_PROBE_PASSES read
   * passes and copies of a BANDWIDTH_PROBE_BYTES Float64Array in this process, and membw.py's figures beside.
   */
  bandwidth(): Bandwidth {
    if (this.bandwidthCache) return this.bandwidthCache;
    const n = BANDWIDTH_PROBE_BYTES / 8;
    const src = new Float64Array(n),
      dst = new Float64Array(n);
    for (let i = 0; i < n; i++) src[i] = i & 1023; // fault the pages in before timing
    dst.fill(1);
    let read = Infinity,
      copy = Infinity,
      sink = 0;
    for (let r = 0; r < BANDWIDTH_PROBE_PASSES; r++) {
      let t = performance.now();
      let a = 0,
        b = 0,
        c = 0,
        d = 0;
      for (let i = 0; i < n; i += 4) (a += src[i]!), (b += src[i + 1]!), (c += src[i + 2]!), (d += src[i + 3]!);
      read = Math.min(read, performance.now() - t);
      sink += a + b + c + d;
      t = performance.now();
      dst.set(src);
      copy = Math.min(copy, performance.now() - t);
    }
    if (sink < 0 || dst[1] !== src[1]) throw new Error("bandwidth probe: the passes were not computed"); // keeps the loops live
    const readGBps = BANDWIDTH_PROBE_BYTES / read / 1e6,
      copyGBps = (2 * BANDWIDTH_PROBE_BYTES) / copy / 1e6;
    const peer = this.peerBandwidth();
    // the highest rate seen: on a shared machine every figure is a lower bound of what the memory can do
    this.bandwidthCache = { readGBps, copyGBps, peer, floorGBps: Math.max(readGBps, copyGBps, peer?.readGBps ?? 0, peer?.copyGBps ?? 0) };
    return this.bandwidthCache;
  }

  private peerBandwidth(): Bandwidth["peer"] {
    const py = "/usr/bin/python3";
    if (!existsSync(py) || !existsSync(PEER_MEMBW)) return null;
    const out = join(this.workDir, "membw.json");
    try {
      execFileSync(py, [PEER_MEMBW, "--runs", "3", "--json", out], { stdio: "ignore", timeout: 300_000 });
      const r = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
      return { readGBps: r.read_1GiB_1thread_best_GBps!, copyGBps: r.numpy_copy_1GiB_GBps_read_plus_write! };
    } catch {
      return null;
    }
  }

  goal(name: string, measured: string, goal: string, met: boolean): void {
    this.goals.push({ name, measured, goal, met });
    console.log(`  goal: ${name}: ${measured} (goal ${goal}) ${met ? "MET" : "NOT MET"}`);
  }

  /** Debian's python3 with Open3D, when installed (bench/peers/README.md). */
  pythonWithOpen3d(): string | null {
    const py = "/usr/bin/python3";
    if (!existsSync(py)) return null;
    try {
      execFileSync(py, ["-c", "import open3d, numpy"], { stdio: "ignore" });
      return py;
    } catch {
      return null;
    }
  }

  printSummary(): void {
    if (this.goals.length === 0) return;
    console.log("\n== goals ==");
    for (const g of this.goals) console.log(`${g.met ? "MET    " : "NOT MET"}  ${g.name}: ${g.measured} (goal ${g.goal})`);
  }
}
