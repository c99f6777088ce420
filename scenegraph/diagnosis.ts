/**
 * Quality diagnosis of a scene graph against the ground truth: what users come to inspect.
 *
 * Every node is traced to the simulator ids of its pixels (each cloud point keeps the instance id of the
 * pixel it came from, for every source, VGGT included). From those shares:
 *  - hallucinated: less than HALLUCINATED_MAX_OBJECT_SHARE of its points show any true object (they
 *    show floor, walls, background, or nothing: flying pixels, blobs);
 *  - merged: a second true object holds at least MERGED_MIN_SECOND_SHARE of its points, or no object holds
 *    a majority while several hold at least MERGED_MIN_PART_SHARE each;
 *  - hallucinated too: a node farther than NEAR_OBJECT_M from its dominant object's true box (near no
 *    true object: displaced geometry, floating blobs);
 *  - otherwise a candidate for its dominant object. Candidates are matched one-to-one to true objects by
 *    the Hungarian method on point IoU (gated by purity >= MATCH_MIN_PURITY); a candidate left over is a
 *    duplicate of its dominant object (its points belong to a true object that already has a match).
 *  - stale: when the agent moved objects (issue 46), a candidate of a moved object whose centroid lies near
 *    where the object was (within NEAR_OBJECT_M of its box there) and not near where it is: a memory that
 *    kept the object's old points. Stale nodes are not matched; geometry is judged at the current poses.
 *  - mirror_ghost: in a scene with mirrors, a node behind a mirror's plane, seen through its rectangle from a
 *    camera, whose points show (in the bundle's reflection images) mostly one true object, by the same share
 *    rules, and whose centroid lies within NEAR_OBJECT_M of that object's box reflected about the plane: a
 *    reflection taken for geometry. Also a mirror ghost, "on the plane": a node not labelled a mirror whose points
 *    lie on a mirror (its dominant object, by the share rules and the gate) and show mostly one true object in
 *    the reflection images: a segmenter labels a reflection as the object it shows, and a source that keeps
 *    mirror pixels on the glass (gt) makes a node of them there, for an object that is not there. Settled before
 *    the gate, a ghost is neither matched nor hallucinated, so the mirror's own node stays the mirror's match.
 * True objects left unmatched are missed-unseen (no view shows them) or missed-lost (seen, not recovered).
 * Relations are compared after mapping node ids to true ids (duplicates map to their object).
 */
import { diagnoseRegions } from "./regionDiagnosis.js";
import type { Vec3 } from "../core/math/vec.js";
import type { FrameBundle } from "../core/bundle/io.js";
import type { Task, TaskObject } from "../core/task/schema.js";
import { worldAtLastPhase } from "../core/task/phases.js";
import { isPhased, viewPhases } from "../core/bundle/viewPhases.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { objectBox } from "../core/objects/geometry.js";
import { MIRROR_CATEGORY, mirrorPlane, reflectPoint, seenThroughMirror, signedPlaneDistance } from "../core/objects/mirror.js";
import type { MirrorPlane } from "../core/bundle/schema.js";
import { cameraCentre } from "../core/math/camera.js";
import { pointBoxDistance } from "../core/geometry.js";
import { countEachId, tallyIds, type IdTally } from "../core/idTally.js";
import { MIN_MASK_AREA_PX } from "./evidence.js";
import { hungarian } from "./primitives/hungarian.js";
import type { GraphNode, Relation, SceneGraph } from "./types.js";
import { nodeCause } from "./causes.js";
import type { Diagnosis, GraphMetrics, NodeDiagnosis, NodeStatus, ObjectDiagnosis, PredicateScore, RelationDiagnosis } from "./diagnosisSchema.js";

/**
 * Ours, in the overlap-based classification graph evaluations use (3DSSG-style point overlaps): a node whose
 * points are < 20 % on true objects is a hallucination.
 */
export const HALLUCINATED_MAX_OBJECT_SHARE = 0.2;
/** A node with a second true object holding >= 25 % of its points covers two objects: merged. */
export const MERGED_MIN_SECOND_SHARE = 0.25;
/** Also merged: no object holds a majority while several hold >= 10 % each (a pile fused into one node). */
export const MERGED_MIN_PART_SHARE = 0.1;
/** 3DSSG corr_thres: a node matches its dominant object only when > 50 % of its points are that object's. */
export const MATCH_MIN_PURITY = 0.5;
/**
 * Geometric gate: a node belongs to an object only when its centroid lies within this distance of the
 * object's true box (m). Farther away it is "near no true object" (a displaced copy, a floating blob):
 * hallucinated, whatever pixels its points came from.
 */
