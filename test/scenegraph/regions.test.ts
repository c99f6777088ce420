import { describe, expect, it } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../reconstruct/categories.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import { segmentRegions } from "../../scenegraph/regions.js";
import { segmentStructure } from "../../scenegraph/primitives/structure.js";
import { truthGraph } from "../../scenegraph/truth.js";
import { diagnoseRegions } from "../../scenegraph/regionDiagnosis.js";
import { SceneGraphSchema, type GraphNode } from "../../scenegraph/types.js";
import { graphOfBundle } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { serializeGraph } from "../../src/prompt/serialize.js";
import { roomAt } from "../../core/task/layout.js";

/**
 * A synthetic plan: rooms A (x 0..3) and B (x 3..6), y 0..3, outer walls all round, and the wall x = 3 between
 * them with `gap` (y from, to) left without wall points. Camera 0 stands in A, camera 1 in B; each sees its own
 * room's floor and walls. `through`: camera 0 also sees B's floor through the gap (rays crossing x = 3 there).
 * `cameras: false`: the cloud records no camera (no rays); `views`: only these cameras' points.
 */
function plan(opts: { gap?: [number, number]; through?: boolean; cameras?: boolean; views?: number[] }): PointCloud {
  let pts: Array<[number, number, number, number, number]> = []; // x, y, z, id (1 floor, 2 wall), view
  const step = 0.05;
  for (let x = 0.05; x < 6; x += step) for (let y = 0.05; y < 3; y += step) pts.push([x, y, 0, 1, x < 3 ? 0 : 1]);
  const wall = (x0: number, y0: number, x1: number, y1: number, view: number, skip?: [number, number]) => {
    const n = Math.round(Math.hypot(x1 - x0, y1 - y0) / step);
    for (let k = 0; k <= n; k++) {
      const [x, y] = [x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n];
      if (skip && y > skip[0] && y < skip[1]) continue;
      for (let z = 0.4; z < 2; z += 0.2) pts.push([x, y, z, 2, view]);
    }
  };
  wall(0, 0, 3, 0, 0), wall(0, 3, 3, 3, 0), wall(0, 0, 0, 3, 0);
  wall(3, 0, 6, 0, 1), wall(3, 3, 6, 3, 1), wall(6, 0, 6, 3, 1);
  wall(3, 0, 3, 3, 0, opts.gap), wall(3, 0, 3, 3, 1, opts.gap);
  // B's floor camera 0 sees through the gap: the cone from (1.5, 1.5) through it
  if (opts.through && opts.gap) {
    const [g0, g1] = opts.gap;
    for (let x = 3.3; x < 5.9; x += step) {
      const t = (x - 1.5) / 1.5;
      for (let y = 1.5 + (g0 + 0.05 - 1.5) * t; y < 1.5 + (g1 - 0.05 - 1.5) * t; y += step) if (y > 0 && y < 3) pts.push([x, y, 0, 1, 0]);
    }
  }
  if (opts.views) pts = pts.filter((p) => opts.views!.includes(p[4]));
  const n = pts.length;
  const cloud: PointCloud = {
    count: n,
    xyz: Float32Array.from(pts.flatMap((p) => [p[0], p[1], p[2]])),
    rgb: new Uint8Array(3 * n),
    confidence: new Float32Array(n).fill(1),
    view: Uint16Array.from(pts.map((p) => p[4])),
    // one pixel per point, all on the ray grid: every point is a ray from its view's camera
    pixel: new Uint32Array(n),
    instance: Uint16Array.from(pts.map((p) => p[3])),
    categories: new Map([
      [1, "floor"],
      [2, "wall"],
    ]),
    imageWidth: 1,
    imageHeight: 1,
    source: "gt",
    meta:
      opts.cameras === false
        ? {}
        : {
            cameraCentres: [
              [0, 1.5, 1.5, 1.35],
              [1, 4.5, 1.5, 1.35],
            ],
          },
  };
  return cloud;
}

/** Furniture nodes that name the two rooms: a sofa in A (living room), a wardrobe in B (bedroom). */
const nodes = [
  { id: "n0", label: "sofa", centroid: [0.6, 1.5, 0.4], point_count: 500 },
  { id: "n1", label: "wardrobe", centroid: [5.5, 1.5, 0.9], point_count: 500 },
] as unknown as GraphNode[];

