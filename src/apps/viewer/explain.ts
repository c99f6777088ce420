/**
 * Why each node has its status, and why each missed object was missed: the facts the diagnosis
 * (scenegraph/diagnosis.ts) judged on, recomputed from the node's points and set beside the threshold of
 * the rule that decided, with the true object it was judged against.
 *
 * The diagnosis stores the outcome (status, top-3 shares, the match's IoU), not which rule fired; this
 * applies its own rule functions (shareRuleOf, isFarFromObject) in its order to the recomputed points (the
 * same points: the viewer checks that the graph reproduces) — share on true objects, then merged, then the
 * distance gate (against where each object is now, and for a moved object where it was: stale), then the
 * one-to-one match — and says so when they disagree with the stored status (a diagnosis made by other code).
 */
import type { PointCloud } from "../../../reconstruct/pointcloud.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import type { Diagnosis, NodeDiagnosis } from "../../../scenegraph/diagnosisSchema.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import {
  judgedWorld,
  HALLUCINATED_MAX_OBJECT_SHARE,
  isFarFromObject,
  MATCH_MIN_PURITY,
  MERGED_MIN_PART_SHARE,
  MERGED_MIN_SECOND_SHARE,
  mirrorGhostRule,
  NEAR_OBJECT_M,
  pointObjectDistance,
  PRE_MATCH_RULES,
  shareRuleOf,
  type ObjectMove,
} from "../../../scenegraph/diagnosis.js";
import { MIN_MASK_AREA_PX } from "../../../scenegraph/evidence.js";
import type { Explanations, NodeExplanation, NodeRule, ObjectExplanation, StatusFact } from "./types.js";

