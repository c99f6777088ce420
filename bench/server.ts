/**
 * Load test of `esi3d serve` on loopback with autocannon: the built CLI's server in its own process, a
 * small bundle streamed through the capture protocol, then
 *   A. POST /v1/graphs answered from the store (the cache-hit path: auth, validation, hashing, lookup),
 *   B. GET /v1/graphs/{id} (a ~10 KB JSON graph),
 *   C. POST /v1/graphs that really build (distinct noise seeds) on the CPU worker pool, with /healthz
 *      sampled meanwhile to show the event loop stays free.
 * Bounded in requests and time; every phase must finish with zero errors and zero non-2xx answers.
 *
 *   npm run bench -- server
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { CLI_MAIN as CLI, type BenchContext } from "./context.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { encodePng } from "../core/bundle/png.js";
import { encodeView, VIEW_CONTENT_TYPE } from "../src/apps/service/viewCodec.js";

/** Concurrent connections held open in phases A and B (the issue asks for 4-8). */
const CONNECTIONS = 8;
/** Requests per phase A / B: enough for stable percentiles (~1 s each here), bounded. */
const REQUESTS = 1000;
/** Requests sent first and not reported, so that JIT compilation does not land in phase A's p99. */
const WARMUP_REQUESTS = 100;
/** Phase C: real graph builds, fewer and fewer connections (each takes a CPU worker for ~0.3 s). */
const BUILD_CONNECTIONS = 4;
const BUILD_REQUESTS = 16;
/** Per-request timeout (s) and a bound on each phase's wall time (s): the bench never hangs. */
const REQUEST_TIMEOUT_S = 30;
const PHASE_LIMIT_S = 60;
/**
 * autocannon notices the end of a run only at its next sample tick (1 s by default), which would round
 * every phase up to whole seconds; sample every 20 ms instead.
 */
const SAMPLE_INTERVAL_MS = 20;
/**
 * /healthz must keep answering while every CPU worker is busy: graphs build in worker threads, so only
 * scheduling on a shared machine delays it (2 cores here: a worker, autocannon and this process).
 */
const HEALTH_MAX_MS = 1000;
/** Image size of the benchmark bundle: small, so phase C measures the service more than the geometry. */
const WIDTH = 160;
const HEIGHT = 120;

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  amount: number;
  timeout: number;
  duration?: number;
  sampleInt?: number;
  setupClient?: (client: { setBody(b: string): void }) => void;
  requests?: Array<{
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: { body?: string }, ctx: Record<string, unknown>) => unknown;
  }>;
}
type Autocannon = (opts: AutocannonOptions) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

function startServer(data: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", data], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.on("exit", (code) => reject(new Error(`esi3d serve exited with ${code}`)));
    proc.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, proc });
    });
  });
}