export const NEAR_OBJECT_M = 0.3;

/**
 * A mirror ghost lies farther than this behind the mirror's plane (m): nearer, its centroid is within the
 * geometric gate's reach of the mirror itself.
 */
const GHOST_MIN_BEHIND_M = NEAR_OBJECT_M;
/**
 * How far outside the mirror's rectangle (m) the line from a camera to a ghost's centroid may cross the plane: a
 * centroid within the gate's NEAR_OBJECT_M of a point seen through the mirror crosses it no farther than that
 * from the rectangle (the plane lies between camera and point, so the crossing moves less than the point).
 */
const GHOST_RECTANGLE_MARGIN_M = NEAR_OBJECT_M;

/**
 * The rules that settle a node before the one-to-one match, in the order the diagnosis applies them, with
 * the status each gives (the viewer's explanations name them: src/apps/viewer/explain.ts).
 */
export const PRE_MATCH_RULES = {
  low_object_share: "hallucinated",
  second_object: "merged",
  no_majority: "merged",
  far_from_object: "hallucinated",
  /** far from where its moved object is, near where it was (the same gate, told of the move) */
  left_behind: "stale",
  /** its points show an object that a later phase of a changing world no longer holds (removed or replaced) */
  gone_since: "stale",
  /** behind a mirror, seen through it, where a true object's reflection is (applied before the gate) */
  seen_in_mirror: "mirror_ghost",
  /** on a mirror's glass, labelled as what the glass reflects, not as the mirror (applied before the gate) */
  reflection_on_mirror: "mirror_ghost",
} as const satisfies Record<string, NodeStatus>;
export type PreMatchRule = keyof typeof PRE_MATCH_RULES;

/**
 * Which rule made a mirror ghost: behind the mirror's plane by more than GHOST_MIN_BEHIND_M (seen through it), or
 * on the glass (nearer: the on-plane rule, which needs the node within the gate of the mirror itself).
 */
export function mirrorGhostRule(
  mirror: Pick<TaskObject, "id" | "position" | "orientation" | "extent">,
  centroid: Vec3,
): "seen_in_mirror" | "reflection_on_mirror" {
  return signedPlaneDistance(mirrorPlane(mirror), centroid) < -GHOST_MIN_BEHIND_M ? "seen_in_mirror" : "reflection_on_mirror";
}

/**
 * Phase 1's rule for a node from its points: `objectShare` on any true object, `shares` per true object
 * (largest first). Null: a candidate, for the geometric gate and the match.
 */
export function shareRuleOf(objectShare: number, shares: readonly number[]): "low_object_share" | "second_object" | "no_majority" | null {
  if (objectShare < HALLUCINATED_MAX_OBJECT_SHARE) return "low_object_share";
  if (shares.length > 1 && shares[1]! >= MERGED_MIN_SECOND_SHARE) return "second_object";
  if (shares.length > 1 && shares[0]! < MATCH_MIN_PURITY && shares.filter((x) => x >= MERGED_MIN_PART_SHARE).length >= 2) return "no_majority";
  return null;
}

/** Phase 2's gate: a centroid this far (m) from its dominant object's true box is near no true object. */
export const isFarFromObject = (distanceM: number): boolean => distanceM > NEAR_OBJECT_M;

/** Predicates that hold both ways; a graph states them once per pair. */
const SYMMETRIC: ReadonlySet<string> = new Set(["touching", "near"]);

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const f1 = (p: number, r: number) => (p + r > 0 ? (2 * p * r) / (p + r) : 0);

/** Instance ids are 16-bit (PointCloud.instance is a Uint16Array): one counter per possible id. */
const ID_COUNTERS = 65536;

/** Pixels per instance id over all views of a bundle (`total[id]`), and the most it shows in any one view. */
interface Observed {
  total: Uint32Array;
  maxPerView: Uint32Array;
}

const observedCache = new WeakMap<object, Observed>();

function observedPixels(bundle: Pick<FrameBundle, "views">): Observed {
  const cached = observedCache.get(bundle.views);
  if (cached) return cached;
  const total = new Uint32Array(ID_COUNTERS),
    maxPerView = new Uint32Array(ID_COUNTERS),
    inView = new Uint32Array(ID_COUNTERS);
  for (const v of bundle.views) {
    countEachId(v.ids, inView);
    foldView(inView, total, maxPerView);
  }
  const observed = { total, maxPerView };
  observedCache.set(bundle.views, observed);
  return observed;
}

