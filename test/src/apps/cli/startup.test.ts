import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, esi3d, REPO_ROOT } from "./helpers.js";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { writeBundle } from "../../../../core/bundle/io.js";

/** Packages only other commands need (the service, the queue, the LLM clients, VGGT's runtime). */
const NOT_FOR_GRAPH = ["fastify", "bullmq", "ioredis", "openai", "onnxruntime-node", "piscina", "better-sqlite3", "@google/genai", "@bull-board"];

/** Packages a plain offline run (built-in simulator, symbolic reasoners) has no use for: ~0.45 s of CPU to load. */
const NOT_FOR_PLAIN_RUN = ["bullmq", "ioredis", "openai", "@google/genai", "onnxruntime-node", "fastify"];

/** Packages only a running server or queue worker needs (the service's, the viewer's server, the queue's). */
const SERVER_AND_QUEUE = ["fastify", "@fastify", "bullmq", "ioredis", "@bull-board"];

/** The packages a CLI invocation loaded, from a hook that lists require's cache as the process exits (they are CommonJS). */
function loadedPackages(args: string[]): { code: number | null; packages: Set<string> } {
  const hook = join(mkdtempSync(join(tmpdir(), "esi3d-startup-")), "hook.mjs");
  writeFileSync(
    hook,
    `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\nprocess.on("exit", () => process.stderr.write("LOADED " + JSON.stringify(Object.keys(require.cache)) + "\\n"));\n`,
  );
  const r = spawnSync(process.execPath, ["--import", hook, CLI, ...args], { encoding: "utf8", cwd: REPO_ROOT });
  const line = r.stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`no module list from the hook: ${r.stderr}`);
  const files = JSON.parse(line.slice(7)) as string[];
  const packages = new Set(
    files.flatMap((f) => {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f);
      return m ? [m[1]!] : [];
    }),
  );
  return { code: r.status, packages };
}

