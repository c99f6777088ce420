/**
 * A compute floor for stages whose values the project defines through Math's transcendental functions (the
 * noisy cloud: the warp's eight cosines per pixel, each pixel's confidence exp and log; docs/noise-model.md):
 * what those calls cost on their own, with nothing else of the stage around them. A stage can be no faster
 * than the functions that define its output.
 *
 * The calls are recorded, with their first arguments in call order, while the stage runs once (Math's
 * functions wrapped for that run only), then each function is timed alone over its recorded arguments:
 *   - in V8, one monomorphic loop per function (the calls as the stage makes them, inlined);
 *   - in C++ with glibc's libm (peers/transcendentals.cpp, g++ -O2), where g++ is installed.
 * The lower of the two per call is the floor's. In call order matters: neighbouring pixels' arguments are
 * close, which the functions' range-reduction branches predict well (V8's cos: 5.1 ns a call in order
 * against 14.3 ns over the same arguments shuffled, measured at stop 40).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Math's functions recorded: the transcendental ones (and sqrt, which the noise model's Gaussians call). */
export const RECORDED_FUNCTIONS = [
  "cos",
  "sin",
  "tan",
  "acos",
  "asin",
  "atan",
  "atan2",
  "exp",
  "expm1",
  "log",
  "log1p",
  "log2",
  "log10",
  "pow",
  "sqrt",
  "cbrt",
  "hypot",
  "tanh",
] as const;
type Recorded = (typeof RECORDED_FUNCTIONS)[number];
/** Timing passes per function; the least is kept. */
export const TRANSCENDENTAL_TIMING_PASSES = 7;

const here = dirname(fileURLToPath(import.meta.url));
const PEER_SOURCE = join(here, "..", "..", "bench", "peers", "transcendentals.cpp");

/** Runs `f` with every recorded Math function counting its calls and keeping its first arguments in order. */
export async function recordMathCalls<T>(f: () => Promise<T>): Promise<{ value: T; calls: Map<Recorded, Float64Array> }> {
  const m = Math as unknown as Record<Recorded, (...a: number[]) => number>;
  const originals = new Map<Recorded, (...a: number[]) => number>();
  const args = new Map<Recorded, { n: number; a: Float64Array }>();
  for (const name of RECORDED_FUNCTIONS) {
    const orig = m[name];
    const rec = { n: 0, a: new Float64Array(1024) };
    originals.set(name, orig);
    args.set(name, rec);
    m[name] = (...xs: number[]) => {
      if (rec.n === rec.a.length) {
        const grown = new Float64Array(2 * rec.a.length);
        grown.set(rec.a);
        rec.a = grown;
      }
      rec.a[rec.n++] = xs[0]!;
      return orig.apply(Math, xs);
    };
  }
  try {
    const value = await f();
    const calls = new Map<Recorded, Float64Array>();
    for (const [name, rec] of args) if (rec.n > 0) calls.set(name, rec.a.slice(0, rec.n));
    return { value, calls };
  } finally {
    for (const [name, orig] of originals) m[name] = orig;
  }
}

/** One loop per function, so each call site sees one function (V8 inlines it as the stage's loops do). */
const V8_LOOPS: Partial<Record<Recorded, (a: Float64Array) => number>> = {
  cos: (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += Math.cos(a[i]!);
    return s;
  },
  sin: (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += Math.sin(a[i]!);
    return s;
  },
  exp: (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += Math.exp(a[i]!);
    return s;
  },
  log: (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += Math.log(a[i]!);
    return s;
  },
  sqrt: (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += Math.sqrt(a[i]!);
    return s;
  },
};

/** The timing loops' sums, kept so that no loop is optimised away. */
const sums = { loops: 0 };

/** V8's least ns per call over the recorded arguments, for the functions with a loop here. */
function v8NsPerCall(calls: ReadonlyMap<Recorded, Float64Array>): Map<Recorded, number> {
  const out = new Map<Recorded, number>();
  let sink = 0;
  for (const [name, a] of calls) {
    const loop = V8_LOOPS[name];
    if (!loop) continue;
    let best = Infinity;
    for (let r = 0; r < TRANSCENDENTAL_TIMING_PASSES; r++) {
      const t = performance.now();
      sink += loop(a);
      best = Math.min(best, performance.now() - t);
    }
    out.set(name, (best * 1e6) / a.length);
  }
  sums.loops += sink;
  return out;
}

/** glibc's least ns per call over the same arguments (peers/transcendentals.cpp), or null without g++. */
function glibcNsPerCall(workDir: string, calls: ReadonlyMap<Recorded, Float64Array>): Map<Recorded, number> | null {
  const exe = join(workDir, "transcendentals");
  try {
    if (!existsSync(exe)) execFileSync("g++", ["-O2", "-std=c++17", "-o", exe, PEER_SOURCE], { stdio: "ignore" });
  } catch {
    return null;
  }
  const names = [...calls.keys()].filter((n) => V8_LOOPS[n]);
  for (const name of names) {
    const a = calls.get(name)!;
    writeFileSync(join(workDir, `calls-${name}.f64`), Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  }
  const out = join(workDir, "transcendentals.json");
  execFileSync(exe, [workDir, out, String(TRANSCENDENTAL_TIMING_PASSES), ...names], { stdio: "ignore" });
  return new Map(Object.entries(JSON.parse(readFileSync(out, "utf8")) as Record<Recorded, number>) as Array<[Recorded, number]>);
}

export interface TranscendentalFloor {
  /** ms for all recorded calls at the least per-call time measured for each function */
  ms: number;
  rows: Array<{ name: Recorded; calls: number; v8Ns: number | null; glibcNs: number | null; ms: number }>;
  /** calls of functions without a timing loop here (counted, not timed: they are a few hundred) */
  untimed: number;
}

/** The floor of a recording: every timed function's calls at its least measured cost per call. */
export function transcendentalFloor(workDir: string, calls: ReadonlyMap<Recorded, Float64Array>): TranscendentalFloor {
  const v8 = v8NsPerCall(calls),
    glibc = glibcNsPerCall(workDir, calls);
  const rows = [...calls].flatMap(([name, a]) => {
    const v = v8.get(name) ?? null,
      g = glibc?.get(name) ?? null;
    if (v === null && g === null) return [];
    return [{ name, calls: a.length, v8Ns: v, glibcNs: g, ms: (a.length * Math.min(v ?? Infinity, g ?? Infinity)) / 1e6 }];
  });
  const untimed = [...calls].reduce((n, [name, a]) => n + (V8_LOOPS[name] ? 0 : a.length), 0);
  return { ms: rows.reduce((n, r) => n + r.ms, 0), rows: rows.sort((x, y) => y.ms - x.ms), untimed };
}