/** Adds a view's pixels per id into the bundle's totals and maxima, and clears them (id 0, no object, is left out). */
function foldView(inView: Uint32Array, total: Uint32Array, maxPerView: Uint32Array): void {
  inView[0] = 0;
  for (let id = 1; id < ID_COUNTERS; id++) {
    const n = inView[id]!;
    if (n === 0) continue;
    inView[id] = 0;
    total[id]! += n;
    if (n > maxPerView[id]!) maxPerView[id] = n;
  }
}

/** An object the agent moved during the episode: its pose before the first move and now. */
export interface ObjectMove {
  id: number;
  from: Pick<TaskObject, "position" | "orientation">;
  to: Pick<TaskObject, "position" | "orientation">;
}

/** The object at one of a move's poses (where it was, or where it is now). */
const atPose = (o: TaskObject, pose: ObjectMove["from"]): TaskObject => ({
  ...o,
  position: [...pose.position] as Vec3,
  orientation: { ...pose.orientation },
});

/**
 * The world a graph is judged against: the objects where they are now (a changing world's last phase, then the
 * agent's moves), every earlier place of each that moved (its stale nodes are near one), and the objects a later
 * phase no longer holds (removed or replaced). The diagnosis and the viewer's explanations read it alike.
 */
export function judgedWorld(
  task: Pick<Task, "objects" | "agent_initial" | "phases">,
  moved: readonly ObjectMove[] = [],
): { objects: TaskObject[]; movedFrom: Map<number, TaskObject[]>; gone: TaskObject[] } {
  const end = worldAtLastPhase(task);
  const moves = new Map(moved.map((m) => [m.id, m]));
  const movedFrom = new Map(end.earlierPlaces);
  const objects = end.objects.map((o) => {
    const m = moves.get(o.id);
    if (!m) return o;
    movedFrom.set(o.id, [...(movedFrom.get(o.id) ?? []), atPose(o, m.from)]);
    return atPose(o, m.to);
  });
  return { objects, movedFrom, gone: end.gone };
}

export interface DiagnoseInput {
  graph: SceneGraph;
  /** Objects moved since the task began (the active paradigm's manipulations); the task's objects are where they began. */
  moved?: readonly ObjectMove[];
  /** Raw cloud point indices per node (same order as graph.nodes). */
  members: Uint32Array[];
  cloud: PointCloud;
  task: Task;
  /** the manifest's views say which phase each view saw, for a changing world (absent: none) */
  bundle: Pick<FrameBundle, "views"> & { manifest?: Pick<FrameBundle["manifest"], "views"> };
  /** Relations of the ground-truth graph, with node ids "o<objectId>". */
  trueRelations: readonly Relation[];
}

/** What the node and object phases read: everything but the true relations. */
export type NodeDiagnoseInput = Omit<DiagnoseInput, "trueRelations">;

/** The metrics of nodes and objects; the relation metrics are the rest of GraphMetrics. */
export type NodeMetrics = Omit<GraphMetrics, RelationMetricKey>;
type RelationMetricKey = "relations" | "relation_precision" | "relation_recall";

/** Distance (m) from a point to an object's true yaw box (0 inside). */
export function pointObjectDistance(p: Vec3, obj: TaskObject): number {
  return pointBoxDistance(p, objectBox(obj));
}

function extentError(node: GraphNode, obj: TaskObject): number {
  // compare sorted horizontal extents and the height, so the box's own axis order does not matter
  const a = [...node.box.extent.slice(0, 2)].sort((x, y) => x - y),
    b = [...obj.extent.slice(0, 2)].sort((x, y) => x - y);
  return (Math.abs(a[0]! - b[0]!) + Math.abs(a[1]! - b[1]!) + Math.abs(node.box.extent[2] - obj.extent[2])) / 3;
}

/** A node's points per instance id: the ids its points show, in order of first appearance, and how many show each. */
type ShareCounts = IdTally;

/** The points of `ids` showing `id` (0 when none). */
const shareOf = (s: ShareCounts, id: number): number => {
  const j = s.ids.indexOf(id);
  return j < 0 ? 0 : s.counts[j]!;
};