/** Shares in per cent: one decimal under 10 % (so 0.3 % does not read as 0 %). */
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`;
const metres = (x: number) => `${x.toFixed(2)} m`;

/** Points of each true object in the whole cloud (the IoU's denominator). */
function cloudPointsPerObject(cloud: Pick<PointCloud, "count" | "instance">, ids: ReadonlySet<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < cloud.count; i++) {
    const id = cloud.instance[i]!;
    if (ids.has(id)) out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

/** A node's points per true object, largest first. */
function objectCounts(members: Uint32Array, instance: Uint16Array, ids: ReadonlySet<number>): Array<{ id: number; points: number }> {
  const counts = new Map<number, number>();
  for (const i of members) {
    const id = instance[i]!;
    if (ids.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts.entries()].map(([id, points]) => ({ id, points })).sort((a, b) => b.points - a.points || a.id - b.id);
}

/**
 * Which rule decides a node, in the diagnosis's order (its own rule functions); the stored status where the match
 * decides. `distanceM`: to its dominant object where it is now; `wasM`: to where it was, when it was moved.
 */
function ruleOf(
  objectShare: number,
  shares: number[],
  distanceM: number | null,
  wasM: number | null,
  stored: NodeDiagnosis,
  ghostRule: NodeRule,
  goneShare: number,
): NodeRule {
  // settled before the shares' rules: its points carry the mirror's id, not what they show
  if (stored.status === "mirror_ghost") return ghostRule;
  const byShares = shareRuleOf(objectShare, shares);
  if (byShares === "low_object_share" && goneShare >= MATCH_MIN_PURITY) return "gone_since";
  if (byShares) return byShares;
  if (distanceM !== null && isFarFromObject(distanceM)) return wasM !== null && !isFarFromObject(wasM) ? "left_behind" : "far_from_object";
  if (stored.status === "matched") return "matched";
  if (stored.status === "duplicate") return "duplicate_of_match";
  return "impure_unmatched";
}

const RULE_STATUS: Record<NodeRule, NodeDiagnosis["status"]> = {
  ...PRE_MATCH_RULES,
  matched: "matched",
  duplicate_of_match: "duplicate",
  impure_unmatched: "hallucinated",
};

export interface ExplainInput {
  task: Task;
  graph: SceneGraph;
  members: readonly Uint32Array[];
  cloud: Pick<PointCloud, "count" | "instance">;
  diagnosis: Diagnosis;
  /** Objects moved during an active episode (the task's objects are where they began), as the diagnosis was told. */
  moved?: readonly ObjectMove[];
}

export function explainDiagnosis(input: ExplainInput): Explanations {
  const { task, graph, members, cloud, diagnosis } = input;
  // the world the diagnosis judged against: a changing world's last phase, then the episode's moves; a moved object's
  // earlier places only name its stale nodes
  const world = judgedWorld(task, input.moved);
  const byId = new Map(world.objects.map((o) => [o.id, o]));
  const goneById = new Map(world.gone.map((o) => [o.id, o]));
  const earlierPlaces = (o: TaskObject): TaskObject[] => world.movedFrom.get(o.id) ?? [];
  const ids = new Set(byId.keys());
  const inCloud = cloudPointsPerObject(cloud, ids);
  const stored = new Map(diagnosis.nodes.map((d) => [d.node, d]));
  const perNode = graph.nodes.map((_, k) => objectCounts(members[k]!, cloud.instance, ids));
  const nodes = graph.nodes.map((n, k): NodeExplanation => {
    const d = stored.get(n.id)!;
    const total = members[k]!.length || 1;
    const counts = perNode[k]!;
    const shares = counts.map((c) => c.points / total);
    const objectShare = shares.reduce((s, x) => s + x, 0);
    const top = counts[0] ? byId.get(counts[0].id)! : null;
    const second = counts[1] ? byId.get(counts[1].id)! : null;
    const distanceM = top ? pointObjectDistance(n.centroid, top) : null;
    const places = top ? earlierPlaces(top) : [];
    const wasM = places.length ? Math.min(...places.map((p) => pointObjectDistance(n.centroid, p))) : null;
    const was = wasM !== null;
    const goneTop = objectCounts(members[k]!, cloud.instance, new Set(goneById.keys()))[0];
    const goneShare = goneTop ? goneTop.points / total : 0;
    const iouTop = top ? counts[0]!.points / (members[k]!.length + (inCloud.get(top.id) ?? 0) - counts[0]!.points) : null;
    const mirror = d.mirror_id === undefined ? undefined : byId.get(d.mirror_id);
    const rule = ruleOf(objectShare, shares, distanceM, wasM, d, mirror ? mirrorGhostRule(mirror, n.centroid) : "seen_in_mirror", goneShare);
    const facts: StatusFact[] = [
      {
        name: "points on true objects",
        value: objectShare,
        threshold: HALLUCINATED_MAX_OBJECT_SHARE,
        unit: "share",
        against: null,
        decisive: rule === "low_object_share",
      },
    ];
    if (top)
      facts.push({
        name: "share of its dominant object",
        value: shares[0]!,
        threshold: MATCH_MIN_PURITY,
        unit: "share",
        against: top.name,
        decisive: rule === "no_majority" || rule === "impure_unmatched",
      });
    if (second)
      facts.push({
        name: "share of a second object",
        value: shares[1]!,
        threshold: MERGED_MIN_SECOND_SHARE,
        unit: "share",
        against: second.name,
        decisive: rule === "second_object",
      });
    if (top && distanceM !== null)
      facts.push({
        name: was ? "centroid to the object's true box where it is now" : "centroid to the object's true box",
        value: distanceM,
        threshold: NEAR_OBJECT_M,
        unit: "m",
        against: top.name,
        decisive: rule === "far_from_object" || rule === "left_behind",
      });
    if (top && wasM !== null)
      facts.push({
        name: "centroid to the object's true box where it was before it was moved",
        value: wasM,
        threshold: NEAR_OBJECT_M,
        unit: "m",
        against: top.name,
        decisive: rule === "left_behind",
      });
    if (top && iouTop !== null)
      facts.push({
        name: "point IoU with the object",
        value: iouTop,
        threshold: null,
        unit: "iou",
        against: top.name,
        decisive: rule === "matched" || rule === "duplicate_of_match",
      });
    const twin = d.twin ? stored.get(d.twin) : undefined;
    if (twin)
      facts.push({
        name: `point IoU of its twin ${twin.node}`,
        value: twin.iou,
        threshold: null,
        unit: "iou",
        against: twin.object_name,
        decisive: rule === "duplicate_of_match",
      });
    const consistent = RULE_STATUS[rule] === d.status;
    return {
      node: n.id,
      status: d.status,
      rule,
      consistent,
      why: consistent
        ? nodeWhy(rule, {
            objectShare,
            shares,
            top,
            second,
            distanceM,
            wasM,
            iouTop,
            d,
            twin,
            mirrored: d.mirrors_object === undefined ? undefined : byId.get(d.mirrors_object),
            mirror,
            gone: goneTop ? { object: goneById.get(goneTop.id)!, share: goneShare } : undefined,
          })
        : `the stored diagnosis says ${d.status}, but its rules on these points give ${RULE_STATUS[rule]} (${rule.replace(/_/g, " ")}): the diagnosis was made by other code`,
      facts,
    };
  });
  const objects = diagnosis.objects
    .filter((o) => o.status !== "matched")
    .map((o): ObjectExplanation => {
      const holders = graph.nodes
        .map((n, k) => ({ node: n.id, status: stored.get(n.id)?.status ?? "matched", points: perNode[k]!.find((c) => c.id === o.id)?.points ?? 0 }))
        .filter((h) => h.points > 0)
        .sort((a, b) => b.points - a.points);
      return { id: o.id, status: o.status, why: objectWhy(o, byId.get(o.id), inCloud.get(o.id) ?? 0, holders), holders };
    });
  return { nodes, objects };
}

function nodeWhy(
  rule: NodeRule,
  f: {
    objectShare: number;
    shares: number[];
    top: TaskObject | null;
    second: TaskObject | null;
    distanceM: number | null;
    wasM: number | null;
    iouTop: number | null;
    d: NodeDiagnosis;
    twin: NodeDiagnosis | undefined;
    /** for a mirror ghost: the object it mirrors, and the mirror */
    mirrored?: TaskObject;
    mirror?: TaskObject;
    /** the object gone by the last phase that most of its points show */
    gone?: { object: TaskObject; share: number };
  },
): string {
  switch (rule) {
    case "low_object_share":
      return `only ${pct(f.objectShare)} of its points lie on any true object (under ${pct(HALLUCINATED_MAX_OBJECT_SHARE)}); the rest is floor, walls, background or nothing`;
    case "second_object":
      return `it covers two objects: ${f.top!.name} holds ${pct(f.shares[0]!)} of its points and ${f.second!.name} ${pct(f.shares[1]!)} (a second object at ${pct(MERGED_MIN_SECOND_SHARE)} or more means merged)`;
    case "no_majority":
      return `no object holds a majority (${f.top!.name} has ${pct(f.shares[0]!)}, under ${pct(MATCH_MIN_PURITY)}) while ${f.shares.filter((s) => s >= MERGED_MIN_PART_SHARE).length} objects hold ${pct(MERGED_MIN_PART_SHARE)} or more each`;
    case "far_from_object":
      return `its points are mostly ${f.top!.name}'s (${pct(f.shares[0]!)}), but its centroid is ${metres(f.distanceM!)} from that object's true box (farther than ${metres(NEAR_OBJECT_M)}): displaced geometry near no true object`;
    case "left_behind":
      return `its points are mostly ${f.top!.name}'s (${pct(f.shares[0]!)}), but that object was moved: its centroid is ${metres(f.distanceM!)} from the object's box where it is now (farther than ${metres(NEAR_OBJECT_M)}) and ${metres(f.wasM!)} from where it was: the node stayed where the object was instead of following it`;
    case "gone_since":
      return `${pct(f.gone!.share)} of its points show ${f.gone!.object.name}, which a later phase no longer holds (removed or replaced): the node kept an object that is gone`;
    case "seen_in_mirror":
      return `it lies behind ${f.mirror?.name ?? "a mirror"}, seen through it, and its points show ${f.mirrored?.name ?? "a true object"} in the mirror, within ${metres(NEAR_OBJECT_M)} of where that object's mirror image is: a reflection taken for geometry`;
    case "reflection_on_mirror":
      return `it lies on ${f.mirror?.name ?? "a mirror"}'s glass, labelled ${f.d.label} rather than as the mirror, and its points show ${f.mirrored?.name ?? "a true object"} in the mirror: a reflection taken for an object on the glass`;
    case "matched":
      return `${f.top!.name} holds ${pct(f.shares[0]!)} of its points (over ${pct(MATCH_MIN_PURITY)}), ${metres(f.distanceM!)} from its box, and the one-to-one match on point IoU gave it that object (IoU ${f.d.iou.toFixed(2)}${f.d.centroid_error_m !== null ? `, centroid ${metres(f.d.centroid_error_m)} from the object's centre` : ""})`;
    case "duplicate_of_match":
      return `its points are mostly ${f.top!.name}'s (${pct(f.shares[0]!)}, IoU ${f.iouTop!.toFixed(2)}), but the one-to-one match gave that object to ${f.twin ? `${f.twin.node} (IoU ${f.twin.iou.toFixed(2)})` : "another node"}: a second node for one object`;
    case "impure_unmatched":
      return `${f.top!.name} holds only ${pct(f.shares[0]!)} of its points (under the ${pct(MATCH_MIN_PURITY)} a match needs) and no other node matched that object: mostly background`;
  }
}

function objectWhy(o: Diagnosis["objects"][number], obj: TaskObject | undefined, cloudPoints: number, holders: ObjectExplanation["holders"]): string {
  if (o.status === "missed-unseen") return `no view shows ${obj?.name ?? "it"} (0 pixels): nothing to recover`;
  const seen = `seen in ${o.observed_px.toLocaleString("en-US")} pixels (at most ${o.max_view_px.toLocaleString("en-US")} in one view)`;
  if (o.max_view_px < MIN_MASK_AREA_PX) return `${seen}, under the ${MIN_MASK_AREA_PX} pixels a 2D mask needs in any one view, so no detection kept it`;
  if (cloudPoints === 0) return `${seen}, but none of its pixels became cloud points (depth or confidence dropped them)`;
  if (holders.length === 0) return `${seen}; its ${cloudPoints.toLocaleString("en-US")} cloud points are in no node`;
  return `${seen}; its ${cloudPoints.toLocaleString("en-US")} cloud points went to ${holders.map((h) => `${h.node} (${h.status}, ${pct(h.points / cloudPoints)})`).join(", ")}, none of which was matched to it`;
}
