/**
 * Exports other tools load, read back by those tools' own readers: `esi3d graph BUNDLE --ply` through
 * Open3D 0.16's tensor reader (Debian's /usr/bin/python3), every field checked against the cloud and graph
 * the same pipeline builds in this process (every step is seeded, so they are the ones the CLI wrote).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { readBundle, writeBundle } from "../../../bridge/bundle/io.js";
import { graphOfBundle, type PipelineResult } from "../../../scenegraph/pipeline.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { esi3d, REPO_ROOT } from "./helpers.js";

const PYTHON = "/usr/bin/python3";
const HELPERS = join(REPO_ROOT, "test", "helpers");

let dir: string;
let expected: PipelineResult;
let cli: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "esi3d-exports-"));
  // noisy multi-view: duplicates and hallucinations, and points that end up in no node
  const task = generateTask("spatial_distance", "exports", 0);
  const { manifest, payloads } = captureBundle(task, "multi");
  writeBundle(join(dir, "b"), manifest, payloads);
  cli = esi3d(["graph", join(dir, "b"), "--source", "noisy", "-o", join(dir, "g.json"), "--ply", join(dir, "g.ply")]);
  expected = await graphOfBundle(readBundle(join(dir, "b")), { source: "noisy" });
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

describe("esi3d graph --ply", () => {
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