/** What every phase of the diagnosis looks up: the task's objects by id, and each node's points per instance id. */
interface DiagnosisContext {
  input: NodeDiagnoseInput;
  objects: TaskObject[];
  objIndex: Map<number, number>;
  /** per node: its points per instance id */
  shareCounts: ShareCounts[];
  /** per instance id (16-bit): the cloud's points showing it; for a true object, its observed points */
  cloudPointsOf: Uint32Array;
  /** moved objects by id: where each was before (objects holds where it is) */
  movedFrom: Map<number, TaskObject[]>;
  /** objects of an earlier phase that the last phase no longer holds (removed, replaced) */
  gone: TaskObject[];
  /** the task's mirrors (where they are now): empty for a scene without any */
  mirrors: MirrorPlane[];
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const { ctx, nodeDiag, objDiag, observed } = diagnoseNodesAndObjects(input);
  recordCauses(input, nodeDiag);
  const { relDiag, missing, found } = diagnoseRelations(input, nodeDiag);
  const metrics = { ...nodeMetrics(ctx, nodeDiag, objDiag, observed), ...relationMetrics(input, relDiag, missing, found) };
  const layout = input.task.room.layout;
  const regions = layout ? diagnoseRegions(input.graph.regions, layout, nodeDiag, input.task.objects) : undefined;
  return { nodes: nodeDiag, objects: objDiag, relations: relDiag, missing_relations: missing, metrics, ...(regions ? { regions } : {}) };
}

/**
 * Each duplicate's and hallucination's cause, recorded where the graph is built, so readers (the viewer) show
 * it instead of guessing it: the views its points came from and the noise component the cloud's record shows
 * at work on them (scenegraph/causes.ts).
 */
function recordCauses(input: DiagnoseInput, nodeDiag: NodeDiagnosis[]): void {
  const index = new Map(input.graph.nodes.map((n, k) => [n.id, k]));
  const manifest = input.bundle.manifest;
  const phaseOfView = manifest && isPhased(manifest) ? viewPhases(manifest) : null;
  nodeDiag.forEach((d, k) => {
    if (d.status !== "duplicate" && d.status !== "hallucinated") return;
    const twin = d.twin === null ? undefined : index.get(d.twin);
    d.cause = nodeCause({
      cloud: input.cloud,
      bundle: input.bundle,
      ...(phaseOfView ? { phaseOfView } : {}),
      members: input.members[k]!,
      centroid: input.graph.nodes[k]!.box.centre,
      status: d.status,
      twin: twin === undefined ? null : { id: d.twin!, members: input.members[twin]! },
    });
  });
}

/** The node metrics alone: what `esi3d graph`'s summary line prints, without the true relations it does not need. */
export function diagnoseNodes(input: NodeDiagnoseInput): NodeMetrics {
  const { ctx, nodeDiag, objDiag, observed } = diagnoseNodesAndObjects(input);
  return nodeMetrics(ctx, nodeDiag, objDiag, observed);
}

/** Phases 1-5: every node and every true object diagnosed (relations are phase 6). */
function diagnoseNodesAndObjects(input: NodeDiagnoseInput) {
  const ctx = diagnosisContext(input);
  const nodeDiag = classifyByShares(ctx);
  markMirrorGhosts(ctx, nodeDiag);
  applyGeometricGate(ctx, nodeDiag);
  const { weight, matchOfObject } = matchCandidates(ctx, nodeDiag);
  settleCandidates(ctx, nodeDiag, weight, matchOfObject);
  const observed = observedPixels(input.bundle);
  const objDiag = diagnoseObjects(ctx, nodeDiag, matchOfObject, observed);
  return { ctx, nodeDiag, objDiag, observed };
}

function diagnosisContext(input: NodeDiagnoseInput): DiagnosisContext {
  const { graph, members, cloud, task } = input;
  const { objects, movedFrom, gone } = judgedWorld(task, input.moved);
  const objIndex = new Map(objects.map((o, i) => [o.id, i]));
  const instance = cloud.instance;
  // typed counters, not a Map update per point
  const cloudPointsOf = new Uint32Array(ID_COUNTERS);
  countEachId(instance.subarray(0, cloud.count), cloudPointsOf);
  // the first-appearance order is kept: classifyByShares sums the shares in it
  const shareCounts = graph.nodes.map((_, k): ShareCounts => tallyIds(instance, members[k]!));
  const mirrors = objects.filter((o) => o.category === MIRROR_CATEGORY).map(mirrorPlane);
  return { input, objects, objIndex, shareCounts, cloudPointsOf, movedFrom, gone, mirrors };
}

