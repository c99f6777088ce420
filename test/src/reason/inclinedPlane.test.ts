/**
 * Inclined Plane's offline programs (src/reason/slopePrior.ts, symbolic.ts, symbolic2d.ts): the 3D program reads the
 * board's tilt from its node's fitted top plane, the object's shape from its label (a flat bottom or none) and its
 * node's box (tips past atan(width / height)), and takes friction from a named prior; the 2D program sees the board
 * but no tilt, and the object's label and mask; both decline where no board is seen; neither reads the friction,
 * the outcome or the label.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { loadPhysics } from "../../../bridge/sim/physics/world.js";
import type { Task } from "../../../core/task/schema.js";
import { backprojectViews } from "../../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../../reconstruct/categories.js";
import { buildSceneGraph } from "../../../scenegraph/build.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import {
  CRITICAL_TILT_DEG,
  MEDIAN_STATIC_FRICTION,
  rollsByShape,
  stayChance,
  stayChanceUnseenTiltBelow,
  tippingTiltDeg,
} from "../../../src/reason/slopePrior.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { bundleOf } from "../../scenegraph/helpers.js";

/** How far (degrees) the tilt fitted on a graph may be from the tilt the generator recorded. */
const TRUTH_TILT_TOL_DEG = 1;
const DEPTH_TILT_TOL_DEG = 3;

const N = 6;
let tasks: Task[] = [];
const recordedTilt = (t: Task) => (t.label_metadata as { slope_tilt_deg: number }).slope_tilt_deg;
const boardOf = (g: SceneGraph) => g.nodes.find((n) => n.label === "slope");
/** The task with its board taken away: what a scene without one gives the programs. */
const withoutBoard = (t: Task): Task => ({
  ...t,
  objects: t.objects.filter((o) => o.category !== "slope"),
  relevant_object_ids: t.relevant_object_ids.filter((id) => t.objects.find((o) => o.id === id)?.category !== "slope"),
});
/** The hidden records scrambled: another friction, another outcome. No program may answer differently. */
const scrambled = (t: Task): Task => ({ ...t, label_metadata: { ...t.label_metadata, static_friction: 0.01, outcome: "falls", slide_distance_m: 1 } });

beforeAll(async () => {
  await loadPhysics();
  tasks = Array.from({ length: N }, (_, i) => generateTask("inclined_plane", "slope-programs", i));
});

describe("the friction prior", () => {
  it("is ESI's static friction U[0.3, 3.0]: median 1.65, critical tilt atan(1.65) = 58.8 deg, where the chance of staying is one half", () => {
    expect(MEDIAN_STATIC_FRICTION).toBe(1.65);
    expect(CRITICAL_TILT_DEG).toBeCloseTo(58.78, 2);
    expect(stayChance(CRITICAL_TILT_DEG)).toBeCloseTo(0.5, 9);
    // tan 45 = 1: friction above 1 in (3 - 1) / 2.7 of the draws
    expect(stayChance(45)).toBeCloseTo(2 / 2.7, 9);
    expect(stayChance(10)).toBe(1);
    expect(stayChance(80)).toBe(0);
  });
});

describe("shape before friction", () => {
  it("a label without a flat bottom rolls (balls, fruit, eggs); cans, bowls and dice stand; a cube tips past 45 deg", () => {
    for (const c of ["tennis_ball", "basketball", "apple", "egg", "pear"]) expect(rollsByShape(c), c).toBe(true);
    for (const c of ["can", "bowl", "pot", "dice", "jar", "mug"]) expect(rollsByShape(c), c).toBe(false);
    expect(rollsByShape("not_a_category")).toBeNull();
    expect(tippingTiltDeg(1, 1)).toBeCloseTo(45, 9);
    // a can 6.6 cm wide and 12 cm tall tips past 28.8 deg
    expect(tippingTiltDeg(0.066, 0.12)).toBeCloseTo(28.81, 2);
    // the 2D arm's chance with the tilt unseen: nothing stays past a tipping tilt under 10 deg, all of the prior's below 45
    expect(stayChanceUnseenTiltBelow(5)).toBe(0);
    expect(stayChanceUnseenTiltBelow(50)).toBeGreaterThan(stayChanceUnseenTiltBelow(30));
  });
});

