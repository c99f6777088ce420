/**
 * The output-path rule as a property (issue 43): for every command that writes, outputs generated equal to,
 * inside or above each of its inputs (named directly or through a symbolic link, at random depths and names
 * from a seeded generator) are refused with exit 2 naming both paths, before any work: every input hashes the
 * same afterwards and the case's folder holds exactly what it held before (nothing written, nothing deleted,
 * `import --force` included).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { readBundle } from "../../../../core/bundle/io.js";
import { Rng } from "../../../../core/math/rng.js";
import { writeScannet } from "../../../bridge/datasets/layouts.js";
import { esi3dAsync, REPO_ROOT } from "./helpers.js";

const FIXTURE_TASK = join(REPO_ROOT, "fixtures", "tasks", "geometric_configuration-000.json");
const ESI_RECORDS = join(REPO_ROOT, "fixtures", "esi-bench");
const LEAK = /\bat .*:\d+:\d+|\b(TypeError|ReferenceError|RangeError|SyntaxError):/;
/** Cases per seed: every (command, output, input) gets each relation once; the generator picks names, depth and links. */
const SEED = "output-paths/1";

/** A prepared input, copied into each case's folder. */
interface Fixture {
  /** where the prepared original is (filled in beforeAll) */
  src: string;
  /** its name in the case's folder */
  name: string;
}

interface CommandSpec {
  name: string;
  /** the inputs by role; the command line is built from their paths in the case's folder */
  inputs: Record<string, Fixture>;
  /** output flags; `dir` outputs are directories */
  outputs: Array<{ flag: string; dir?: boolean }>;
  /** the command line, given each input's path and the outputs' paths (an output not under test gets a safe path) */
  args: (inputs: Record<string, string>, outputs: Record<string, string>) => string[];
}

const F = {
  bundle: { src: "", name: "bundle" } as Fixture,
  task: { src: FIXTURE_TASK, name: "task.json" } as Fixture,
  graph: { src: "", name: "g.json" } as Fixture,
  scene: { src: "", name: "scene0007_00" } as Fixture,
  records: { src: ESI_RECORDS, name: "esi" } as Fixture,
  suite: { src: "", name: "suite" } as Fixture,
  config: { src: "", name: "cfg.json" } as Fixture,
  run: { src: "", name: "run" } as Fixture,
};

const SMALL_RUN = ["--limit", "1", "--paradigm", "single", "--source", "gt", "--baseline", "none", "--labels", "oracle"];