/** Phase 1: hallucinated / merged / candidate (provisionally "duplicate") from the shares of each node's points. */
function classifyByShares(ctx: DiagnosisContext): NodeDiagnosis[] {
  const { graph, members } = ctx.input;
  return graph.nodes.map((n, k) => {
    const { objShares, objectShare, rule: shareRule } = objectSharesOf(ctx, ctx.shareCounts[k]!, members[k]!.length);
    const gone = shareRule === "low_object_share" ? goneObjectOf(ctx, ctx.shareCounts[k]!, members[k]!.length) : null;
    const rule = gone ? "gone_since" : shareRule;
    const status: NodeStatus = rule ? PRE_MATCH_RULES[rule] : "duplicate";
    const top = gone ?? objShares[0];
    return {
      node: n.id,
      label: n.label,
      status,
      object_id: status === "hallucinated" ? null : (top?.id ?? null),
      object_name: status === "hallucinated" ? null : (top?.name ?? null),
      twin: null,
      shares: objShares.slice(0, 3).map((s) => ({ ...s, share: Math.round(s.share * 1000) / 1000 })),
      structure_share: Math.round((1 - objectShare) * 1000) / 1000,
      iou: 0,
      centroid_error_m: null,
      label_correct: null,
    };
  });
}

/** The object gone by the last phase that holds at least MATCH_MIN_PURITY of a node's points (null: none). */
function goneObjectOf(ctx: DiagnosisContext, counts: ShareCounts, points: number): { id: number; name: string; share: number } | null {
  let best: TaskObject | null = null,
    most = 0;
  for (const o of ctx.gone) {
    const c = shareOf(counts, o.id);
    if (c > most) (best = o), (most = c);
  }
  const share = most / (points || 1);
  return best && share >= MATCH_MIN_PURITY ? { id: best.id, name: best.name, share } : null;
}

/** The node's points per true object (largest first), their sum, and the share rule they meet (null: none). */
function objectSharesOf(ctx: DiagnosisContext, { ids, counts }: ShareCounts, points: number) {
  const { objects, objIndex } = ctx;
  const total = points || 1;
  const objShares = ids
    .map((id, j) => [id, counts[j]!] as const)
    .filter(([id]) => objIndex.has(id))
    .map(([id, c]) => ({ id, name: objects[objIndex.get(id)!]!.name, share: c / total }))
    .sort((a, b) => b.share - a.share || a.id - b.id);
  const objectShare = objShares.reduce((s, x) => s + x.share, 0);
  const rule = shareRuleOf(
    objectShare,
    objShares.map((x) => x.share),
  );
  return { objShares, objectShare, rule };
}

/**
 * Phase 1b, scenes with mirrors: a node that is a true object's reflection becomes a mirror ghost linked to that
 * object, whether it lies behind a mirror, seen through it, or on the glass (mirrorGhostOnPlane). Its points carry
 * the mirror's id (the instance image records the surface the ray hit); the bundle's reflection images tell what
 * each of their pixels shows instead.
 */
function markMirrorGhosts(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[]): void {
  if (ctx.mirrors.length === 0) return;
  const { graph, members, cloud, bundle } = ctx.input;
  const cameras = bundle.views.map((v) => cameraCentre(v.E));
  let shown: Uint16Array | undefined;
  // the object a node's points show in the mirror, by the match's own rules (none when no object holds them)
  const reflectedObject = (k: number): TaskObject | null => {
    shown ??= reflectedIdsOf(cloud, bundle.views);
    const { objShares, rule } = objectSharesOf(ctx, tallyIds(shown, members[k]!), members[k]!.length);
    const top = objShares[0];
    return rule !== null || !top || top.share < MATCH_MIN_PURITY ? null : ctx.objects[ctx.objIndex.get(top.id)!]!;
  };
  const ghost = (k: number, obj: TaskObject, mirror: MirrorPlane) =>
    Object.assign(nodeDiag[k]!, { status: "mirror_ghost", object_id: null, object_name: null, mirrors_object: obj.id, mirror_id: mirror.id });
  graph.nodes.forEach((n, k) => {
    const behind = ctx.mirrors.find((m) => cameras.some((c) => seenThroughMirror(m, c, n.centroid, GHOST_MIN_BEHIND_M, GHOST_RECTANGLE_MARGIN_M)));
    if (behind) {
      const obj = reflectedObject(k);
      // the object's box reflected about the plane: the centroid's mirror image near the object's box (the
      // reflection is an isometry)
      if (obj && !isFarFromObject(pointObjectDistance(reflectPoint(behind, n.centroid), obj))) ghost(k, obj, behind);
      return;
    }
    const on = mirrorGhostOnPlane(ctx, nodeDiag[k]!, n);
    const obj = on ? reflectedObject(k) : null;
    if (on && obj) ghost(k, obj, on);
  });
}