async function json(method: string, url: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** Runs one autocannon phase, timed here (wall time from start to the last answer, to a sample tick). */
async function phase(opts: AutocannonOptions): Promise<AutocannonResult & { wallS: number }> {
  const t0 = performance.now();
  const r = await autocannon({ sampleInt: SAMPLE_INTERVAL_MS, ...opts });
  return { ...r, wallS: (performance.now() - t0) / 1000 };
}

function report(name: string, r: AutocannonResult & { wallS: number }): { rps: number; ok: boolean } {
  const rps = r.requests.total / r.wallS;
  const bad = r.errors + r.timeouts + r.non2xx;
  const codes = Object.entries(r.statusCodeStats ?? {})
    .map(([c, s]) => `${c}x${s.count}`)
    .join(" ");
  console.log(
    `  ${name}: ${r.requests.total} requests in ${r.wallS.toFixed(2)} s = ${rps < 10 ? rps.toFixed(2) : rps.toFixed(0)} req/s; latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms; errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx} (${codes})`,
  );
  return { rps, ok: bad === 0 };
}

export default async function benchServer(ctx: BenchContext): Promise<void> {
  const data = join(ctx.workDir, "server-data");
  rmSync(data, { recursive: true, force: true });
  const { url, proc } = await startServer(data);
  try {
    // a one-view bundle through the protocol
    const t = generateTask("counting_with_occlusion", "bench-server", 0);
    const task = { ...t, camera: { ...t.camera, width: WIDTH, height: HEIGHT } };
    const { manifest, payloads } = captureBundle(task, "single");
    const open = await json("POST", `${url}/v1/sim/sessions`, { task, paradigm: "single", simulator: manifest.simulator, instances: manifest.instances });
    const sid = open.body.id as string;
    for (const [n, v] of manifest.views.entries()) {
      const p = payloads[n]!;
      const body = encodeView(
        { intrinsics: v.intrinsics, extrinsic: v.extrinsic, action: v.action },
        encodePng(WIDTH, HEIGHT, 3, 8, p.rgb),
        Buffer.from(p.depth.buffer, p.depth.byteOffset, p.depth.byteLength),
        encodePng(WIDTH, HEIGHT, 1, 16, p.ids),
      );
      const r = await json("PUT", `${url}/v1/sim/sessions/${sid}/views/${n}`, body, VIEW_CONTENT_TYPE);
      if (r.status !== 201) throw new Error(`view ${n}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const bundle = (await json("POST", `${url}/v1/sim/sessions/${sid}/finish`, {})).body.bundle as string;
    const built = await json("POST", `${url}/v1/graphs`, { bundle });
    const gid = built.body.id as string;
    console.log(
      `  bundle ${bundle} (1 view, ${WIDTH}x${HEIGHT}); graph ${gid}: ${String(built.body.nodes)} nodes, built in ${JSON.stringify(built.body.timings_ms)} ms`,
    );

    const base = { connections: CONNECTIONS, amount: REQUESTS, timeout: REQUEST_TIMEOUT_S, duration: PHASE_LIMIT_S };
    await phase({
      ...base,
      amount: WARMUP_REQUESTS,
      url: `${url}/v1/graphs`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bundle }),
    });
    const a = report(
      `A. POST /v1/graphs, stored graph, ${CONNECTIONS} connections`,
      await phase({ ...base, url: `${url}/v1/graphs`, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bundle }) }),
    );
    const b = report(`B. GET /v1/graphs/{id}, ${CONNECTIONS} connections`, await phase({ ...base, url: `${url}/v1/graphs/${gid}` }));

    // C: every request a real build; /healthz sampled while the workers are busy
    let seed = 0;
    const health: number[] = [];
    let running = true;
    const sampler = (async () => {
      while (running) {
        const t0 = performance.now();
        await fetch(`${url}/healthz`);
        health.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const c = report(
      `C. POST /v1/graphs, ${BUILD_REQUESTS} real builds (noisy source, distinct seeds), ${BUILD_CONNECTIONS} connections`,
      await phase({
        url: `${url}/v1/graphs`,
        connections: BUILD_CONNECTIONS,
        amount: BUILD_REQUESTS,
        timeout: REQUEST_TIMEOUT_S,
        duration: PHASE_LIMIT_S,
        requests: [
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ bundle, source: "noisy", noiseSeed: `bench-${seed++}` }) }),
          },
        ],
      }),
    );
    running = false;
    await sampler;
    const sorted = [...health].sort((x, y) => x - y);
    const hp50 = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    const hmax = sorted.at(-1) ?? NaN;
    console.log(`  /healthz during C: ${health.length} samples, p50 ${hp50.toFixed(1)} ms, max ${hmax.toFixed(1)} ms`);

    ctx.goal(`stored-graph POSTs, ${CONNECTIONS} concurrent, zero errors`, `${a.rps.toFixed(0)} req/s`, "zero errors and non-2xx", a.ok);
    ctx.goal(`graph GETs, ${CONNECTIONS} concurrent, zero errors`, `${b.rps.toFixed(0)} req/s`, "zero errors and non-2xx", b.ok);
    ctx.goal(`real graph builds, ${BUILD_CONNECTIONS} concurrent, zero errors`, `${c.rps.toFixed(2)} builds/s`, "zero errors and non-2xx", c.ok);
    ctx.goal(
      "/healthz keeps answering while the CPU workers build graphs",
      `p50 ${hp50.toFixed(1)} ms, max ${hmax.toFixed(0)} ms`,
      `max < ${HEALTH_MAX_MS} ms`,
      hmax < HEALTH_MAX_MS,
    );
  } finally {
    proc.removeAllListeners("exit");
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
  }
}
