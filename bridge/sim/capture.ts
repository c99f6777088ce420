/** Renders a task's views for a paradigm into a frame bundle. */
import { intrinsicsFromHfov, poseToExtrinsic } from "../../core/math/camera.js";
import type { Task } from "../../core/task/schema.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest, type Paradigm } from "../../core/bundle/schema.js";
import type { FrameBundle, ViewPayload } from "../../core/bundle/io.js";
import { reflectionFileNames, viewData, viewFileNames } from "../../core/bundle/io.js";
import { buildScene } from "./scene.js";
import { render, type RenderOutput } from "./raster.js";
import { paradigmViews, type PlannedView } from "./views.js";
import { Hands, worldTruth } from "./manipulation/hands.js";
import { idCounts } from "../../core/idTally.js";
import type { WorldTruth } from "../env/types.js";
import { taskPhysics } from "./physics/taskWorld.js";
import { isNavigationAction, parseAgentAction } from "../../core/task/actions.js";
import { taskPhases } from "../../core/task/phases.js";

export const BUILTIN_SIMULATOR = "esi3d-builtin/1";

export interface CapturedBundle {
  manifest: BundleManifest;
  payloads: ViewPayload[];
}

/** The hands of a trajectory that manipulates (null for one that only looks): the world it changes, view by view. */
function trajectoryHands(task: Task, planned: readonly PlannedView[], objects: Task["objects"] = task.objects): Hands | null {
  const acts = planned.some((pv) => pv.action !== null && !isNavigationAction(pv.action));
  return acts ? new Hands(objects, task.room.size, taskPhysics(task)) : null;
}

/** Applies a trajectory's manipulation, which must succeed: a ground-truth trajectory that fails is a broken task. */
function applyTrajectoryAction(task: Task, hands: Hands, pv: PlannedView, i: number, visible: ReadonlyMap<number, number>): void {
  const p = parseAgentAction(pv.action!, "all");
  if ("error" in p || p.action.kind !== "hands")
    throw new Error(`${task.task_id}: action_trajectory[${i - 1}] "${pv.action}": ${"error" in p ? p.error : "not a manipulation"}`);
  const r = hands.apply(
    p.action.name,
    p.action.objects.map((text) => ({ text })),
    pv.pose,
    visible,
  );
  if (!r.ok) throw new Error(`${task.task_id}: action_trajectory[${i - 1}] "${pv.action}" fails in the built-in simulator: ${r.result}`);
}