/**
 * The mirror a node lies on as a reflection of something else: its points are the mirror's by the share rules
 * (phase 1 made it a candidate of the mirror) within the gate of the mirror's box, and it is labelled otherwise:
 * the mirror's own node, labelled a mirror, is the mirror's candidate (its points reflect room structure, or,
 * under the oracle's masks, everything the glass shows); a node labelled as something else claims an object
 * that is not there. Null otherwise.
 */
function mirrorGhostOnPlane(ctx: DiagnosisContext, d: NodeDiagnosis, n: GraphNode): MirrorPlane | null {
  if (d.status !== "duplicate" || d.object_id === null || n.label === MIRROR_CATEGORY) return null;
  const mirror = ctx.mirrors.find((m) => m.id === d.object_id);
  if (!mirror) return null;
  const obj = ctx.objects[ctx.objIndex.get(mirror.id)!]!;
  return isFarFromObject(pointObjectDistance(n.centroid, obj)) ? null : mirror;
}

/** Per cloud point: the id its pixel's reflection shows (0 for a pixel that is no mirror pixel, or a view without reflection images). */
function reflectedIdsOf(cloud: PointCloud, views: NodeDiagnoseInput["bundle"]["views"]): Uint16Array {
  const out = new Uint16Array(cloud.count);
  for (let i = 0; i < cloud.count; i++) out[i] = views[cloud.view[i]!]?.reflectedIds?.[cloud.pixel[i]!] ?? 0;
  return out;
}

/** Statuses settled before the match: no candidate for it. */
const SETTLED_BEFORE_MATCH: ReadonlySet<NodeStatus> = new Set(["hallucinated", "merged", "stale", "mirror_ghost"]);

const isCandidate = (d: NodeDiagnosis) => !SETTLED_BEFORE_MATCH.has(d.status) && d.object_id !== null;

/**
 * Phase 2, the geometric gate: a candidate far from its dominant object's box is near no true object, or,
 * for a moved object, stale when it is near where the object was.
 */
function applyGeometricGate(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[]): void {
  nodeDiag.forEach((d, k) => {
    if (!isCandidate(d)) return;
    const obj = ctx.objects[ctx.objIndex.get(d.object_id!)!]!;
    const centroid = ctx.input.graph.nodes[k]!.centroid;
    if (!isFarFromObject(pointObjectDistance(centroid, obj))) return;
    const was = ctx.movedFrom.get(obj.id) ?? [];
    if (was.some((w) => !isFarFromObject(pointObjectDistance(centroid, w)))) d.status = "stale";
    else {
      d.status = "hallucinated";
      d.object_id = null;
      d.object_name = null;
    }
  });
}

/** Phase 3: candidates matched one-to-one to their dominant objects by the Hungarian method on point IoU. */
function matchCandidates(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[]): { weight: number[][]; matchOfObject: Map<number, number> } {
  const { members } = ctx.input;
  const P = nodeDiag.length,
    G = ctx.objects.length;
  const weight: number[][] = Array.from({ length: P }, () => new Array(G).fill(0));
  nodeDiag.forEach((d, k) => {
    if (!isCandidate(d)) return;
    const g = ctx.objIndex.get(d.object_id!)!;
    const inter = shareOf(ctx.shareCounts[k]!, d.object_id!);
    const purity = inter / (members[k]!.length || 1);
    if (purity < MATCH_MIN_PURITY) return;
    weight[k]![g] = inter / (members[k]!.length + ctx.cloudPointsOf[d.object_id!]! - inter);
  });
  const assignment = P > 0 && G > 0 ? hungarian(weight, "max") : [];
  const matchOfObject = new Map<number, number>();
  assignment.forEach((g, k) => {
    if (g >= 0 && weight[k]![g]! > 0) matchOfObject.set(ctx.objects[g]!.id, k);
  });
  return { weight, matchOfObject };
}

