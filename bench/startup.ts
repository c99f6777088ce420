/**
 * Start-up of a short command, as users run it (issue 42): `esi3d --version` (node and the command line only),
 * `esi3d graph --help` (the graph command's modules loaded, nothing run), `esi3d graph` on the same scene's one
 * view at a tenth of the size on each side (every module the graph loads, the manifest read and checked, the
 * graph written, next to no pixels) and at full size, as whole processes, in turn, STARTUP_ROUNDS rounds. Each
 * figure is the median and interquartile range over the rounds: wall time, and CPU time (user + system of the
 * child, which counts V8's background compiler and GC threads) where /proc gives it. Then, in one process of its
 * own, the full-size graph's work (read, graph, node metrics) on its first call and once warm: what is left of
 * the graph's time once loading is paid is the pixels' compute, and how much of that is V8 running it cold.
 * Goal (the "little more than --version", read as at most GRAPH_OVER_VERSION_GOAL times its wall time).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLI_MAIN, type BenchContext } from "./context.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { writeBundle } from "../core/bundle/io.js";

/** Rounds of the three commands, in turn (the machine's load shifts alike across them). */
export const STARTUP_ROUNDS = 15;
/** The "costs little more than `esi3d --version`", as a number: at most this many times its wall time. */
const GRAPH_OVER_VERSION_GOAL = 1.5;
/** The small bundle's image: the full view's width and height divided by this (518 x 392 -> 52 x 39). */
const SMALL_VIEW_DIVISOR = 10;
/** In-process calls of the full view's graph work: the first is cold, the median of the rest is warm. */
const IN_PROCESS_CALLS = 12;
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux's every architecture that Node runs on). */
const USER_HZ = 100;

/** CPU seconds of this process's waited-for children so far (cutime + cstime), or null without /proc. */
function childrenCpuS(): number | null {
  if (!existsSync("/proc/self/stat")) return null;
  // the fields after the command name, which is in parentheses and may hold spaces
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / USER_HZ; // fields 16 and 17 of proc(5)
}

function quartiles(xs: number[]): { q1: number; median: number; q3: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (f: number) => {
    const k = (s.length - 1) * f,
      lo = Math.floor(k);
    return s[lo]! + (s[Math.ceil(k)]! - s[lo]!) * (k - lo);
  };
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
}

/** A module URL of the build next to this bench file (dist/bench/ -> dist/...). */
const built = (rel: string) => new URL(`../${rel}`, import.meta.url).href;

/**
 * The graph command's work on a bundle (read, graph, node metrics, the JSON text), IN_PROCESS_CALLS times in one
 * fresh process, after its modules are loaded: each call's milliseconds.
 */
function inProcessGraphMs(bundle: string): number[] {
  const script = `
    const [{ readBundle }, { graphOfBundle, masksForBundle }, { diagnoseNodes }, { GraphPipelineOptionsSchema }] = await Promise.all([
      import(${JSON.stringify(built("core/bundle/io.js"))}), import(${JSON.stringify(built("scenegraph/pipeline.js"))}),
      import(${JSON.stringify(built("scenegraph/diagnosis.js"))}), import(${JSON.stringify(built("scenegraph/pipelineOptions.js"))})]);
    const options = GraphPipelineOptionsSchema.parse({});
    const ms = [];
    for (let i = 0; i < ${IN_PROCESS_CALLS}; i++) {
      const t = performance.now();
      const bundle = readBundle(${JSON.stringify(bundle)});
      const r = await graphOfBundle(bundle, masksForBundle(bundle, options, false).options, { diagnose: false });
      diagnoseNodes({ graph: r.graph, members: r.members, cloud: r.cloud, task: bundle.manifest.task, bundle });
      JSON.stringify(r.graph);
      ms.push(performance.now() - t);
    }
    process.stdout.write(JSON.stringify(ms));`;
  const p = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (p.status !== 0) throw new Error(`in-process graph: exit ${p.status}\n${p.stderr}`);
  return JSON.parse(p.stdout) as number[];
}

/**
 * `node` importing the bundled chunks the graph command loads (its command module and the pipeline, bundle,
 * diagnosis and PLY modules it imports on use) and exiting: the loading a graph cannot avoid, as a whole process.
 */
function loadOnlyArgs(): string[] {
  const dir = dirname(CLI_MAIN);
  const chunks = ["graph", "io", "freeTask", "pipeline", "diagnosis", "ply"].map((name) => {
    const file = readdirSync(dir).find((f) => new RegExp(`^${name}-[A-Z0-9]+\\.js$`).test(f));
    if (!file) throw new Error(`startup: no ${name}-*.js chunk in ${dir} (run npm run build)`);
    return pathToFileURL(join(dir, file)).href;
  });
  return ["--input-type=module", "-e", `await Promise.all(${JSON.stringify(chunks)}.map((u) => import(u)));`];
}

