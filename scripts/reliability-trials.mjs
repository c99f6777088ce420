#!/usr/bin/env node
/**
 * Reruns the reliability audit's trials on the built CLI (npm run build first) and prints their figures as a
 * markdown table (docs/reliability.md records a run of it). Trials, by name (all when none is given):
 *   kill   `run --limit 2` (36 items) killed -9 at 10, 30, 50, 70 and 90 % of the reference run's time (the audit's
 *          2 to 12 s, scaled to this machine's load), then --resume: items lost, duplicated, differing
 *   disk   a 300 KiB tmpfs from the start, and an 8 MiB one filled mid-run; then grown and --resume (needs root: mount)
 *   redis  two workers and `run --limit 2 --queue`, Redis shut down 5 s after the first job started, back 5 s later
 *   load   200 keep-alive connections on /healthz for 30 s (autocannon), the server's memory before and after
 *   reply  `run --limit 2 --paradigm single` against a loopback model answering 50 MB (and, for comparison, a
 *          short reply): time, peak memory, sizes of items.jsonl and the cache
 *   png    `import scannet` of a scene whose first depth PNG declares 16000x16000 (0.5 MB of zeros): peak memory
 * Usage: node scripts/reliability-trials.mjs [--json FILE] [--cli PATH] [trial ...]
 * (--cli: another build's dist/cli/main.js, e.g. an older commit's, to measure it the same way)
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDeflate, crc32 } from "node:zlib";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : null;
};
const jsonFile = option("--json");
const CLI = option("--cli") ?? join(ROOT, "dist", "cli", "main.js");
const ALL = ["kill", "disk", "redis", "load", "reply", "png"];
const chosen = args.length ? args : ALL;
const work = mkdtempSync(join(tmpdir(), "esi3d-trials-"));
const RUN2 = ["run", "--limit", "2"];
const TEMP_FILE = /\.tmp-\d+-[0-9a-f]+$/;
const STACK = /^\s+at \S/m;

/** Runs the CLI under /usr/bin/time: exit code, output, wall seconds, peak resident memory (MiB). */
function cli(argv, { env = {}, cwd = work, timeoutMs = 900_000, onSpawn, measure = true } = {}) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    // unmeasured: the node process itself, so a kill -9 reaches the run and nothing between
    const [cmd, ...pre] = measure ? ["/usr/bin/time", "-f", "trial-peak-rss-kb %M", process.execPath] : [process.execPath];
    const child = spawn(cmd, [...pre, CLI, ...argv], { cwd, env: { ...process.env, ...env }, timeout: timeoutMs });
    onSpawn?.(child);
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code, signal) => {
      const m = /trial-peak-rss-kb (\d+)/.exec(stderr);
      stderr = stderr.replace(/(Command (exited with non-zero status \d+|terminated by signal \d+)\n)?trial-peak-rss-kb \d+\n?/, "");
      resolve({ code, signal, stdout, stderr, seconds: (performance.now() - t0) / 1000, rssMiB: m ? Number(m[1]) / 1024 : null });
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const lines = (f) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : []);
const strip = (line) => {
  const { timings_ms: _t, ...rest } = JSON.parse(line);
  return JSON.stringify(rest);
};
const summaryOf = (dir) => {
  const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
  delete s.timings_ms;
  delete s.wall_seconds;
  return JSON.stringify(s);
};
function tempFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => TEMP_FILE.test(f) || /\.tmp-/.test(f));
}

/** A run directory against the reference: items missing, recorded twice, differing (timings aside), summary equal. */
function against(ref, dir) {
  const want = new Map(lines(join(ref, "items.jsonl")).map((l) => [JSON.parse(l).key, strip(l)]));
  const got = lines(join(dir, "items.jsonl"));
  const keys = got.map((l) => JSON.parse(l).key);
  const seen = new Map();
  for (const l of got) seen.set(JSON.parse(l).key, strip(l));
  return {
    items: `${new Set(keys).size}/${want.size}`,
    lost: [...want.keys()].filter((k) => !seen.has(k)).length,
    duplicated: keys.length - new Set(keys).size,
    differing: [...want].filter(([k, v]) => seen.has(k) && seen.get(k) !== v).length,
    summaryEqual: existsSync(join(dir, "summary.json")) ? summaryOf(ref) === summaryOf(dir) : false,
  };
}