/** Phase 4: each candidate becomes matched, a duplicate of its object's match (its twin), or hallucinated. */
function settleCandidates(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[], weight: number[][], matchOfObject: Map<number, number>): void {
  const { graph } = ctx.input;
  nodeDiag.forEach((d, k) => {
    if (SETTLED_BEFORE_MATCH.has(d.status)) return;
    const obj = d.object_id !== null ? ctx.objects[ctx.objIndex.get(d.object_id)!]! : null;
    if (obj && matchOfObject.get(obj.id) === k) {
      d.status = "matched";
      d.iou = Math.round(weight[k]![ctx.objIndex.get(obj.id)!]! * 1000) / 1000;
      const c = graph.nodes[k]!.centroid;
      d.centroid_error_m = Math.round(Math.hypot(c[0] - obj.position[0], c[1] - obj.position[1], c[2] - obj.position[2]) * 10000) / 10000;
    } else {
      d.status = "duplicate";
      const twin = obj ? matchOfObject.get(obj.id) : undefined;
      d.twin = twin !== undefined ? graph.nodes[twin]!.id : null;
      if (twin === undefined) {
        // too impure to match, and no other node matched its object: mostly background
        d.status = "hallucinated";
      }
    }
    if (obj) d.label_correct = graph.nodes[k]!.label === obj.category;
  });
}

/** Phase 5: each true object matched, missed-lost (seen, not recovered) or missed-unseen, with its duplicates. */
function diagnoseObjects(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[], matchOfObject: Map<number, number>, observed: Observed): ObjectDiagnosis[] {
  const { graph } = ctx.input;
  return ctx.objects.map((o) => {
    const k = matchOfObject.get(o.id);
    const px = observed.total[o.id] ?? 0;
    return {
      id: o.id,
      name: o.name,
      category: o.category,
      role: o.role,
      status: k !== undefined ? "matched" : px > 0 ? "missed-lost" : "missed-unseen",
      node: k !== undefined ? graph.nodes[k]!.id : null,
      duplicates: nodeDiag.filter((d) => d.status === "duplicate" && d.object_id === o.id).map((d) => d.node),
      observed_px: px,
      max_view_px: observed.maxPerView[o.id] ?? 0,
    };
  });
}

/** A relation's key; symmetric predicates are unordered, so they are keyed with the smaller id first. */
const relationKey = (a: number, p: string, b: number) => (SYMMETRIC.has(p) && b < a ? `${b}|${p}|${a}` : `${a}|${p}|${b}`);

/** Phase 6: the graph's relations mapped to true ids (duplicates map to their object) and checked; the true ones missing. */
function diagnoseRelations(
  input: DiagnoseInput,
  nodeDiag: NodeDiagnosis[],
): { relDiag: RelationDiagnosis[]; missing: Diagnosis["missing_relations"]; found: Set<string> } {
  const toTrue = new Map<string, number>();
  nodeDiag.forEach((d) => {
    if ((d.status === "matched" || d.status === "duplicate") && d.object_id !== null) toTrue.set(d.node, d.object_id);
  });
  const truth = new Set(input.trueRelations.map((r) => relationKey(Number(r.subject.slice(1)), r.predicate, Number(r.object.slice(1)))));
  const relDiag: RelationDiagnosis[] = input.graph.relations.map((r) => {
    const a = toTrue.get(r.subject),
      b = toTrue.get(r.object);
    const mapped: [number, number] | null = a !== undefined && b !== undefined && a !== b ? [a, b] : null;
    return { ...r, mapped, correct: mapped !== null && truth.has(relationKey(mapped[0], r.predicate, mapped[1])) };
  });
  const found = new Set(relDiag.filter((r) => r.correct).map((r) => relationKey(r.mapped![0], r.predicate, r.mapped![1])));
  const missing = input.trueRelations
    .map((r) => ({ subject: Number(r.subject.slice(1)), predicate: r.predicate, object: Number(r.object.slice(1)) }))
    .filter((r) => !found.has(relationKey(r.subject, r.predicate, r.object)));
  return { relDiag, missing, found };
}