export default async function benchStartup(ctx: BenchContext): Promise<void> {
  const task = generateTask("counting_with_occlusion", "bench-graph", 0);
  const bundle = join(ctx.workDir, "startup-single-bundle"),
    small = join(ctx.workDir, "startup-small-bundle");
  const single = captureBundle(task, "single");
  writeBundle(bundle, single.manifest, single.payloads);
  // the same task and view, its camera's image a tenth as wide and high (the field of view kept)
  const { width, height } = task.camera;
  const smallTask = { ...task, camera: { ...task.camera, width: Math.round(width / SMALL_VIEW_DIVISOR), height: Math.round(height / SMALL_VIEW_DIVISOR) } };
  const smallCapture = captureBundle(smallTask, "single");
  writeBundle(small, smallCapture.manifest, smallCapture.payloads);
  const out = join(ctx.workDir, "startup-graph.json");
  // each a whole node process: its arguments, the CLI's or a script's
  const commands: { name: string; args: string[] }[] = [
    { name: "esi3d --version", args: [CLI_MAIN, "--version"] },
    { name: "esi3d graph --help", args: [CLI_MAIN, "graph", "--help"] },
    { name: "load the graph's modules", args: loadOnlyArgs() },
    { name: `esi3d graph, ${smallTask.camera.width}x${smallTask.camera.height}`, args: [CLI_MAIN, "graph", small, "-o", out] },
    { name: `esi3d graph, ${width}x${height}`, args: [CLI_MAIN, "graph", bundle, "-o", out] },
  ];
  const wall = commands.map(() => [] as number[]),
    cpu = commands.map(() => [] as number[]);
  for (let r = 0; r < STARTUP_ROUNDS; r++) {
    commands.forEach((c, i) => {
      const cpu0 = childrenCpuS(),
        t = performance.now();
      const p = spawnSync(process.execPath, c.args, { encoding: "utf8" });
      wall[i]!.push(performance.now() - t);
      if (p.status !== 0) throw new Error(`${c.name}: exit ${p.status}\n${p.stderr}`);
      const cpu1 = childrenCpuS();
      if (cpu0 !== null && cpu1 !== null) cpu[i]!.push((cpu1 - cpu0) * 1000);
    });
  }
  console.log(`  whole processes, ${STARTUP_ROUNDS} rounds of the ${commands.length} in turn, one view of ${task.task_id}; median (interquartile range), ms:`);
  const fmt = (xs: number[]) => {
    if (xs.length === 0) return "-";
    const q = quartiles(xs);
    return `${q.median.toFixed(0)} (${q.q1.toFixed(0)}-${q.q3.toFixed(0)})`;
  };
  commands.forEach((c, i) => console.log(`  ${c.name.padEnd(24)} wall ${fmt(wall[i]!).padEnd(16)} cpu ${fmt(cpu[i]!)}`));
  const [version, , load, smallGraph, graph] = wall.map((xs) => quartiles(xs).median) as [number, number, number, number, number];
  const calls = inProcessGraphMs(bundle);
  const first = calls[0]!,
    warm = quartiles(calls.slice(1)).median;
  console.log(
    `  in one process, the ${width}x${height} graph's work (read, graph, node metrics): first call ${first.toFixed(0)} ms, warm ${warm.toFixed(0)} ms (median of ${calls.length - 1})`,
  );
  console.log(
    `  esi3d graph over --version: ${(graph - version).toFixed(0)} ms, of which ${(load - version).toFixed(0)} ms loading its modules, ${(smallGraph - load).toFixed(0)} ms the rest of its fixed cost (the command line, the manifest read and checked, the ${smallTask.camera.width}x${smallTask.camera.height} view's graph, the output) and ${(graph - smallGraph).toFixed(0)} ms the full view's pixels`,
  );
  ctx.goal(
    "esi3d graph on one view, whole process, against esi3d --version",
    `${(graph / version).toFixed(2)}x (${graph.toFixed(0)} vs ${version.toFixed(0)} ms; the ${smallTask.camera.width}x${smallTask.camera.height} view ${(smallGraph / version).toFixed(2)}x)`,
    `<= ${GRAPH_OVER_VERSION_GOAL}x`,
    graph <= GRAPH_OVER_VERSION_GOAL * version,
  );
}