const COMMANDS: CommandSpec[] = [
  {
    name: "graph",
    inputs: { "<bundle>": F.bundle },
    outputs: [{ flag: "--out" }, { flag: "--diagnosis" }, { flag: "--ply" }, { flag: "--conceptgraphs", dir: true }],
    args: (i, o) => [
      "graph",
      i["<bundle>"]!,
      "-o",
      o["--out"]!,
      "--diagnosis",
      o["--diagnosis"]!,
      "--ply",
      o["--ply"]!,
      "--conceptgraphs",
      o["--conceptgraphs"]!,
    ],
  },
  {
    name: "points",
    inputs: { "<bundle>": F.bundle },
    outputs: [{ flag: "--out" }, { flag: "--xyz" }],
    args: (i, o) => ["points", i["<bundle>"]!, "--source", "gt", "-o", o["--out"]!, "--xyz", o["--xyz"]!],
  },
  {
    name: "contact-sheet",
    inputs: { "<bundle>": F.bundle },
    outputs: [{ flag: "--out" }],
    args: (i, o) => ["contact-sheet", i["<bundle>"]!, "-o", o["--out"]!],
  },
  {
    name: "render",
    inputs: { "--tasks": F.task },
    outputs: [{ flag: "--out", dir: true }],
    args: (i, o) => ["render", "--tasks", i["--tasks"]!, "--out", o["--out"]!],
  },
  {
    name: "inspect a bundle",
    inputs: { "<dir>": F.bundle },
    outputs: [{ flag: "--out" }, { flag: "--ply" }, { flag: "--glb" }, { flag: "--graph-json" }, { flag: "--conceptgraphs", dir: true }],
    args: (i, o) => [
      "inspect",
      i["<dir>"]!,
      "-o",
      o["--out"]!,
      "--ply",
      o["--ply"]!,
      "--glb",
      o["--glb"]!,
      "--graph-json",
      o["--graph-json"]!,
      "--conceptgraphs",
      o["--conceptgraphs"]!,
    ],
  },
  { name: "inspect a run", inputs: { "<dir>": F.run }, outputs: [{ flag: "--out" }], args: (i, o) => ["inspect", i["<dir>"]!, "-o", o["--out"]!] },
  {
    name: "import scannet --force",
    inputs: { "<dir>": F.scene },
    outputs: [{ flag: "--out", dir: true }],
    args: (i, o) => ["import", "scannet", i["<dir>"]!, "--out", o["--out"]!, "--force"],
  },
  {
    name: "import esi-bench --force",
    inputs: { "<dir>": F.records },
    outputs: [{ flag: "--out", dir: true }],
    args: (i, o) => ["import", "esi-bench", i["<dir>"]!, "--out", o["--out"]!, "--force"],
  },
  {
    name: "ask --paradigm active --save-episode",
    inputs: { "<input>": F.bundle },
    outputs: [{ flag: "--save-episode", dir: true }],
    args: (i, o) => ["ask", i["<input>"]!, "--paradigm", "active", "--max-steps", "1", "--save-episode", o["--save-episode"]!],
  },
  {
    name: "ask a graph --cache",
    inputs: { "<input>": F.graph, "--task": F.task },
    outputs: [{ flag: "--cache" }],
    args: (i, o) => ["ask", i["<input>"]!, "--task", i["--task"]!, "--cache", o["--cache"]!],
  },
  {
    name: "run --suite --config",
    inputs: { "--suite": F.suite, "--config": F.config },
    outputs: [{ flag: "--out", dir: true }],
    args: (i, o) => ["run", "--suite", i["--suite"]!, "--config", i["--config"]!, ...SMALL_RUN, "--out", o["--out"]!],
  },
  {
    name: "ablate --suite",
    inputs: { "--suite": F.suite },
    outputs: [{ flag: "--out", dir: true }],
    args: (i, o) => ["ablate", "--suite", i["--suite"]!, "--limit", "1", "--paradigm", "single", "--noise", "0", "--out", o["--out"]!],
  },
];

const RELATIONS = ["equal", "inside", "above"] as const;
type Relation = (typeof RELATIONS)[number];

interface Case {
  id: string;
  spec: CommandSpec;
  output: string;
  input: string;
  relation: Relation;
  /** segments below the input ("inside") or levels above it ("above", 1 or 2: both stay in the case's folder) */
  depth: number;
  names: string[];
  /** name the output through a symbolic link to the input's folder */
  viaLink: boolean;
}

function generateCases(): Case[] {
  const rng = new Rng(SEED);
  const name = () => `o${Math.floor(rng.next() * 1e6).toString(36)}${rng.next() < 0.5 ? ".json" : ""}`;
  const out: Case[] = [];
  for (const spec of COMMANDS)
    for (const o of spec.outputs)
      for (const input of Object.keys(spec.inputs))
        for (const relation of RELATIONS) {
          const depth = relation === "equal" ? 0 : 1 + Math.floor(rng.next() * 2);
          out.push({
            id: `${spec.name} ${o.flag} ${relation} ${input}`,
            spec,
            output: o.flag,
            input,
            relation,
            depth,
            names: Array.from({ length: depth }, name),
            viaLink: rng.next() < 0.35,
          });
        }
  return out;
}