/** Phase 7a: the node and object metrics. */
function nodeMetrics(ctx: DiagnosisContext, nodeDiag: NodeDiagnosis[], objDiag: ObjectDiagnosis[], observed: Observed): NodeMetrics {
  const { graph } = ctx.input;
  const { objects, objIndex } = ctx;
  const P = graph.nodes.length,
    G = objects.length;
  // "observed" = some view shows it at least as large as the smallest 2D mask a detector keeps
  const isObserved = (id: number) => (observed.maxPerView[id] ?? 0) >= MIN_MASK_AREA_PX;
  const count = (s: NodeStatus) => nodeDiag.filter((d) => d.status === s).length;
  const matched = count("matched");
  const observedObjects = objects.filter((o) => isObserved(o.id)).length;
  const matchedObserved = objDiag.filter((o) => o.status === "matched" && isObserved(o.id)).length;
  const precision = ratio(matched, P),
    recall = ratio(matched, G),
    recallObs = ratio(matchedObserved, observedObjects);
  const labelJudged = nodeDiag.filter((d) => d.status === "matched" && d.label_correct !== null);
  const countError: Record<string, number> = {};
  const cats = new Set([...objects.map((o) => o.category), ...graph.nodes.map((n) => n.label)]);
  for (const c of [...cats].sort()) {
    const e = graph.nodes.filter((n) => n.label === c).length - objects.filter((o) => o.category === c && (observed.total[o.id] ?? 0) > 0).length;
    if (e !== 0) countError[c] = e;
  }
  const matchedPairs = nodeDiag.map((d, k) => [d, k] as const).filter(([d]) => d.status === "matched");
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    nodes: P,
    objects: G,
    observed_objects: observedObjects,
    matched,
    duplicates: count("duplicate"),
    merged: count("merged"),
    hallucinated: count("hallucinated"),
    stale: count("stale"),
    ...(ctx.input.bundle.manifest && isPhased(ctx.input.bundle.manifest)
      ? { duplicates_by_change: nodeDiag.filter((d) => d.status === "duplicate" && d.cause?.component === "change").length }
      : {}),
    ...(ctx.mirrors.length ? { mirror_ghosts: count("mirror_ghost") } : {}),
    missed_unseen: objDiag.filter((o) => o.status === "missed-unseen").length,
    missed_lost: objDiag.filter((o) => o.status === "missed-lost").length,
    precision,
    recall,
    recall_observed: recallObs,
    f1: f1(precision, recall),
    f1_observed: f1(precision, recallObs),
    duplicate_rate: ratio(count("duplicate"), P),
    hallucination_rate: ratio(count("hallucinated"), P),
    merged_rate: ratio(count("merged"), P),
    stale_rate: ratio(count("stale"), P),
    ...(ctx.mirrors.length ? { mirror_ghost_rate: ratio(count("mirror_ghost"), P) } : {}),
    miss_rate: ratio(G - matched, G),
    label_accuracy: labelJudged.length ? labelJudged.filter((d) => d.label_correct).length / labelJudged.length : null,
    count_error_by_category: countError,
    centroid_error_m: mean(matchedPairs.map(([d]) => d.centroid_error_m!)),
    extent_error_m: mean(matchedPairs.map(([d, k]) => extentError(graph.nodes[k]!, objects[objIndex.get(d.object_id!)!]!))),
  };
}

/** Phase 7b: the relation metrics, per predicate and overall. */
function relationMetrics(
  input: DiagnoseInput,
  relDiag: RelationDiagnosis[],
  missing: Diagnosis["missing_relations"],
  found: Set<string>,
): Pick<GraphMetrics, RelationMetricKey> {
  const predicates: Record<string, PredicateScore> = {};
  const bump = (p: string, f: keyof Pick<PredicateScore, "tp" | "fp" | "fn">) => {
    predicates[p] ??= { tp: 0, fp: 0, fn: 0, precision: null, recall: null };
    predicates[p]![f]++;
  };
  for (const r of relDiag) bump(r.predicate, r.correct ? "tp" : "fp");
  for (const r of missing) bump(r.predicate, "fn");
  for (const s of Object.values(predicates)) {
    s.precision = s.tp + s.fp > 0 ? s.tp / (s.tp + s.fp) : null;
    s.recall = s.tp + s.fn > 0 ? s.tp / (s.tp + s.fn) : null;
  }
  const tp = relDiag.filter((r) => r.correct).length;
  return {
    relations: predicates,
    relation_precision: relDiag.length ? tp / relDiag.length : null,
    relation_recall: input.trueRelations.length ? found.size / input.trueRelations.length : null,
  };
}
