/** What a node's points show for physics questions (scenegraph/physicalAttributes.ts), and ESI's stacking rule as a relation. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MIN_TOP_CELLS, nodePhysics, topTilt, TOP_PLANE_MAX_RMS_M, trueUpAxis, UPRIGHT_MAX_TILT_DEG } from "../../scenegraph/physicalAttributes.js";
import { computeRelations, type RelNode } from "../../scenegraph/relations.js";
import { SceneGraphSchema } from "../../scenegraph/types.js";
import { readAnyGraphFile } from "../../scenegraph/io.js";
import { serializeGraph } from "../../src/prompt/serialize.js";
import { GRAPH_FORMATS } from "../../src/prompt/formats.js";
import type { Vec3 } from "../../core/math/vec.js";

const here = dirname(fileURLToPath(import.meta.url));
/** A graph written before the physical attributes were recorded (esi3d-graph/1 without `physics`). */
const OLD_GRAPH = join(here, "..", "src", "prompt", "fixtures", "spatial_distance-000.gt.graph.json");

const rad = (d: number) => (d * Math.PI) / 180;

/** Points on a box's six faces, `step` apart, turned by `tiltDeg` about Y and moved to `centre`. */
function boxPoints(extent: Vec3, centre: Vec3, tiltDeg = 0, step = 0.01): Float32Array {
  const c = Math.cos(rad(tiltDeg)),
    s = Math.sin(rad(tiltDeg));
  const out: number[] = [];
  const h = extent.map((e) => e / 2);
  const n = extent.map((e) => Math.max(1, Math.round(e / step)));
  for (let i = 0; i <= n[0]!; i++)
    for (let j = 0; j <= n[1]!; j++)
      for (let k = 0; k <= n[2]!; k++) {
        if (i !== 0 && i !== n[0] && j !== 0 && j !== n[1] && k !== 0 && k !== n[2]) continue;
        const x = -h[0]! + (i * extent[0]) / n[0]!,
          y = -h[1]! + (j * extent[1]) / n[1]!,
          z = -h[2]! + (k * extent[2]) / n[2]!;
        out.push(centre[0] + c * x + s * z, centre[1] + y, centre[2] - s * x + c * z);
      }
  return Float32Array.from(out);
}

/** Points on a cylinder's side and caps (radius r, length len), its axis along `axis` ("z" standing, "x" lying). */
function cylinderPoints(r: number, len: number, axis: "x" | "z"): Float32Array {
  const out: number[] = [];
  const put = (u: number, v: number, w: number) => (axis === "z" ? out.push(u, v, w) : out.push(w, v, u));
  for (let a = 0; a < 72; a++) for (let t = 0; t <= 20; t++) put(r * Math.cos((a * Math.PI) / 36), r * Math.sin((a * Math.PI) / 36), -len / 2 + (t * len) / 20);
  for (let rr = 0; rr < r; rr += r / 5)
    for (let a = 0; a < 36; a++) for (const w of [-len / 2, len / 2]) put(rr * Math.cos((a * Math.PI) / 18), rr * Math.sin((a * Math.PI) / 18), w);
  return Float32Array.from(out);
}

function spherePoints(r: number): Float32Array {
  const out: number[] = [];
  // a Fibonacci sphere: evenly spread, no preferred axis
  const n = 800;
  for (let i = 0; i < n; i++) {
    const z = 1 - (2 * (i + 0.5)) / n;
    const rr = Math.sqrt(1 - z * z);
    const phi = i * Math.PI * (3 - Math.sqrt(5));
    out.push(r * rr * Math.cos(phi), r * rr * Math.sin(phi), r * z);
  }
  return Float32Array.from(out);
}

const boundsOf = (xyz: Float32Array) => {
  const min: Vec3 = [Infinity, Infinity, Infinity],
    max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < xyz.length; i++) (min[i % 3] = Math.min(min[i % 3]!, xyz[i]!)), (max[i % 3] = Math.max(max[i % 3]!, xyz[i]!));
  return { min, max };
};

