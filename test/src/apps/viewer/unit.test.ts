/** Pure parts of the viewer: display thinning, the reproduction check, box geometry, the Y-up conversion and the label layout. */
import { describe, expect, it } from "vitest";
import { displaySample } from "../../../../src/apps/viewer/downsample.js";
import { graphDifference } from "../../../../src/apps/viewer/variant.js";
import { boxEdges } from "../../../../src/apps/viewer/geometry.js";
import { layoutLabels, type LabelPlacement } from "../../../../src/apps/viewer/client/labelLayout.mjs";
import { Rng } from "../../../../core/math/rng.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";

describe("displaySample", () => {
  it("keeps a cloud within the budget whole", () => {
    const xyz = new Float32Array(3000),
      node = new Uint16Array(1000);
    const s = displaySample(xyz, node, 1000);
    expect(s.info).toMatchObject({ method: "all", shown: 1000, total: 1000 });
    expect(s.indices[999]).toBe(999);
  });

  it("thins a large cloud to the budget by voxels, ascending indices, and keeps every node, even one inside another's voxels", () => {
    const r = new Rng("display");
    const rng = () => r.next();
    const n = 400_000;
    const xyz = new Float32Array(3 * n),
      node = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      // a 2 m x 2 m floor patch of scattered points (node 1) ...
      xyz[3 * i] = rng() * 2;
      xyz[3 * i + 1] = rng() * 2;
      xyz[3 * i + 2] = 0;
      node[i] = 1;
    }
    // ... and a tiny node 2 interleaved with it, 200 points within 2 cm
    for (let i = 0; i < 200; i++) {
      const k = i * 1999;
      xyz[3 * k] = 1 + rng() * 0.02;
      xyz[3 * k + 1] = 1 + rng() * 0.02;
      node[k] = 2;
    }
    const budget = 50_000;
    const s = displaySample(xyz, node, budget);
    expect(s.info.method).toBe("voxel");
    expect(s.info.shown).toBeLessThanOrEqual(budget);
    expect(s.info.shown).toBeGreaterThan(budget / 4);
    for (let k = 1; k < s.indices.length; k++) expect(s.indices[k]! > s.indices[k - 1]!).toBe(true);
    const kept2 = [...s.indices].filter((i) => node[i] === 2).length;
    expect(kept2).toBeGreaterThan(0);
  });
});

describe("graphDifference", () => {
  const node = (id: string, x: number) => ({ id, label: "mug", raw_point_count: 10, box: { centre: [x, 0, 0], extent: [1, 1, 1], yaw: 0 } });
  const g = (nodes: unknown[]) => ({ nodes, relations: [] }) as unknown as SceneGraph;
  it("is null for equal graphs and names the first differing node otherwise", () => {
    expect(graphDifference(g([node("n0", 0)]), g([node("n0", 0)]))).toBeNull();
    expect(graphDifference(g([node("n0", 0)]), g([node("n0", 0), node("n1", 1)]))).toMatch(/1 stored nodes, 2 recomputed/);
    expect(graphDifference(g([node("n0", 0)]), g([node("n0", 0.5)]))).toMatch(/node n0: stored box .*"centre":\[0,0,0\].* recomputed .*"centre":\[0.5,0,0\]/);
  });
});

describe("export geometry", () => {
  it("draws a yaw box's 12 edges through its corners", () => {
    const e = boxEdges([1, 2, 3], [2, 4, 6], Math.PI / 2);
    expect(e.length).toBe(12 * 2 * 3);
    const xs = e.filter((_, i) => i % 3 === 0),
      ys = e.filter((_, i) => i % 3 === 1),
      zs = e.filter((_, i) => i % 3 === 2);
    // rotated 90°: the 4 m side lies along x
    expect(Math.min(...xs)).toBeCloseTo(-1, 9);
    expect(Math.max(...xs)).toBeCloseTo(3, 9);
    expect(Math.min(...ys)).toBeCloseTo(1, 9);
    expect(Math.max(...ys)).toBeCloseTo(3, 9);
    expect([Math.min(...zs), Math.max(...zs)]).toEqual([0, 6]);
  });
});

describe("layoutLabels", () => {
  const box = (p: LabelPlacement, w: number, h: number) => (p.state === "hidden" ? null : { l: p.left, t: p.top, r: p.left + w, b: p.top + h });

  it("places labels by priority: the first keeps its spot, the next moves up a line, then below, and the rest are hidden", () => {
    // five labels anchored at one point, the most important given last
    const anchors = [3, 3, 3, 3, 0].map((priority) => ({ x: 100, y: 100, w: 60, h: 14, priority }));
    const out = layoutLabels(anchors);
    expect(out[4]).toEqual({ state: "shown", left: 70, top: 100 - 1.2 * 14 });
    expect(out.slice(0, 4).map((p) => p.state)).toEqual(["moved", "moved", "hidden", "hidden"]);
    const shown = out.map((p) => box(p, 60, 14)).filter((b) => b !== null);
    for (let i = 0; i < shown.length; i++)
      for (let j = i + 1; j < shown.length; j++) {
        const a = shown[i]!,
          b = shown[j]!;
        expect(a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b, `labels ${i} and ${j} overlap`).toBe(false);
      }
  });

  it("leaves labels that do not meet where they are", () => {
    const out = layoutLabels([
      { x: 50, y: 50, w: 40, h: 12, priority: 1 },
      { x: 200, y: 50, w: 40, h: 12, priority: 1 },
    ]);
    expect(out.map((p) => p.state)).toEqual(["shown", "shown"]);
  });
});