describe("Inclined Plane's 3D program", () => {
  const s3 = createSymbolicReasoner();

  it("on the ground-truth graph: the board's fitted tilt is the recorded one within 1 deg, and the answer is the prior's at that tilt", async () => {
    for (const task of tasks) {
      const graph = truthGraph(task);
      const tilt = boardOf(graph)!.physics!.top_tilt_deg!;
      expect(Math.abs(tilt - recordedTilt(task)), task.task_id).toBeLessThan(TRUTH_TILT_TOL_DEG);
      const a = await s3.answer({ task, graph });
      expect(a.status, a.raw.join("\n")).toBe("parsed");
      // the object's node: a roller or a tipper falls whatever the friction; else the friction prior at this tilt
      const object = task.objects.find((o) => o.role === "target")!;
      const node = graph.nodes.find((n) => n.id === `o${object.id}`)!;
      const tips = tilt > tippingTiltDeg(Math.min(node.box.extent[0], node.box.extent[1]), node.physics!.height_m);
      const chance = rollsByShape(node.label) || tips ? 0 : stayChance(tilt);
      expect(a.answer, a.raw.join("\n")).toBe(chance >= 0.5 ? "yes" : "no");
      expect(a.confidence).toBeCloseTo(Math.max(chance, 1 - chance), 3);
      expect(a.raw.join("\n")).toMatch(new RegExp(`top tilted ${tilt} deg`));
      const b = await s3.answer({ task: scrambled(task), graph });
      expect([b.answer, b.confidence]).toEqual([a.answer, a.confidence]);
    }
  });

  it("on the graph of the rendered gt depth: the board's tilt within 3 deg of the recorded one", async () => {
    const task = tasks[0]!;
    const b = bundleOf(task, "gt");
    const structure = new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const cloud = backprojectViews(b.views, bundleCategories(b), { excludeIds: structure });
    const graph = buildSceneGraph(cloud, b, { masks: "instance", instances: "fusion" }).graph;
    const tilt = boardOf(graph)!.physics!.top_tilt_deg!;
    expect(Math.abs(tilt - recordedTilt(task))).toBeLessThan(DEPTH_TILT_TOL_DEG);
    const a = await s3.answer({ task, graph });
    expect(a.status, a.raw.join("\n")).toBe("parsed");
    expect(a.raw.join("\n")).toMatch(/it rolls|tips past/);
  }, 120_000);

  it("declines where the graph has no board, or its board no tilt (a graph written before the physical attributes)", async () => {
    const task = tasks[0]!;
    const none = await s3.answer({ task, graph: truthGraph(withoutBoard(task)) });
    expect(none.status).toBe("unanswerable");
    expect(none.reason).toMatch(/slope is not in the graph/);
    const old = truthGraph(task);
    delete boardOf(old)!.physics;
    const a = await s3.answer({ task, graph: old });
    expect(a.status).toBe("unanswerable");
    expect(a.reason).toMatch(/no physical attributes/);
  });
});

describe("Inclined Plane's 2D program", () => {
  const s2 = createSymbolic2dReasoner();

  it("sees the board but no tilt: the object's shape and the tilt's prior, whatever the hidden records say", async () => {
    const task = tasks[1]!;
    const bundle = bundleOf(task, "single");
    const a = await s2.answer({ task, bundle });
    expect(a.status, a.raw.join("\n")).toBe("parsed");
    // the object's label and its mask's aspect: it rolls, or a tipping tilt weighs the tilt's prior
    expect(a.raw.join("\n")).toMatch(/its tilt is not measured in pixels|it rolls/);
    const b = await s2.answer({ task: scrambled(task), bundle });
    expect([b.answer, b.confidence]).toEqual([a.answer, a.confidence]);
  }, 60_000);

  it("declines where no view shows a board", async () => {
    const task = withoutBoard(tasks[1]!);
    const a = await s2.answer({ task, bundle: bundleOf(task, "single") });
    expect(a.status).toBe("unanswerable");
    expect(a.reason).toMatch(/no view shows the slope/);
  }, 60_000);
});