let reference = null;
let referenceSeconds = 0;
async function ref() {
  if (reference) return reference;
  reference = join(work, "ref");
  const r = await cli([...RUN2, "--out", reference]);
  if (r.code !== 0) throw new Error(`reference run failed: ${r.stderr}`);
  referenceSeconds = r.seconds;
  results.push({
    trial: "reference",
    case: "run --limit 2, uninterrupted",
    exit: r.code,
    seconds: r.seconds.toFixed(1),
    peakRssMiB: r.rssMiB?.toFixed(0),
    items: lines(join(reference, "items.jsonl")).length,
  });
  return reference;
}

const results = [];

async function killTrial() {
  const base = await ref();
  for (const share of [0.1, 0.3, 0.5, 0.7, 0.9]) {
    const at = Math.round(share * referenceSeconds * 10) / 10;
    const dir = join(work, `kill-${share}`);
    let child;
    const run = cli([...RUN2, "--out", dir], { onSpawn: (c) => (child = c), measure: false });
    await sleep(at * 1000);
    child.kill("SIGKILL");
    await run;
    const before = lines(join(dir, "items.jsonl")).length;
    const resumed = await cli([...RUN2, "--resume", "--out", dir]);
    results.push({
      trial: "kill -9",
      case: `at ${at} s, ${share * 100} % of the reference (${before} items done), --resume`,
      exit: resumed.code,
      ...against(base, dir),
      tempFiles: tempFiles(dir).length,
      stackTraces: STACK.test(resumed.stderr),
    });
  }
}

function mount(dir, size) {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  if (r.status !== 0) throw new Error(`mount: ${r.stderr}`);
}
const remount = (dir, size) => spawnSync("mount", ["-o", `remount,size=${size}`, dir]);
const umount = (dir) => spawnSync("umount", [dir]);

async function diskTrial() {
  const base = await ref();
  const a = join(work, "disk-a");
  mount(a, "300k");
  try {
    const r = await cli([...RUN2, "--out", join(a, "r")]);
    const left = tempFiles(join(a, "r"));
    remount(a, "64m");
    const resumed = await cli([...RUN2, "--resume", "--out", join(a, "r")]);
    results.push({
      trial: "disk full",
      case: "300 KiB tmpfs from the start, then grown, --resume",
      exit: r.code,
      message: (/esi3d: .*/.exec(r.stderr) ?? [""])[0].slice(0, 160),
      tempFiles: left.length,
      resumeExit: resumed.code,
      ...against(base, join(a, "r")),
      stackTraces: STACK.test(r.stderr),
    });
  } finally {
    umount(a);
  }
  const b = join(work, "disk-b");
  mount(b, "8m");
  try {
    const run = cli([...RUN2, "--out", join(b, "r")]);
    await sleep(4000);
    // fill what is left of the disk while the run writes
    spawnSync("sh", ["-c", `dd if=/dev/zero of=${join(b, "filler")} bs=64k 2>/dev/null; true`]);
    const r = await run;
    const left = tempFiles(join(b, "r"));
    rmSync(join(b, "filler"));
    const resumed = await cli([...RUN2, "--resume", "--out", join(b, "r")]);
    results.push({
      trial: "disk full",
      case: "8 MiB tmpfs filled mid-run, filler removed, --resume",
      exit: r.code,
      message: (/esi3d: .*/.exec(r.stderr) ?? [""])[0].slice(0, 160),
      tempFiles: left.length,
      resumeExit: resumed.code,
      ...against(base, join(b, "r")),
      stackTraces: STACK.test(r.stderr),
    });
  } finally {
    umount(b);
  }
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(port, dir) {
  const p = spawn(
    "/usr/bin/redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--dbfilename",
      "dump.rdb",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: "ignore" },
  );
  for (let i = 0; i < 100; i++) {
    if (
      spawnSync("redis-cli", ["-p", String(port), "ping"])
        .stdout?.toString()
        .trim() === "PONG"
    )
      return p;
    await sleep(100);
  }
  throw new Error("redis did not start");
}

