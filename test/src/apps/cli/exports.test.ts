/**
 * Exports other tools load, read back by those tools' own readers (Debian's /usr/bin/python3):
 * `esi3d graph BUNDLE --ply` through Open3D 0.16's tensor reader, and `--conceptgraphs` through gzip +
 * pickle and the calls ConceptGraphs' loader makes (test/helpers/conceptgraphs_check.py). Every field is
 * checked against the cloud and graph the same pipeline builds in this process (every step is seeded, so
 * they are the ones the CLI wrote).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { readBundle, writeBundle } from "../../../../core/bundle/io.js";
import { graphOfBundle, type PipelineResult } from "../../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { readTaskFile } from "../../../../core/task/io.js";
import { readStoredGraph } from "../../../../src/eval/files.js";
import { graphFile, openRun } from "../../../../src/apps/viewer/run.js";
import { reproduceRunGraph } from "../../../../src/apps/viewer/variant.js";
import { PACKAGE_VERSION } from "../../../../core/version.js";
import { makeRun, TASK } from "../viewer/helpers.js";
import { esi3d, REPO_ROOT } from "./helpers.js";
import { needs } from "../../../helpers/system.js";

const py = needs("python3-numpy", "python3-open3d", "python3-torch");

const PYTHON = "/usr/bin/python3";
/** The least side the ConceptGraphs map gives a flat box (1 mm), so that Open3D's create_from_points can rebuild it. */
const MIN_BOX_SIDE_M = 0.001;
const HELPERS = join(REPO_ROOT, "test", "helpers");

let dir: string;
let expected: PipelineResult;
let cli: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "esi3d-exports-"));
  // noisy multi-view: duplicates and hallucinations, and points that end up in no node
  // a scene whose noisy graph has "in" relations, which the ConceptGraphs edge file draws (index 0 of this seed
  // has none since the suite balances its answer positions)
  const task = generateTask("rigid_containment", "exports", 2);
  const { manifest, payloads } = captureBundle(task, "multi");
  writeBundle(join(dir, "b"), manifest, payloads);
  cli = esi3d(["graph", join(dir, "b"), "--source", "noisy", "-o", join(dir, "g.json"), "--ply", join(dir, "g.ply"), "--conceptgraphs", join(dir, "cg")]);
  expected = await graphOfBundle(readBundle(join(dir, "b")), GraphPipelineOptionsSchema.parse({ source: "noisy" }));
}, 240_000);

/** An attribute Open3D kept, as a typed array of its dtype. */
function attribute(dump: string, meta: { dtype: string }, name: string): Float32Array | Int32Array | Uint8Array {
  const b = readFileSync(join(dump, `${name}.bin`));
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  if (meta.dtype === "float32") return new Float32Array(ab);
  if (meta.dtype === "int32") return new Int32Array(ab);
  if (meta.dtype === "uint8") return new Uint8Array(ab);
  throw new Error(`${name}: unexpected dtype ${meta.dtype}`);
}

describe.skipIf(py.skip)(py.title("esi3d graph --ply"), () => {
  it("writes every per-point field, the predicted node included, as types Open3D's tensor reader keeps", () => {
    expect(cli.code, cli.stderr).toBe(0);
    const graph = JSON.parse(readFileSync(join(dir, "g.json"), "utf8")) as SceneGraph;
    expect(graph.nodes.map((n) => n.id)).toEqual(expected.graph.nodes.map((n) => n.id));
    const dump = join(dir, "dump");
    mkdirSync(dump);
    const r = spawnSync(PYTHON, [join(HELPERS, "open3d_ply_dump.py"), join(dir, "g.ply"), dump], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/skipping property|unsupported datatype/i);
    const out = JSON.parse(r.stdout) as { count: number; attributes: Record<string, { dtype: string; shape: number[] }> };
    const c = expected.cloud;
    expect(out.count).toBe(c.count);
    expect(Object.keys(out.attributes).sort()).toEqual(["colors", "confidence", "instance", "node", "pixel", "positions", "view"]);
    const get = (name: string) => attribute(dump, out.attributes[name]!, name);
    expect(out.attributes.positions!.shape).toEqual([c.count, 3]);
    expect(Buffer.from(get("positions").buffer).equals(Buffer.from(c.xyz.buffer, c.xyz.byteOffset, c.count * 12))).toBe(true);
    expect(Array.from(get("colors"))).toEqual(Array.from(c.rgb));
    expect(Array.from(get("confidence"))).toEqual(Array.from(c.confidence));
    expect(Array.from(get("view"))).toEqual(Array.from(c.view));
    expect(Array.from(get("pixel"))).toEqual(Array.from(c.pixel));
    expect(Array.from(get("instance"))).toEqual(Array.from(c.instance));
    // node: k for the points of node n<k>, -1 elsewhere; as many points per node as the graph says
    const node = get("node") as Int32Array;
    const want = new Int32Array(c.count).fill(-1);
    expected.members.forEach((m, k) => m.forEach((i) => (want[i] = k)));
    expect(Array.from(node)).toEqual(Array.from(want));
    const perNode = new Map<number, number>();
    for (const k of node) perNode.set(k, (perNode.get(k) ?? 0) + 1);
    graph.nodes.forEach((n, k) => expect(perNode.get(k), n.id).toBe(n.raw_point_count));
    expect(perNode.get(-1) ?? 0).toBeGreaterThan(0); // this cloud has points in no node, so -1 is exercised
    // the header names each node
    const head = readFileSync(join(dir, "g.ply")).toString("latin1", 0, 8192);
    graph.nodes.forEach((n, k) => expect(head).toContain(`comment esi3d-node ${k} ${n.id} ${n.label}\n`));
  });
});