describe("the top surface's tilt (plane fit of the highest point per cell)", () => {
  it("a board tilted 10, 25 and 40 degrees reads its tilt within half a degree; a flat one 0", () => {
    for (const t of [0, 10, 25, 40]) {
      const fit = topTilt(boxPoints([0.5, 0.3, 0.02], [0, 0, 0.3], t))!;
      expect(Math.abs(fit.tiltDeg - t), `tilt ${t}`).toBeLessThan(0.5);
      expect(fit.rmsM).toBeLessThan(0.01);
    }
  });

  it("too few cells fit no plane: null", () => {
    expect(topTilt(boxPoints([0.02, 0.02, 0.1], [0, 0, 0.05]))!).toBeNull();
    expect(MIN_TOP_CELLS).toBeGreaterThan(3);
  });
});

describe("upright: the up axis against ESI's world-up . +Z > 0.9", () => {
  it("a can standing shows its axis (its flat top); lying, its ridge fits a level plane as closely as a box's top: the points cannot tell", () => {
    const standing = cylinderPoints(0.033, 0.12, "z");
    const up = nodePhysics(standing, { centre: [0, 0, 0], extent: [0.066, 0.066, 0.12], yaw: 0 }, boundsOf(standing));
    expect(up.up[2]).toBeGreaterThan(0.999);
    expect(up.upright).toBe(true);
    expect(up.upright_margin_deg).toBeCloseTo(UPRIGHT_MAX_TILT_DEG, 0);
    // a limitation, recorded in docs/scene-graph.md: a thin cylinder's top ridge is within the plane threshold
    const lying = cylinderPoints(0.033, 0.12, "x");
    expect(topTilt(lying)!.rmsM).toBeLessThan(TOP_PLANE_MAX_RMS_M);
    const p = nodePhysics(lying, { centre: [0, 0, 0], extent: [0.12, 0.066, 0.066], yaw: 0 }, boundsOf(lying));
    expect(p.upright).toBe(true);
    expect(p.top_tilt_deg).toBeLessThan(1);
  });

  it("an edge is no face: the top rim of a box's front face alone fits no plane", () => {
    // one vertical face (x = 0), 30 cm wide and 20 cm high: its highest points are a line
    const face: number[] = [];
    for (let y = 0; y <= 0.3; y += 0.01) for (let z = 0; z <= 0.2; z += 0.01) face.push(0, y, z);
    expect(topTilt(Float32Array.from(face))).toBeNull();
  });

  it("a board's up is its normal: upright at 20 degrees, not at 30 (acos 0.9 = 25.8), each with its margin in degrees", () => {
    for (const [t, upright] of [
      [20, true],
      [30, false],
    ] as const) {
      const xyz = boxPoints([0.5, 0.3, 0.02], [0, 0, 0.3], t);
      const p = nodePhysics(xyz, { centre: [0, 0, 0.3], extent: [0.5, 0.3, 0.2], yaw: 0 }, boundsOf(xyz));
      expect(p.upright, `tilt ${t}`).toBe(upright);
      expect(p.upright_margin_deg).toBeCloseTo(Math.abs(t - UPRIGHT_MAX_TILT_DEG), 0);
    }
  });

  it("a ball shows no axis: upright with margin 0 (nothing decides it)", () => {
    const xyz = spherePoints(0.1);
    const p = nodePhysics(xyz, { centre: [0, 0, 0], extent: [0.2, 0.2, 0.2], yaw: 0 }, boundsOf(xyz));
    expect([p.upright, p.upright_margin_deg, p.up]).toEqual([true, 0, [0, 0, 1]]);
  });

  it("a true object's up is its own +Z turned by its orientation: upside down points down", () => {
    expect(trueUpAxis({ x: 0, y: 0, z: 0, w: 1 })).toEqual([0, 0, 1]);
    const flipped = trueUpAxis({ x: 1, y: 0, z: 0, w: 0 });
    expect(flipped[2]).toBeCloseTo(-1, 12);
    const xyz = boxPoints([0.1, 0.1, 0.1], [0, 0, 0.05]);
    expect(nodePhysics(xyz, { centre: [0, 0, 0.05], extent: [0.1, 0.1, 0.1], yaw: 0 }, boundsOf(xyz), flipped).upright).toBe(false);
  });

  it("height is the points' z range and footprint the box's a x b", () => {
    const xyz = boxPoints([0.4, 0.2, 0.1], [0, 0, 0.05]);
    const p = nodePhysics(xyz, { centre: [0, 0, 0.05], extent: [0.4, 0.2, 0.1], yaw: 0 }, boundsOf(xyz));
    expect(p.height_m).toBeCloseTo(0.1, 6);
    expect(p.footprint_m2).toBeCloseTo(0.08, 6);
    expect(p.top_tilt_deg).toBe(0);
  });
});