describe("region layer: what the views show, no more", () => {
  it("a wall seen closed parts two rooms; a doorway seen through joins them; a gap no view saw through is unknown", () => {
    const closed = segmentRegions(plan({}), nodes)!;
    expect(closed.rooms.map((r) => r.id).sort()).toEqual(["bedroom_0", "living_room_0"]);
    expect(closed.doorways).toEqual([]);
    expect(closed.separations).toEqual([{ rooms: expect.arrayContaining(["bedroom_0", "living_room_0"]), by: "wall" }]);
    expect(closed.rooms.every((r) => r.enclosed)).toBe(true);

    const door = segmentRegions(plan({ gap: [1, 2], through: true }), nodes)!;
    expect(door.doorways).toHaveLength(1);
    expect(door.doorways[0]!.rooms.sort()).toEqual(["bedroom_0", "living_room_0"]);
    expect(door.doorways[0]!.width_m).toBeGreaterThanOrEqual(0.6);
    expect(door.doorways[0]!.centre[0]).toBeCloseTo(3, 0);
    expect(door.doorways[0]!.centre[1]).toBeCloseTo(1.5, 0);
    expect(door.separations).toEqual([]);

    // the same gap, seen by no ray (an occluder, a view that looked elsewhere): neither joined nor apart
    const unseen = segmentRegions(plan({ gap: [1, 2] }), nodes)!;
    expect(unseen.doorways).toEqual([]);
    expect(unseen.separations).toEqual([]);
    // (what is unknown lies between the two: no room the layer lacks can be behind it)
    expect(unseen.rooms.map((r) => r.enclosed)).toEqual([true, true]);
  });

  it("without cameras, floor seen on both sides of a gap with no wall on it is the opening", () => {
    const door = segmentRegions(plan({ gap: [1, 2], through: true, cameras: false }), nodes)!;
    expect(door.doorways.map((d) => d.rooms.sort())).toEqual([["bedroom_0", "living_room_0"]]);
    expect(segmentRegions(plan({ cameras: false }), nodes)!.doorways).toEqual([]);
  });

  it("one room seen is a layer of one room; no floor or wall at all is none", () => {
    const layer = segmentRegions(plan({ views: [0] }), nodes)!;
    expect(layer.rooms.map((r) => r.id)).toEqual(["living_room_0"]);
    // the wall to B seen closed, the rest of A's boundary too: no room the layer lacks is A's neighbour
    expect(layer.rooms[0]!.enclosed).toBe(true);
    expect(segmentRegions({ ...plan({}), categories: new Map() }, nodes)).toBeNull();
  });
});