async function redisTrial() {
  const base = await ref();
  const port = await freePort();
  const data = join(work, "redis");
  mkdirSync(data);
  let redis = await startRedis(port, data);
  const url = `redis://127.0.0.1:${port}`;
  const workers = [0, 1].map(() => spawn(process.execPath, [CLI, "worker", "--queue", url, "--concurrency", "1"], { stdio: ["ignore", "ignore", "pipe"] }));
  const werr = workers.map((w) => {
    let t = "";
    w.stderr.on("data", (d) => (t += d));
    return () => t;
  });
  const dir = join(work, "redis-run");
  const run = cli([...RUN2, "--out", dir, "--queue", url]);
  // 5 s into the work: after a worker took the first job (start-up takes seconds on a busy machine)
  const llen = () =>
    Number(
      spawnSync("redis-cli", ["-p", String(port), "llen", "bull:esi3d-cpu:active"])
        .stdout?.toString()
        .trim() || 0,
    );
  for (let i = 0; i < 1200 && llen() === 0; i++) await sleep(100);
  await sleep(5000);
  spawnSync("redis-cli", ["-p", String(port), "shutdown", "save"]);
  await new Promise((r) => (redis.exitCode !== null ? r() : redis.once("exit", r)));
  await sleep(5000);
  redis = await startRedis(port, data);
  const r = await run;
  const alive = workers.filter((w) => w.exitCode === null).length;
  for (const w of workers) w.kill("SIGTERM");
  await Promise.all(workers.map((w) => (w.exitCode !== null ? null : new Promise((x) => w.once("exit", x)))));
  redis.kill("SIGTERM");
  const count = (t, re) => t.split("\n").filter((l) => re.test(l)).length;
  results.push({
    trial: "Redis restart",
    case: "2 workers, Redis shut down (SAVE) 5 s after the first job started, back 5 s later",
    exit: r.code,
    seconds: r.seconds.toFixed(1),
    producerLines: `${count(r.stderr, /Redis at .* unreachable/)} down, ${count(r.stderr, /Redis at .* is back/)} back`,
    stackTraces:
      r.stderr.split("\n").filter((l) => /^\s+at \S/.test(l)).length +
      werr
        .map(
          (f) =>
            f()
              .split("\n")
              .filter((l) => /^\s+at \S/.test(l)).length,
        )
        .reduce((a, b) => a + b, 0),
    workersAlive: `${alive}/2`,
    workerLines: werr.map((f) => `${count(f(), /Redis at .* unreachable/)} down, ${count(f(), /Redis at .* is back/)} back`).join("; "),
    ...(r.code === 0 ? {} : { message: (/esi3d: .*/.exec(r.stderr) ?? [r.stderr.slice(-200)])[0] }),
    ...against(base, dir),
  });
}