export function captureBundle(task: Task, paradigm: Paradigm): CapturedBundle {
  let scene = buildScene(task);
  // the mirrors as the task places them (no built-in action moves a mirror)
  const mirrors = scene.mirrors.map((m) => m.plane);
  const { width, height, hfov_deg } = task.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  const planned = paradigmViews(task, paradigm);
  const payloads: ViewPayload[] = [];
  const views: BundleManifest["views"] = [];
  // a trajectory that comes back to a pose (a turn and its undoing: 133 of the suite's 1710 multi views)
  // sees the same image: it is copied, not rendered again (its own arrays, so no view aliases another's);
  // once the hands change the world, the pose alone no longer says what is seen
  const renderedAt = new Map<string, ViewPayload>();
  const phases = taskPhases(task);
  // every phase's objects, by id: the instance table covers what any view may show
  const categories = new Map(scene.categories);
  let phase = 0;
  let hands = trajectoryHands(task, planned);
  let visible = new Map<number, number>();
  planned.forEach((pv, i) => {
    if ((pv.phase ?? 0) !== phase) {
      // the world changed while no one looked: the next phase's objects, the hands' changes undone
      phase = pv.phase!;
      const objects = phases[phase]!.objects;
      scene = buildScene({ ...task, objects });
      for (const [id, c] of scene.categories) categories.set(id, c);
      hands = trajectoryHands(task, planned, objects);
      renderedAt.clear();
    }
    if (hands && pv.action !== null) {
      if (isNavigationAction(pv.action)) hands.carry(pv.pose);
      else applyTrajectoryAction(task, hands, pv, i, visible);
      scene = buildScene({ ...task, objects: hands.current() });
      for (const [id, c] of scene.categories) categories.set(id, c);
      renderedAt.clear();
    }
    const E = poseToExtrinsic(pv.pose);
    const key = E.flat().join(" ");
    const seen = renderedAt.get(key);
    if (seen) payloads.push(copyPayload(seen));
    else {
      const payload = payloadOf(render(scene, { width, height, K, E }));
      renderedAt.set(key, payload);
      payloads.push(payload);
    }
    if (hands) visible = idCounts(payloads.at(-1)!.ids);
    const reflection = payloads.at(-1)!.reflectedIds ? { reflection: reflectionFileNames(i) } : {};
    const stamp = pv.phase === undefined ? {} : { phase: pv.phase };
    views.push({ index: i, ...viewFileNames(i), intrinsics: K, extrinsic: E, action: pv.action, ...reflection, ...stamp });
  });
  const instances = [...categories.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([id, category]) => ({ id, category, structure: category === "floor" || category === "wall" }));
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    task_id: task.task_id,
    paradigm,
    // a proxy task names itself ("esi3d-builtin/1 proxy of ..."): the bundle says it is a proxy render
    simulator: task.proxy ? task.simulator : BUILTIN_SIMULATOR,
    image: { width, height },
    conventions: BUNDLE_CONVENTIONS,
    views,
    instances,
    task,
  };
  if (mirrors.length) manifest.mirrors = mirrors;
  return { manifest, payloads };
}

/** A rendered view's pixels, with its reflection images when the scene has mirrors. */
export function payloadOf(out: RenderOutput): ViewPayload {
  const { rgb, depth, ids, reflectedIds, reflectedDepth } = out;
  return reflectedIds && reflectedDepth ? { rgb: rgb!, depth, ids, reflectedIds, reflectedDepth } : { rgb: rgb!, depth, ids };
}

/** A copy of a view's pixels in arrays of its own. */
function copyPayload(p: ViewPayload): ViewPayload {
  const { rgb, depth, ids, reflectedIds, reflectedDepth } = p;
  const copy = { rgb: rgb.slice(), depth: depth.slice(), ids: ids.slice() };
  return reflectedIds && reflectedDepth ? { ...copy, reflectedIds: reflectedIds.slice(), reflectedDepth: reflectedDepth.slice() } : copy;
}

/** Renders a task's views into an in-memory bundle (nothing is written to disk). */
export function renderBundle(task: Task, paradigm: Paradigm): FrameBundle {
  const { manifest, payloads } = captureBundle(task, paradigm);
  return { dir: "", manifest, views: payloads.map((p, i) => viewData(manifest, i, p)) };
}

/**
 * Where the objects are after a task's ground-truth trajectory, when it acts (open, lift: gtReveal.ts), and which
 * moved; null for a trajectory that only looks. The diagnosis of a gt graph judges it against this world (a lifted
 * cloth is in the hand, not on what it covered). Renders only the views an act needs (the view it is done from).
 */
export function gtTrajectoryEnd(task: Task): WorldTruth | null {
  // a changing world's trajectory is replayed in each phase: what it leaves is the last phase's world, changed
  const last = taskPhases(task).at(-1)!;
  const planned = paradigmViews(task, "gt").filter((pv) => (pv.phase ?? 0) === last.index);
  const hands = trajectoryHands(task, planned, last.objects);
  if (!hands) return null;
  const { width, height, hfov_deg } = task.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  planned.forEach((pv, i) => {
    if (pv.action === null) return;
    if (isNavigationAction(pv.action)) return hands.carry(pv.pose);
    const before = planned[i - 1]!;
    const out = render(buildScene({ ...task, objects: hands.current() }), { width, height, K, E: poseToExtrinsic(before.pose) });
    applyTrajectoryAction(task, hands, pv, i, idCounts(out.ids));
  });
  return worldTruth(last.objects, hands.current());
}