const node = (id: string, extent: Vec3, centre: Vec3): RelNode => ({ id, box: { centre, extent, yaw: 0 }, xyz: boxPoints(extent, centre) });
const has = (rels: ReturnType<typeof computeRelations>, a: string, p: string, b: string) =>
  rels.some((r) => r.subject === a && r.predicate === p && r.object === b);
const view = { position: [0, -3, 1.2] as Vec3, yaw: Math.PI / 2 };

describe("stacked_on / stacked_under: ESI's is_on_top between nodes in contact", () => {
  it("a box on a box is stacked on it, with the margin of the nearest condition", () => {
    const lower = node("l", [0.2, 0.2, 0.1], [0, 0, 0.05]);
    // off-centre by 2.5 cm, on the lower box's 1 cm point grid, so that the closest points touch
    const upper = node("u", [0.15, 0.15, 0.1], [0.025, 0.025, 0.15]);
    const rels = computeRelations([lower, upper], view);
    expect(has(rels, "u", "stacked_on", "l")).toBe(true);
    expect(has(rels, "l", "stacked_under", "u")).toBe(true);
    expect(has(rels, "l", "stacked_on", "u")).toBe(false);
    // the nearest condition is contact: 2.5 cm less the touching gap (0)
    expect(rels.find((r) => r.predicate === "stacked_on")!.margin_m).toBeCloseTo(0.025, 3);
  });

  it("no stack: lifted off (no contact), side by side (IoU under 0.1), or level (rise under 2 cm)", () => {
    const lower = node("l", [0.2, 0.2, 0.1], [0, 0, 0.05]);
    const stacked = (u: RelNode) => has(computeRelations([lower, u], view), "u", "stacked_on", "l");
    expect(stacked(node("u", [0.15, 0.15, 0.1], [0, 0, 0.2]))).toBe(false);
    expect(stacked(node("u", [0.15, 0.15, 0.1], [0.17, 0, 0.15]))).toBe(false);
    expect(stacked(node("u", [0.1, 0.1, 0.1], [0.15, 0, 0.06]))).toBe(false);
  });
});

describe("graphs written before the physical attributes", () => {
  it("still read, and serialize in every format without them", () => {
    const raw = JSON.parse(readFileSync(OLD_GRAPH, "utf8"));
    expect(raw.nodes.every((n: object) => !("physics" in n))).toBe(true);
    const g = readAnyGraphFile(OLD_GRAPH).graph;
    expect(SceneGraphSchema.parse(raw)).toEqual(g);
    for (const format of GRAPH_FORMATS)
      for (const uncertainty of [false, true]) {
        const text = serializeGraph(g, { format, uncertainty });
        expect(text).not.toMatch(/height_m|footprint_m2|height \d|upright|lying|top_tilt|top tilted/);
      }
  });

  it("a new graph's attributes appear in every format, their margins only with uncertainty", () => {
    const raw = JSON.parse(readFileSync(OLD_GRAPH, "utf8"));
    const g = SceneGraphSchema.parse(raw);
    g.nodes[0]!.physics = {
      height_m: 0.2,
      footprint_m2: 0.01,
      up: [0, 0, 1],
      upright: true,
      upright_margin_deg: 12.3,
      top_tilt_deg: 31.2,
      top_fit_rms_m: 0.004,
    };
    for (const format of GRAPH_FORMATS) {
      const off = serializeGraph(g, { format, uncertainty: false });
      const on = serializeGraph(g, { format, uncertainty: true });
      expect(off, format).toMatch(/31°|"top_tilt_deg": 31/);
      expect(off, format).not.toMatch(/upright_margin|margin 12°/);
      expect(on, format).toMatch(/"upright_margin_deg": 12|margin 12°/);
    }
  });
});