const sha256 = (a: ArrayBufferView) =>
  createHash("sha256")
    .update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    .digest("hex");

interface Described {
  type: string;
  dtype?: string;
  shape?: number[];
  sha256?: string;
  value?: unknown;
  items?: Described[];
}
interface CheckOut {
  top: string[];
  bg_objects: null;
  cfg: Record<string, unknown>;
  class_names: string[];
  class_colors: Record<string, [string, string[], number[]]>;
  objects: Array<{
    fields: Record<string, Described>;
    bbox_vs_open3d: number;
    points_in_o3d: number;
    colors_in_o3d: number;
    obb_volume: number;
    obb_extent_sorted: number[];
    box_color: number[];
    class_color: number[];
  }>;
  clip_stacked: number[];
  text_sim: number[];
  edges_drawn: Array<[number, string]>;
}

/** Loads DIR's map as ConceptGraphs does, with the node boxes of `graphFile` to compare corners against. */
function loadLikeConceptGraphs(cgDir: string, graphFile: string): CheckOut {
  const r = spawnSync(
    PYTHON,
    [
      join(HELPERS, "conceptgraphs_check.py"),
      join(cgDir, "full_pcd_esi3d.pkl.gz"),
      join(cgDir, "cfslam_object_relations.json"),
      graphFile,
      String(MIN_BOX_SIDE_M),
    ],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as CheckOut;
}

/** Checks every field ConceptGraphs' loader reads against the graph, its cloud and its node memberships. */
function expectMapOf(out: CheckOut, graph: SceneGraph, cloud: { xyz: Float32Array; rgb: Uint8Array }, members: readonly Uint32Array[]): void {
  expect(out.top).toEqual(["bg_objects", "cfg", "class_colors", "class_names", "objects"]);
  expect(out.bg_objects).toBeNull();
  expect(out.cfg).toMatchObject({ task_id: graph.task_id, paradigm: graph.paradigm, source: graph.source, masks: graph.masks });
  const classes = [...new Set(graph.nodes.map((n) => n.label))].sort();
  expect(out.class_names).toEqual(classes);
  expect(Object.keys(out.class_colors).sort()).toEqual(classes.map((_, i) => String(i)).sort());
  for (const [, [type, items, rgb]] of Object.entries(out.class_colors)) {
    expect(type).toBe("list");
    expect(items).toEqual(["float", "float", "float"]);
    for (const v of rgb) expect(v >= 0 && v <= 1).toBe(true);
  }
  expect(out.objects.length).toBe(graph.nodes.length);
  const zeros = sha256(new Float32Array(1024));
  graph.nodes.forEach((n, k) => {
    const o = out.objects[k]!,
      f = o.fields,
      m = members[k]!;
    expect(Object.keys(f).sort(), n.id).toEqual([
      "bbox_np",
      "class_id",
      "class_name",
      "clip_ft",
      "esi3d_node",
      "image_idx",
      "inst_color",
      "is_background",
      "n_points",
      "num_detections",
      "pcd_color_np",
      "pcd_np",
      "text_ft",
      "xyxy",
    ]);
    // the node's points, gathered here from the memberships, as float64 positions and colours in [0, 1]
    const xyz = new Float64Array(m.length * 3),
      rgb = new Float64Array(m.length * 3);
    m.forEach((i, j) => {
      for (let a = 0; a < 3; a++) (xyz[3 * j + a] = cloud.xyz[3 * i + a]!), (rgb[3 * j + a] = cloud.rgb[3 * i + a]! / 255);
    });
    expect(f.pcd_np, n.id).toEqual({ type: "ndarray", dtype: "<f8", shape: [n.raw_point_count, 3], sha256: sha256(xyz) });
    expect(f.pcd_color_np, n.id).toEqual({ type: "ndarray", dtype: "<f8", shape: [n.raw_point_count, 3], sha256: sha256(rgb) });
    expect(o.points_in_o3d).toBe(n.raw_point_count);
    expect(o.colors_in_o3d).toBe(n.raw_point_count);
    expect(o.box_color).toEqual([rgb[0], rgb[1], rgb[2]]);
    // bbox_np: Open3D's own corner order of the node's box, and create_from_points gives the box back
    expect(f.bbox_np).toMatchObject({ type: "ndarray", dtype: "<f8", shape: [8, 3] });
    expect(o.bbox_vs_open3d, n.id).toBeLessThan(1e-12);
    const ext = n.box.extent.map((e) => Math.max(e, MIN_BOX_SIDE_M)).sort((a, b) => a - b);
    o.obb_extent_sorted.forEach((e, a) => expect(e).toBeCloseTo(ext[a]!, 6));
    expect(o.obb_volume).toBeCloseTo(ext[0]! * ext[1]! * ext[2]!, 8);
    // one detection per view that sees the node
    const item = (x: unknown) => ({ type: typeof x === "string" ? "str" : "int", value: x });
    expect(f.num_detections).toEqual({ type: "int", value: n.support.length });
    expect(f.image_idx).toEqual({ type: "list", items: n.support.map((s) => item(s.view)) });
    expect(f.n_points).toEqual({ type: "list", items: n.support.map((s) => item(s.points)) });
    expect(f.class_name).toEqual({ type: "list", items: n.support.map(() => item(n.label)) });
    expect(f.class_id).toEqual({ type: "list", items: n.support.map(() => item(classes.indexOf(n.label))) });
    expect(f.xyxy).toEqual({
      type: "list",
      items: n.support.map((s) => ({ type: "ndarray", dtype: "<f4", shape: [4], sha256: sha256(Float32Array.from(s.bbox)) })),
    });
    expect(o.class_color).toEqual(out.class_colors[String(classes.indexOf(n.label))]![2]);
    for (const ft of ["clip_ft", "text_ft"]) expect(f[ft]).toEqual({ type: "ndarray", dtype: "<f4", shape: [1024], sha256: zeros });
    expect(f.inst_color).toMatchObject({ type: "ndarray", dtype: "<f8", shape: [3] });
    expect(f.is_background).toEqual({ type: "bool", value: false });
    expect(f.esi3d_node).toEqual({ type: "str", value: n.id });
  });
  expect(out.clip_stacked).toEqual([graph.nodes.length, 1024]);
  expect(out.text_sim).toEqual(graph.nodes.map(() => 0));
}

describe.skipIf(py.skip)(py.title("esi3d graph --conceptgraphs"), () => {
  it("writes the object map ConceptGraphs' scripts load (gzip pickle), with every field they read, and the relation file they draw", () => {
    expect(cli.code, cli.stderr).toBe(0);
    const out = loadLikeConceptGraphs(join(dir, "cg"), join(dir, "g.json"));
    expectMapOf(out, expected.graph, expected.cloud, expected.members);
    // --edge_file: each relation's ids index the map's objects (this graph has "a on b" / "a in b" relations)
    const edges = JSON.parse(readFileSync(join(dir, "cg", "cfslam_object_relations.json"), "utf8")) as unknown[];
    expect(edges.length).toBeGreaterThan(0);
    expect(out.edges_drawn.length).toBe(edges.length);
    for (const [d, rel] of out.edges_drawn) {
      expect(Number.isFinite(d)).toBe(true);
      expect(["a on b", "a in b"]).toContain(rel);
    }
  });
});

describe.skipIf(py.skip)(py.title("esi3d inspect RUN_DIR --conceptgraphs"), () => {
  it("exports a run's stored graph, its points rebuilt and checked as the viewer does", async () => {
    const runDir = makeRun("single", "esi3d-exports-run-");
    const out = join(dir, "cg-run");
    const r = esi3d(["inspect", runDir, "--task", TASK, "--paradigm", "single", "--source", "noisy", "--conceptgraphs", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ConceptGraphs object map \(full_pcd_esi3d\.pkl\.gz, \d+ objects\)/);
    const run = openRun(runDir);
    const file = graphFile(run, TASK, "single", "noisy");
    const stored = readStoredGraph(file);
    writeFileSync(join(dir, "run-graph.json"), JSON.stringify(stored.graph));
    const rebuilt = await reproduceRunGraph(run, readTaskFile(join(runDir, "tasks", `${TASK}.json`)), "single", "noisy", stored, file, PACKAGE_VERSION);
    expectMapOf(loadLikeConceptGraphs(out, join(dir, "run-graph.json")), stored.graph, rebuilt.cloud, rebuilt.members);
    // one graph per export, as for --ply
    const many = esi3d(["inspect", runDir, "--task", TASK, "--conceptgraphs", out]);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/--conceptgraphs export one graph: pass --paradigm and --source/);
  }, 300_000);
});