/** Every file and link under `p` (or `p` itself) with a hash of its content: equal before and after, or something changed. */
function tree(p: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (q: string) => {
    const st = lstatSync(q);
    const rel = relative(p, q) || ".";
    if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(q)}`);
    else if (st.isDirectory()) {
      out.set(rel, "dir");
      for (const f of readdirSync(q).sort()) walk(join(q, f));
    } else out.set(rel, createHash("sha256").update(readFileSync(q)).digest("hex"));
  };
  walk(p);
  return out;
}

describe("the output-path rule, as a property over every command that writes", () => {
  const root = mkdtempSync(join(tmpdir(), "esi3d-outpaths-"));
  beforeAll(async () => {
    const r = await esi3dAsync(["render", "--tasks", FIXTURE_TASK, "--paradigm", "single", "--out", join(root, "bundles")]);
    expect(r.code, r.stderr).toBe(0);
    F.bundle.src = join(root, "bundles", "geometric_configuration-000", "single");
    F.graph.src = join(root, "g.json");
    const g = await esi3dAsync(["graph", F.bundle.src, "-o", F.graph.src]);
    expect(g.code, g.stderr).toBe(0);
    const b = readBundle(F.bundle.src);
    F.scene.src = join(root, "scene0007_00");
    writeScannet(F.scene.src, b, [b.views[0]!, b.views[0]!]);
    F.suite.src = join(root, "suite");
    mkdirSync(F.suite.src);
    cpSync(FIXTURE_TASK, join(F.suite.src, "geometric_configuration-000.json"));
    F.config.src = join(root, "cfg.json");
    writeFileSync(F.config.src, JSON.stringify({ limit: 1 }));
    F.run.src = join(root, "run");
    const run = await esi3dAsync(["run", ...SMALL_RUN, "--out", F.run.src]);
    expect(run.code, run.stderr).toBe(0);
  }, 180_000);

  const cases = generateCases();

  it("docs/reliability.md shows the refusal as the CLI prints it", async () => {
    const dir = join(root, "doc-excerpt");
    mkdirSync(join(dir, "s"), { recursive: true });
    const doc = readFileSync(join(REPO_ROOT, "docs", "reliability.md"), "utf8");
    const shown = /\$ esi3d (import scannet s --out s --force)\n(esi3d: .*)\n/.exec(doc);
    expect(shown, "the excerpt in docs/reliability.md").not.toBeNull();
    const r = await esi3dAsync(shown![1]!.split(" "), { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(shown![2]);
  });

  it("covers every command that writes, each output against each input in each relation", () => {
    expect(cases.length).toBe(COMMANDS.reduce((n, s) => n + s.outputs.length * Object.keys(s.inputs).length * RELATIONS.length, 0));
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  describe.concurrent("cases", () => {
    cases.forEach((c, k) => {
      it(c.id, async () => {
        const dir = join(root, `case-${String(k).padStart(3, "0")}`);
        // inputs two levels down, so "above" stays inside the case's folder
        const inputs: Record<string, string> = {};
        for (const [role, f] of Object.entries(c.spec.inputs)) {
          const p = join(dir, "in", "a", f.name);
          mkdirSync(dirname(p), { recursive: true });
          cpSync(f.src, p, { recursive: true });
          inputs[role] = p;
        }
        const target = inputs[c.input]!;
        let base = c.relation === "above" ? resolve(target, ...Array.from({ length: c.depth }, () => "..")) : target;
        if (c.viaLink) {
          // the same place through a link beside the case's inputs: links are resolved before comparing
          const link = join(dir, "link");
          symlinkSync(dirname(base), link);
          base = join(link, basename(base));
        }
        const output = c.relation === "inside" ? join(base, ...c.names) : base;
        const outputs: Record<string, string> = {};
        c.spec.outputs.forEach((o, j) => (outputs[o.flag] = o.flag === c.output ? output : join(dir, `elsewhere-${j}${o.dir ? "" : ".out"}`)));
        const before = tree(dir);
        const r = await esi3dAsync(c.spec.args(inputs, outputs), { cwd: dir, env: { ESI3D_DEBUG: undefined }, timeoutMs: 120_000 });
        const said = r.stderr + r.stdout;
        expect(r.code, said).toBe(2);
        expect(said, "names the output").toContain(output);
        // above one input of several, the output may contain another input too: the refusal names one it contains
        const named = Object.values(inputs).filter((p) => said.includes(p));
        expect(named.includes(target) || (c.relation === "above" && named.length > 0), `names the input ${target}: ${said}`).toBe(true);
        expect(said).not.toMatch(LEAK);
        expect(tree(dir), "nothing written, nothing deleted").toEqual(before);
      }, 150_000);
    });
  });
});