function rssOf(pid) {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

async function loadTrial() {
  const { default: autocannon } = await import("autocannon");
  const data = join(work, "serve-data");
  const serve = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", data], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ESI3D_TOKEN: "" },
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    serve.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    serve.once("exit", () => reject(new Error("serve exited")));
  });
  const before = rssOf(serve.pid);
  const r = await autocannon({ url: `${url}/healthz`, connections: 200, duration: 30, pipelining: 1 });
  const after = rssOf(serve.pid);
  const t0 = performance.now();
  serve.kill("SIGTERM");
  const code = await new Promise((x) => serve.once("exit", x));
  results.push({
    trial: "load",
    case: "200 keep-alive connections on /healthz, 30 s",
    requests: r.requests.total,
    errors: r.errors + r.timeouts + r.non2xx,
    p99ms: r.latency.p99,
    rssMiB: `${before.rss.toFixed(0)} -> ${after.rss.toFixed(0)} (peak ${after.hwm.toFixed(0)})`,
    sigtermExit: `${code} after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  });
}

async function replyTrial() {
  // the same run against a model answering a short reply first: the memory and sizes a normal run of it has
  for (const [what, content] of [
    ['a short reply ("3")', "3"],
    ["every reply 50 MB", "7".repeat(50_000_000)],
  ]) {
    const body = JSON.stringify({
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "test-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    });
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(body));
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const tag = content.length > 1 ? "huge" : "short";
    const dir = join(work, `reply-${tag}`);
    const cache = join(work, `reply-${tag}.sqlite`);
    const r = await cli(
      [
        ...RUN2,
        "--paradigm",
        "single",
        "--reasoner",
        "openai:test",
        "--base-url",
        `http://127.0.0.1:${server.address().port}/v1`,
        "--cache",
        cache,
        "--out",
        dir,
      ],
      { env: { OPENAI_API_KEY: "x" } },
    );
    server.closeAllConnections();
    server.close();
    // line by line: an unbounded build's items.jsonl can be larger than a string may be
    const recs = [];
    if (existsSync(join(dir, "items.jsonl")))
      for await (const l of createInterface({ input: createReadStream(join(dir, "items.jsonl")) })) if (l) recs.push({ error: JSON.parse(l).error });
    const classes = {};
    for (const x of recs) if (x.error) classes[x.error.class] = (classes[x.error.class] ?? 0) + 1;
    results.push({
      trial: "model reply size",
      case: `run --limit 2 --paradigm single, ${what}`,
      exit: r.code,
      seconds: r.seconds.toFixed(1),
      peakRssMiB: r.rssMiB?.toFixed(0),
      itemsJsonlKiB: existsSync(join(dir, "items.jsonl")) ? (statSync(join(dir, "items.jsonl")).size / 1024).toFixed(0) : "none",
      cacheKiB: existsSync(cache) ? (statSync(cache).size / 1024).toFixed(0) : "none",
      items: recs.length,
      errorClasses: JSON.stringify(classes),
    });
  }
}

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4, 8))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

async function pngTrial() {
  const w = 16000,
    h = 16000;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 16;
  const deflate = createDeflate({ level: 9 });
  const parts = [];
  deflate.on("data", (c) => parts.push(c));
  const done = new Promise((r) => deflate.on("end", r));
  const row = Buffer.alloc(1 + 2 * w);
  for (let y = 0; y < h; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(parts)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  const s = join(work, "bomb-scene");
  for (const d of ["depth", "color", "pose", "intrinsic"]) mkdirSync(join(s, d), { recursive: true });
  writeFileSync(join(s, "depth", "0.png"), png);
  writeFileSync(join(s, "pose", "0.txt"), "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n");
  writeFileSync(join(s, "intrinsic", "intrinsic_depth.txt"), "500 0 320 0\n0 500 240 0\n0 0 1 0\n0 0 0 1\n");
  const r = await cli(["import", "scannet", s, "--out", join(work, "bomb-out")]);
  results.push({
    trial: "PNG header bomb",
    case: `depth/0.png declaring ${w}x${h} (${(png.length / 1e6).toFixed(2)} MB file)`,
    exit: r.code,
    seconds: r.seconds.toFixed(2),
    peakRssMiB: r.rssMiB?.toFixed(0),
    message: (/esi3d: .*/.exec(r.stderr) ?? [""])[0].slice(0, 160),
  });
}

const TRIALS = { kill: killTrial, disk: diskTrial, redis: redisTrial, load: loadTrial, reply: replyTrial, png: pngTrial };
for (const name of chosen) {
  if (!TRIALS[name]) throw new Error(`unknown trial ${name}; expected ${ALL.join(", ")}`);
  process.stderr.write(`trial: ${name}\n`);
  await TRIALS[name]();
}
for (const r of results)
  process.stdout.write(
    `| ${r.trial} | ${r.case} | ${Object.entries(r)
      .filter(([k]) => k !== "trial" && k !== "case")
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} |\n`,
  );
if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ date: new Date().toISOString(), results }, null, 1) + "\n");
rmSync(work, { recursive: true, force: true });
