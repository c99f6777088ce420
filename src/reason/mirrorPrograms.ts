/**
 * Specular Reflection's graph programs (the 3D arm). The graph holds the mirrors its own evidence shows (`mirrors`:
 * plane, rectangle, facing) and nodes of what the views showed, each with the views that saw it (view 0 is the
 * question's image). A node of an object's label may be
 * - REAL: in front of every mirror (more than ON_PLANE_M off the plane on its reflecting side, or beside it);
 * - ON the glass: a reflection whose depth is the mirror surface's (the gt source: a depth sensor sees the glass);
 * - BEHIND the glass, seen through it: a reflection taken for geometry (a VGGT-like source), whose mirror image
 *   about the plane is where the real object stands.
 * The programs reflect reflections back through the plane and compare with the real nodes; they never read the task's
 * objects or its answer.
 */
import { LIBRARY } from "../../core/objects/library.js";
import { MIRROR_CATEGORY, planeCrossing, rectangleCoordinates, reflectPoint, seenThroughMirror, signedPlaneDistance } from "../../core/objects/mirror.js";
import { add, dist, dot, scale, sub, type Vec3 } from "../../core/math/vec.js";
import type { GraphMirror, GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { declined, marginConfidence, type Decision } from "./decision.js";
import { typicalHeight } from "./deformablePrograms.js";
import type { Query } from "./query.js";

/**
 * A node within this distance (m) of a mirror's plane, inside its rectangle, lies on the glass. Ours: the gt
 * source puts reflection pixels on the plane (a box over them is flat to millimetres); a noisy one spreads them by
 * its depth error, a few centimetres at the vggt-typical level.
 */
const ON_PLANE_M = 0.1;
/** How far outside a mirror's rectangle (m) a node on its plane may reach and still be on the glass (its frame). */
const RECTANGLE_MARGIN_M = 0.1;
/** A relative distance gap this large makes a closer-object decision certain (as Spatial Distance's 0.3). */
const DISTANCE_RELATIVE_SCALE = 0.3;
/** Decisions from size constancy alone (a reflection on the glass whose depth is unknown) are never surer than this. */
const SIZE_CONSTANCY_MAX_CONFIDENCE = 0.6;
/** A lateral gap this large (m) between the reflected ray's nearest and next object makes Correspondence certain. */
const CORRESPONDENCE_GAP_M = 0.3;

/** The objects the question names, less the mirror it names ("In the mirror, you can see ..."). */
export const objectsNamed = (q: Query) => q.referents.filter((r) => r.category !== MIRROR_CATEGORY);

type Place = { kind: "real" } | { kind: "on"; mirror: GraphMirror } | { kind: "behind"; mirror: GraphMirror };

/** The graph's label of a category as the question writes it ("toy car" -> "toy_car"). */
export const labelOf = (c: string) => c.replace(/ /g, "_");
const norm = (a: Vec3) => Math.hypot(a[0], a[1], a[2]);

/** Where a node lies with respect to the graph's mirrors, for the question's camera. */
function placeOf(g: SceneGraph, n: GraphNode, camera: Vec3): Place {
  for (const m of g.mirrors ?? []) {
    if (m.node === n.id) continue;
    const d = signedPlaneDistance(m, n.centroid);
    const [a, b] = rectangleCoordinates(m, n.centroid);
    const inside = Math.abs(a) <= m.half_width_m + RECTANGLE_MARGIN_M && Math.abs(b) <= m.half_height_m + RECTANGLE_MARGIN_M;
    if (Math.abs(d) <= ON_PLANE_M && inside) return { kind: "on", mirror: m };
    if (seenThroughMirror(m, camera, n.centroid, ON_PLANE_M, RECTANGLE_MARGIN_M)) return { kind: "behind", mirror: m };
  }
  return { kind: "real" };
}

const nodesLabelled = (g: SceneGraph, category: string) =>
  g.nodes.filter((n) => n.label === labelOf(category)).sort((a, b) => b.raw_point_count - a.raw_point_count);

/** SIZE_PRIOR: a label's typical height (m), null for a label the library lacks. */
export const typicalHeightOf = (label: string): number | null => (LIBRARY.has(label) ? typicalHeight(label) : null);

/**
 * Where the real object of a reflection stands: a node behind the glass, reflected about the plane; a node on the
 * glass, at the depth size constancy gives (its height on the glass over the camera's distance to it is the
 * object's typical height over the reflected path's length), then reflected. Null when neither applies.
 */
function realFromReflection(n: GraphNode, place: Place, camera: Vec3): { at: Vec3; sizeOnly: boolean } | null {
  if (place.kind === "behind") return { at: reflectPoint(place.mirror, n.centroid), sizeOnly: false };
  if (place.kind !== "on") return null;
  const H = typicalHeightOf(n.label);
  const h = n.aabb.max[2] - n.aabb.min[2];
  if (H === null || !(h > 0)) return null;
  // the reflected path's length L is H/h times the camera's distance to the patch, along the same ray
  const virtual = add(camera, scale(sub(n.centroid, camera), H / h));
  return { at: reflectPoint(place.mirror, virtual), sizeOnly: true };
}

/** The mirror through which the camera sees the mirror image of a point in front of it, or null. */
function mirrorShowing(g: SceneGraph, camera: Vec3, p: readonly number[]): GraphMirror | null {
  return (g.mirrors ?? []).find((m) => signedPlaneDistance(m, p) > 0 && seenThroughMirror(m, camera, reflectPoint(m, p), 0, 0)) ?? null;
}

/** Reflection Authoring: is the object the question's image shows seen through the mirror? */
export function reflectionAuthoringProgram(g: SceneGraph, q: Query, trace: string[]): Decision {
  const ref = objectsNamed(q)[0];
  if (!ref) return declined("the question names no object the detector knows", trace);
  if (!(g.mirrors ?? []).length) return declined("the graph has no mirror", trace);
  const camera = q.viewpoint.position as Vec3;
  const all = nodesLabelled(g, ref.category);
  const inImage = all.filter((n) => n.views.includes(0));
  if (!inImage.length) {
    // no node says which views saw it (a ground-truth graph): whether the camera sees the real object's mirror image
    const real = all.find((n) => placeOf(g, n, camera).kind === "real");
    if (!real) return declined(`no ${ref.category} node is seen in the question's image (view 0)`, trace);
    const m = mirrorShowing(g, camera, real.centroid);
    trace.push(`${real.id} (${real.label}): its mirror image is ${m ? `seen through mirror ${m.node}` : "in no mirror"} from the question's camera`);
    return { answer: m ? "yes" : "no", confidence: marginConfidence(1, 1), trace };
  }
  const places = inImage.map((n) => ({ n, p: placeOf(g, n, camera) }));
  for (const { n, p } of places)
    trace.push(`${n.id} (${n.label}, ${n.raw_point_count} pts): ${p.kind === "real" ? "in front of the mirror" : `${p.kind} mirror ${p.mirror.node}`}`);
  const reflected = places.filter(({ p }) => p.kind !== "real").reduce((s, { n }) => s + n.raw_point_count, 0);
  const direct = places.filter(({ p }) => p.kind === "real").reduce((s, { n }) => s + n.raw_point_count, 0);
  const yes = reflected > direct;
  const share = Math.max(reflected, direct) / (reflected + direct);
  trace.push(`points seen in the image through the mirror ${reflected}, directly ${direct}`);
  return { answer: yes ? "yes" : "no", confidence: Math.round(share * 1000) / 1000, trace };
}

/** Where the real object named by a referent stands, from a real node or a reflection of it; null when the graph has neither. */
function realPosition(g: SceneGraph, category: string, camera: Vec3, trace: string[]): { at: Vec3; sizeOnly: boolean } | null {
  const nodes = nodesLabelled(g, category).map((n) => ({ n, p: placeOf(g, n, camera) }));
  const real = nodes.find(({ p }) => p.kind === "real");
  if (real) {
    trace.push(`${category}: ${real.n.id} in front of the mirror, at its centroid`);
    return { at: real.n.centroid as Vec3, sizeOnly: false };
  }
  for (const { n, p } of nodes) {
    const r = realFromReflection(n, p, camera);
    if (!r) continue;
    trace.push(`${category}: ${n.id} ${p.kind} the mirror, reflected back${r.sizeOnly ? " at the depth its size gives" : ""}`);
    return r;
  }
  return null;
}

/** Spatial Relations (mirror): which of A and B stands closer to the observation position (the question's camera)? */
export function mirrorSpatialProgram(g: SceneGraph, q: Query, trace: string[]): Decision {
  const [a, b] = objectsNamed(q);
  if (!a || !b) return declined("the question names fewer than two objects the detector knows", trace);
  const camera = q.viewpoint.position as Vec3;
  const pa = realPosition(g, a.category, camera, trace),
    pb = realPosition(g, b.category, camera, trace);
  if (!pa) return declined(`${a.name} is not in the graph`, trace);
  if (!pb) return declined(`${b.name} is not in the graph`, trace);
  const da = dist(pa.at, camera),
    db = dist(pb.at, camera);
  trace.push(`distance to the observation position: A ${da.toFixed(2)} m, B ${db.toFixed(2)} m`);
  const margin = Math.abs(da - db) / Math.max(da, db);
  const c = marginConfidence(margin, DISTANCE_RELATIVE_SCALE);
  return { answer: da <= db ? "A" : "B", confidence: pa.sizeOnly || pb.sizeOnly ? Math.min(c, SIZE_CONSTANCY_MAX_CONFIDENCE) : c, trace };
}

/** Correspondence: which of three identical objects (left, middle, right in the image) is the one the mirror shows? */
export function mirrorCorrespondenceProgram(g: SceneGraph, q: Query, trace: string[]): Decision {
  const ref = objectsNamed(q)[0];
  if (!ref) return declined("the question names no object the detector knows", trace);
  const camera = q.viewpoint.position as Vec3;
  const nodes = nodesLabelled(g, ref.category).map((n) => ({ n, p: placeOf(g, n, camera) }));
  const real = nodes.filter(({ p }) => p.kind === "real").slice(0, 3);
  if (real.length < 3) return declined(`${real.length} ${ref.category} node(s) in front of the mirror, not 3`, trace);
  const reflections = nodes.filter(({ p }) => p.kind !== "real");
  // the one the question's image shows first, else any
  const reflection = reflections.find(({ n }) => n.views.includes(0)) ?? reflections[0];
  if (!reflection)
    return correspondenceByGeometry(
      g,
      real.map(({ n }) => n),
      q,
      trace,
    );
  const back = realFromReflection(reflection.n, reflection.p, camera);
  if (!back) return declined(`the reflection ${reflection.n.id} cannot be reflected back`, trace);
  // the real object on the reflected ray: nearest the reflection's real position, across the ray (depth along it is what size constancy errs in)
  const ray = sub(back.at, reflectPoint((reflection.p as { mirror: GraphMirror }).mirror, camera));
  const across = (p: Vec3) => {
    const r = sub(p, back.at);
    const t = dot(r, ray) / (norm(ray) || 1);
    return Math.sqrt(Math.max(0, norm(r) ** 2 - t * t));
  };
  const ranked = [...real].sort((x, y) => across(x.n.centroid) - across(y.n.centroid));
  const target = ranked[0]!;
  trace.push(
    `${reflection.n.id} ${reflection.p.kind} the mirror is ${target.n.id}'s reflection (${across(target.n.centroid).toFixed(2)} m off its ray; next ${across(ranked[1]!.n.centroid).toFixed(2)} m)`,
  );
  const answer = imagePlace(
    real.map(({ n }) => n),
    target.n,
    q,
  );
  const gap = across(ranked[1]!.n.centroid) - across(target.n.centroid);
  const c = marginConfidence(gap, CORRESPONDENCE_GAP_M);
  return { answer, confidence: back.sizeOnly ? Math.min(c, SIZE_CONSTANCY_MAX_CONFIDENCE) : c, trace };
}

/** Left, middle or right in the question's image: by bearing from its camera (counter-clockwise is left). */
function imagePlace(three: GraphNode[], target: GraphNode, q: Query): "left" | "middle" | "right" {
  const { yaw, position } = q.viewpoint;
  const side = (p: Vec3) => {
    const d = sub(p, position);
    return -Math.atan2(d[1] * Math.cos(yaw) - d[0] * Math.sin(yaw), d[0] * Math.cos(yaw) + d[1] * Math.sin(yaw));
  };
  const order = [...three].sort((x, y) => side(x.centroid) - side(y.centroid));
  return (["left", "middle", "right"] as const)[order.indexOf(target)]!;
}

/**
 * Correspondence without a reflection node (a ground-truth graph holds real objects only): the object whose mirror
 * image the question's camera sees through a mirror, the one seen deepest inside its rectangle when several are.
 */
function correspondenceByGeometry(g: SceneGraph, three: GraphNode[], q: Query, trace: string[]): Decision {
  const camera = q.viewpoint.position as Vec3;
  const seen = three.flatMap((n) => {
    const m = mirrorShowing(g, camera, n.centroid);
    if (!m) return [];
    const at = planeCrossing(m, camera, reflectPoint(m, n.centroid), 0)!;
    const [a, b] = rectangleCoordinates(m, at);
    return [{ n, inside: Math.min(m.half_width_m - Math.abs(a), m.half_height_m - Math.abs(b)) }];
  });
  if (!seen.length) return declined("no reflection node, and no object's mirror image is seen from the question's camera", trace);
  seen.sort((x, y) => y.inside - x.inside);
  trace.push(`no reflection node; mirror images seen from the question's camera: ${seen.map((s) => `${s.n.id} (${s.inside.toFixed(2)} m inside)`).join(", ")}`);
  return { answer: imagePlace(three, seen[0]!.n, q), confidence: Math.round((1 / seen.length) * 1000) / 1000, trace };
}
