/**
 * Start-up of a short command, as users run it (issue 42): `esi3d --version` (node and the command line only),
 * `esi3d graph --help` (the graph command's modules loaded, nothing run) and `esi3d graph` on a one-view bundle
 * (its modules and one small graph) as whole processes, in turn, STARTUP_ROUNDS rounds. Each figure is the
 * median and interquartile range over the rounds: wall time, and CPU time (user + system of the child, which
 * counts V8's background compiler and GC threads) where /proc gives it. Goal: `esi3d graph` on one view costs
 * little more than `esi3d --version`; the figures are for reading against each other on one machine.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_MAIN, type BenchContext } from "./context.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { writeBundle } from "../core/bundle/io.js";

/** Rounds of the three commands, in turn (the machine's load shifts alike across them). */
export const STARTUP_ROUNDS = 15;
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

export default async function benchStartup(ctx: BenchContext): Promise<void> {
  const task = generateTask("counting_with_occlusion", "bench-graph", 0);
  const single = captureBundle(task, "single");
  const bundle = join(ctx.workDir, "startup-single-bundle");
  writeBundle(bundle, single.manifest, single.payloads);
  const commands: { name: string; args: string[] }[] = [
    { name: "esi3d --version", args: ["--version"] },
    { name: "esi3d graph --help", args: ["graph", "--help"] },
    { name: "esi3d graph (one view)", args: ["graph", bundle, "-o", join(ctx.workDir, "startup-graph.json")] },
  ];
  const wall = commands.map(() => [] as number[]),
    cpu = commands.map(() => [] as number[]);
  for (let r = 0; r < STARTUP_ROUNDS; r++) {
    commands.forEach((c, i) => {
      const cpu0 = childrenCpuS(),
        t = performance.now();
      const p = spawnSync(process.execPath, [CLI_MAIN, ...c.args], { encoding: "utf8" });
      wall[i]!.push(performance.now() - t);
      if (p.status !== 0) throw new Error(`${c.name}: exit ${p.status}\n${p.stderr}`);
      const cpu1 = childrenCpuS();
      if (cpu0 !== null && cpu1 !== null) cpu[i]!.push((cpu1 - cpu0) * 1000);
    });
  }
  console.log(`  whole processes, ${STARTUP_ROUNDS} rounds of the three in turn; median (interquartile range), ms:`);
  const fmt = (xs: number[]) => {
    if (xs.length === 0) return "-";
    const q = quartiles(xs);
    return `${q.median.toFixed(0)} (${q.q1.toFixed(0)}-${q.q3.toFixed(0)})`;
  };
  commands.forEach((c, i) => console.log(`  ${c.name.padEnd(24)} wall ${fmt(wall[i]!).padEnd(16)} cpu ${fmt(cpu[i]!)}`));
  const v = quartiles(wall[0]!).median,
    g = quartiles(wall[2]!).median;
  console.log(`  esi3d graph on one view: ${(g / v).toFixed(2)}x esi3d --version's wall time, ${(g - v).toFixed(0)} ms more`);
}