describe("esi3d CLI startup: a command loads its own modules only", () => {
  it("esi3d graph loads none of the service's, the queue's or the LLM clients' packages (a plain run, below, shows the hook sees those that do load)", () => {
    const graph = loadedPackages(["graph", "--help"]);
    expect(graph.code).toBe(0);
    for (const p of NOT_FOR_GRAPH) expect([...graph.packages].filter((q) => q.startsWith(p))).toEqual([]);
  });

  it("esi3d graph --help registers the pipeline's flags without loading the pipeline, a graph run loads it on use; run, ablate and list load the runner on use", () => {
    // the ES module files a CLI invocation loaded (the CLI's own bundle chunks), from a loader hook
    const hook = join(mkdtempSync(join(tmpdir(), "esi3d-startup-")), "hook.mjs");
    writeFileSync(
      hook,
      `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent('export async function load(u, c, n) { if (u.startsWith("file:")) process.stderr.write("LOADED " + u + "\\\\n"); return n(u, c); }'));\n`,
    );
    const loadedCode = (args: string[]) => {
      const r = spawnSync(process.execPath, ["--import", hook, CLI, ...args], { encoding: "utf8", cwd: REPO_ROOT });
      expect(r.status, r.stderr).toBe(0);
      const files = r.stderr.split("\n").flatMap((l) => (l.startsWith("LOADED file://") ? [l.slice("LOADED file://".length)] : []));
      return files.map((f) => readFileSync(f, "utf8")).join("\n");
    };
    const dir = mkdtempSync(join(tmpdir(), "esi3d-startup-graph-"));
    const single = captureBundle(generateTask("counting_with_occlusion", "startup", 0), "single");
    writeBundle(join(dir, "bundle"), single.manifest, single.payloads);
    const help = loadedCode(["graph", "--help"]);
    const run = loadedCode(["graph", join(dir, "bundle"), "-o", join(dir, "graph.json")]);
    // the flags come from the options' declaration; the pipeline, the cloud and the clustering do not load
    expect(help).toMatch(/--instances <mode>/);
    for (const fn of ["graphOfBundle", "buildPointCloud", "readBundle"]) {
      expect(help, fn).not.toMatch(new RegExp(`function ${fn}\\(`));
      expect(run, fn).toMatch(new RegExp(`function ${fn}\\(`));
    }
    // the same for the commands that run the evaluation: their help registers the flags, the runner loads on use
    for (const command of ["run", "ablate", "list"]) expect(loadedCode([command, "--help"]), command).not.toMatch(/function runEvaluation\(/);
  });

  it("commands that plan or list but start no pool and call no model load neither the pool nor the response cache's SQLite", () => {
    for (const args of [
      ["list", "--help"],
      ["ask", "--help"],
      ["run", "--help"],
      ["list", "reasoners"],
    ]) {
      const r = loadedPackages(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(
        [...r.packages].filter((q) => q === "piscina" || q === "better-sqlite3"),
        args.join(" "),
      ).toEqual([]);
    }
  });

  it("no module of the product imports zod's `z` by name: esbuild then keeps the whole namespace, all of zod's locales, in every command's chunks", () => {
    // every top-level folder the CLI bundle can take modules from (not the tests, benches, scripts or outputs)
    const notBundled = new Set(["node_modules", "dist", "test", "bench", "scripts", "docs", "fixtures", "models"]);
    const tops = readdirSync(REPO_ROOT, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith(".") && !notBundled.has(d.name));
    const offenders: string[] = [];
    for (const top of tops.map((d) => d.name)) {
      for (const f of readdirSync(join(REPO_ROOT, top), { recursive: true, encoding: "utf8" })) {
        if (!f.endsWith(".ts")) continue;
        if (/^import \{[^}]*\bz\b[^}]*\} from "zod";/m.test(readFileSync(join(REPO_ROOT, top, f), "utf8"))) offenders.push(`${top}/${f}`);
      }
    }
    expect(tops.map((d) => d.name)).toContain("src");
    expect(offenders).toEqual([]);
  });

  it("help and the version load no server or queue package (they load when `serve`, `worker` or `inspect --serve` starts one); the version loads no command", () => {
    for (const args of [["--help"], ["serve", "--help"], ["worker", "--help"], ["inspect", "--help"]]) {
      const r = loadedPackages(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(
        [...r.packages].filter((q) => SERVER_AND_QUEUE.some((p) => q.startsWith(p))),
        args.join(" "),
      ).toEqual([]);
    }
    for (const flag of ["--version", "-V"]) {
      const r = loadedPackages([flag]);
      expect(r.code).toBe(0);
      expect([...r.packages]).toEqual([]); // commander is in the bundle
      expect(esi3d([flag]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it("a plain esi3d run loads none of the queue's, the LLM SDKs' or VGGT's runtime packages (they load when a run uses them)", () => {
    const out = join(mkdtempSync(join(tmpdir(), "esi3d-startup-run-")), "run");
    const run = loadedPackages(["run", "--limit", "1", "--paradigm", "single", "--concurrency", "1", "--out", out]);
    expect(run.code).toBe(0);
    expect(run.packages.has("piscina")).toBe(true); // the hook sees what a run does load
    for (const p of NOT_FOR_PLAIN_RUN) expect([...run.packages].filter((q) => q.startsWith(p))).toEqual([]);
  });

  it("the whole program is still there for --help, help <command> and an unknown command", () => {
    const all = esi3d(["--help"]);
    expect(all.code).toBe(0);
    for (const c of [
      "run",
      "worker",
      "ablate",
      "ask",
      "compare",
      "list",
      "generate",
      "import",
      "render",
      "contact-sheet",
      "points",
      "graph",
      "inspect",
      "schema",
      "serve",
    ])
      expect(all.stdout).toMatch(new RegExp(`\\n  ${c}\\b`));
    // the order of the listing is the registration order
    expect(all.stdout.indexOf("\n  graph")).toBeLessThan(all.stdout.indexOf("\n  inspect"));
    expect(all.stdout.indexOf("\n  schema")).toBeLessThan(all.stdout.indexOf("\n  serve"));
    const help = esi3d(["help", "graph"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: esi3d graph \[options\] <bundle>/);
    const unknown = esi3d(["grpah"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'grpah'/);
  });
});