describe("region layer", () => {
  const task = generateTask("long_term_navigation", "regions-test", 0);
  const bundle = renderBundle(task, "gt");

  it("the ground-truth graph carries the true rooms, doorways, rooms apart and object rooms, and parses", () => {
    const g = truthGraph(task);
    expect(SceneGraphSchema.parse(g).regions!.rooms.map((r) => r.id)).toEqual(task.room.layout!.rooms.map((r) => r.id));
    expect(g.regions!.rooms.every((r) => r.enclosed)).toBe(true);
    // four rooms: three doorways (a spanning tree) and three pairs apart, one by a wall, two diagonal
    expect(g.regions!.doorways).toHaveLength(3);
    expect(g.regions!.separations!.map((s) => s.by).sort()).toEqual(["no_shared_wall", "no_shared_wall", "wall"]);
    for (const o of task.objects) {
      const room = g.regions!.rooms.find((r) => r.objects.includes(`o${o.id}`));
      expect(room?.id).toBe(roomAt(task.room.layout!.rooms, o.position[0], o.position[1]));
    }
    const d = diagnoseRegions(g.regions, task.room.layout!, [], task.objects);
    expect(d.metrics).toMatchObject({
      room_precision: 1,
      room_recall: 1,
      room_name_accuracy: 1,
      doorway_precision: 1,
      doorway_recall: 1,
      separation_precision: 1,
    });
  });

  it("segments the rooms gt-depth clouds show: every room, doorway and pair apart it claims is right", async () => {
    // measured on these 4 tasks at this commit: each gt walk shows 3 of the 4 rooms and 2 of the 3 doorways
    const metrics = [0, 1, 2, 3].map((i) => {
      const t = generateTask("long_term_navigation", "regions-test", i);
      const b = renderBundle(t, "gt");
      const regions = segmentRegions(backprojectViews(b.views, bundleCategories(b), {}), truthGraph(t).nodes);
      return diagnoseRegions(regions ?? undefined, t.room.layout!, [], t.objects).metrics;
    });
    for (const m of metrics) expect(m).toMatchObject({ room_precision: 1, room_name_accuracy: 1, doorway_precision: 1 });
    for (const m of metrics) expect([null, 1]).toContain(m.separation_precision);
    const mean = (f: (m: (typeof metrics)[number]) => number) => metrics.reduce((s, m) => s + f(m), 0) / metrics.length;
    expect(mean((m) => m.room_recall)).toBeGreaterThanOrEqual(0.75);
    expect(mean((m) => m.doorway_recall ?? 0)).toBeGreaterThanOrEqual(0.6);
    // the pipeline attaches the layer to the graph, the diagnosis scores it, the prompt shows it
    const res = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt" }));
    expect(SceneGraphSchema.parse(res.graph).regions).toBeDefined();
    expect(res.diagnosis!.regions!.metrics.room_recall).toBeGreaterThan(0);
    const text = serializeGraph(res.graph, { format: "text", uncertainty: false });
    expect(text).toContain("Rooms:");
    expect(text).toMatch(/A doorway at|No doorway was found/);
    const json = serializeGraph(res.graph, { format: "relations", uncertainty: false });
    expect(json).toContain("Doorways (JSON list):");
  }, 180_000);

  it("a noisy cloud's smeared walls part no rooms they cannot show closed", async () => {
    // measured at this commit on these 2 tasks: 1 and 2 doorways right (and 1 wrong), no pair apart: the walls a
    // noisy cloud smears half a doorway wide or more are never shown closed
    let right = 0;
    for (const i of [0, 2]) {
      const t = generateTask("long_term_navigation", "regions-test", i);
      const res = await graphOfBundle(renderBundle(t, "gt"), GraphPipelineOptionsSchema.parse({ source: "noisy" }));
      const d = res.diagnosis!.regions!;
      expect(d.separations!.filter((s) => !s.correct)).toEqual([]);
      right += d.doorways.filter((x) => x.correct).length;
    }
    expect(right).toBeGreaterThanOrEqual(3);
  }, 180_000);

  it("with --masks none, floor and walls come from the geometry, never the cloud's labels", async () => {
    const t = generateTask("long_term_navigation", "regions-test", 2);
    const b = renderBundle(t, "gt");
    const cloud = backprojectViews(b.views, bundleCategories(b), {});
    const structure = segmentStructure(cloud.xyz).mask;
    const nodes = truthGraph(t).nodes;
    const fromGeometry = segmentRegions(cloud, nodes, 0, structure);
    const unlabelled = { ...cloud, categories: new Map<number, string>() };
    expect(segmentRegions(unlabelled, nodes, 0)).toBeNull();
    expect(segmentRegions(unlabelled, nodes, 0, structure)).toEqual(fromGeometry);
    const res = await graphOfBundle(b, GraphPipelineOptionsSchema.parse({ source: "gt", masks: "none", instances: "dbscan" }));
    // measured at this commit: the rooms the walk shows, found from the geometry alone (no names: no labels)
    expect(res.diagnosis!.regions!.metrics.room_precision).toBe(1);
    expect(res.diagnosis!.regions!.metrics.room_recall).toBeGreaterThanOrEqual(0.5);
  }, 120_000);

  it("a graph whose views show no room says so in a note that names its task, views and cloud", async () => {
    // the floor and walls relabelled as objects: a cloud with no structure to read rooms from
    const hidden = {
      ...bundle,
      views: [...bundle.views],
      manifest: { ...bundle.manifest, instances: bundle.manifest.instances.map((e) => (e.structure ? { ...e, category: "vase", structure: false } : e)) },
    };
    const res = await graphOfBundle(hidden, GraphPipelineOptionsSchema.parse({ source: "gt" }), { diagnose: false });
    expect(res.notes).toContain(`region layer of ${task.task_id} (gt views, gt cloud): the views show no room (too little floor or wall)`);
    expect(
      (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt" }), { diagnose: false })).notes.filter((n) => n.startsWith("region layer")),
    ).toEqual([]);
  }, 60_000);

  it("a diagnosis counts a wrong doorway, a wrong pair apart and a missed room", () => {
    const g = truthGraph(task);
    const r = structuredClone(g.regions!);
    const [a, b] = [r.rooms[0]!.id, r.rooms[3]!.id];
    r.doorways.push({ rooms: [a, b], centre: [0, 0], width_m: 1 });
    const joined = r.doorways[0]!.rooms;
    r.separations!.push({ rooms: [joined[0], joined[1]], by: "wall" });
    r.rooms.pop();
    r.doorways = r.doorways.filter((d) => d.rooms.every((x) => r.rooms.some((y) => y.id === x)));
    r.separations = r.separations!.filter((d) => d.rooms.every((x) => r.rooms.some((y) => y.id === x)));
    const d = diagnoseRegions(r, task.room.layout!, [], task.objects);
    expect(d.missed_rooms).toEqual([task.room.layout!.rooms[3]!.id]);
    expect(d.metrics.room_recall).toBe(0.75);
    expect(d.separations!.filter((s) => !s.correct).map((s) => s.rooms)).toEqual([joined]);
  });
});
