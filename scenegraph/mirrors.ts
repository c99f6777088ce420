/**
 * Mirrors in a scene graph, from the graph's own evidence (never from a bundle's `manifest.mirrors`, which is
 * truth for the diagnosis): a node labelled `mirror` whose box is flat is a mirror's reflective surface. Its thin
 * box axis is the plane's normal, signed towards the cameras that saw it (a mirror is seen from the side it
 * reflects); the two other axes give its rectangle. Where a noisy cloud moved most of the glass's pixels behind it
 * (what they reflect), the flat node is the part that stayed; the other mirror-labelled nodes behind the plane, and
 * the nodes whose 2D masks lay mostly inside the glass (`inMirror`: a reflection, labelled as what it shows), are
 * the rest of its pixels, so the rectangle grows to where the lines from their cameras cross the plane. A node that lies behind such a plane, seen through the
 * rectangle by a camera that saw the node, is flagged `behind_mirror`: what a camera sees there is the mirror's
 * reflection, which a multi-view reconstruction puts behind the glass as geometry.
 */
import { cameraCentre } from "../core/math/camera.js";
import type { Mat34, Vec3 } from "../core/math/vec.js";
import { MIRROR_CATEGORY, planeCrossing, rectangleCoordinates, seenThroughMirror, signedPlaneDistance } from "../core/objects/mirror.js";
import type { GraphMirror, GraphNode } from "./types.js";

/**
 * Ours: a mirror node's box is at most this thick for its size (thin side over the longest). A pane's points lie in
 * one plane (the gt mirror's box is under a millimetre thick; a noisy one's at level 0.5 7 cm for
 * 1.25 m); a reflection taken for geometry spreads in depth like the thing it shows (the test box's: 14 cm for 43).
 */
const MIRROR_MAX_THICKNESS_RATIO = 0.25;
/**
 * Ours: a node lies behind a mirror when its centroid is more than this behind the plane (m). A mirror's frame and
 * backing lie within centimetres of its face (the test room's frame 1 to 3 cm behind it); they are not flagged.
 */
const BEHIND_MIRROR_MIN_M = 0.1;
/**
 * How far outside the rectangle (m) the line from a camera to the node may cross the plane: a millimetre, for the
 * rounding of a rectangle grown to a node's own crossing (it lies on the edge); the plane is the graph's own.
 */
const RECTANGLE_MARGIN_M = 1e-3;

/** A frame's plane is vertical: its normal at most this far (z component of the unit normal) from level. Ours: 10°. */
const VERTICAL_NORMAL_MAX_Z = Math.sin((10 * Math.PI) / 180);
/** The lines to the glass cross a frame's plane within its width grown by this (m): its own thickness's rounding. Ours. */
const FRAME_WIDTH_MARGIN_M = 0.05;

/** Where each view's camera was: the bundle views' extrinsics (camera-from-world). */
export type ViewCameras = ReadonlyArray<{ extrinsic: readonly (readonly number[])[] }>;

/** The box's axes in the world: a (yaw direction), b, and up. */
function boxAxes(n: GraphNode): [Vec3, Vec3, Vec3] {
  const c = Math.cos(n.box.yaw),
    s = Math.sin(n.box.yaw);
  return [
    [c, s, 0],
    [-s, c, 0],
    [0, 0, 1],
  ];
}

/** The mirror entry of a flat mirror-labelled node, its normal towards the cameras that saw it; null when it is not flat. */
function mirrorOf(n: GraphNode, cameras: readonly Vec3[]): GraphMirror | null {
  const e = n.box.extent;
  const order = [0, 1, 2].sort((i, j) => e[i]! - e[j]! || i - j);
  const thin = order[0]!;
  if (e[thin]! > MIRROR_MAX_THICKNESS_RATIO * e[order[2]!]!) return null;
  const axes = boxAxes(n);
  let normal = axes[thin]!;
  // a vertical mirror's width is its horizontal axis and its height the vertical one; a flat one's, its a and b axes
  const [wi, hi] = thin === 2 ? [0, 1] : [thin === 0 ? 1 : 0, 2];
  const centre = n.box.centre;
  const side = cameras.reduce((s, c) => s + signedPlaneDistance({ centre, normal }, c), 0);
  if (side < 0) normal = [-normal[0], -normal[1], -normal[2]];
  return {
    node: n.id,
    centre: [...centre],
    normal: normal.map((x) => x + 0) as Vec3,
    u: axes[wi]!,
    v: axes[hi]!,
    half_width_m: e[wi]! / 2,
    half_height_m: e[hi]! / 2,
  };
}

/**
 * Grows the rectangle of the mirror a mirror-labelled node behind it belongs to (the one whose centre is nearest
 * where the lines from the node's cameras cross its plane) to cover those crossings: the mirror's own pixels.
 */
function growToReflection(mirrors: GraphMirror[], cameras: readonly Vec3[], centroid: Vec3): void {
  let best: { m: GraphMirror; at: Array<[number, number]>; d: number } | null = null;
  for (const m of mirrors) {
    const at = cameras.flatMap((c) => {
      const x = planeCrossing(m, c, centroid, BEHIND_MIRROR_MIN_M);
      return x ? [rectangleCoordinates(m, x)] : [];
    });
    if (!at.length) continue;
    const d = Math.min(...at.map(([a, b]) => Math.hypot(a, b)));
    if (!best || d < best.d) best = { m, at, d };
  }
  if (!best) return;
  const { m, at } = best;
  const lo = [-m.half_width_m, -m.half_height_m],
    hi = [m.half_width_m, m.half_height_m];
  for (const p of at)
    for (const k of [0, 1]) {
      lo[k] = Math.min(lo[k]!, p[k]!);
      hi[k] = Math.max(hi[k]!, p[k]!);
    }
  const mid = [(lo[0]! + hi[0]!) / 2, (lo[1]! + hi[1]!) / 2];
  m.centre = [0, 1, 2].map((k) => m.centre[k]! + mid[0]! * m.u[k]! + mid[1]! * m.v[k]!) as Vec3;
  m.half_width_m = (hi[0]! - lo[0]!) / 2;
  m.half_height_m = (hi[1]! - lo[1]!) / 2;
}

/**
 * A mirror whose glass kept none of its pixels (a model that takes every reflection for geometry moves them all
 * behind it): its mirror-labelled node is the room it shows, behind the glass. What stays is what holds the glass: a
 * flat node (a frame, its bottom bar, a stand) whose plane the lines from the node's cameras to it cross within its
 * width, with the node behind that plane. That plane is the glass's; the rectangle spans the frame's width and, in
 * height, where the lines to the node's lowest and highest points cross it. The entry names the mirror-labelled node;
 * the farthest such flat node from the cameras wins (furniture in front is nearer). Null when the graph has none.
 */
function framedGlass(n: GraphNode, nodes: readonly GraphNode[], inMirror: readonly boolean[], cameras: readonly Vec3[]): GraphMirror | null {
  let best: { m: GraphMirror; d: number } | null = null;
  for (const [k, f] of nodes.entries()) {
    // a reflection (its masks inside a mirror's glass, or labelled mirror) holds no glass
    if (f.label === MIRROR_CATEGORY || inMirror[k] === true) continue;
    const m = mirrorOf(f, cameras);
    if (!m || Math.abs(m.normal[2]) > VERTICAL_NORMAL_MAX_Z) continue;
    const at = (z: number) =>
      cameras.flatMap((c) => {
        const x = planeCrossing(m, c, [n.centroid[0], n.centroid[1], z], BEHIND_MIRROR_MIN_M);
        return x ? [rectangleCoordinates(m, x)] : [];
      });
    const mid = at(n.centroid[2]);
    if (!mid.length || !mid.every(([a]) => Math.abs(a) <= m.half_width_m + FRAME_WIDTH_MARGIN_M)) continue;
    const heights = [...at(n.aabb.min[2]), ...at(n.aabb.max[2])].map(([, b]) => b);
    const lo = Math.min(...heights),
      hi = Math.max(...heights);
    const glass: GraphMirror = {
      ...m,
      node: n.id,
      centre: [0, 1, 2].map((k) => m.centre[k]! + ((lo + hi) / 2) * m.v[k]!) as Vec3,
      half_height_m: (hi - lo) / 2,
    };
    // the last flat surface before the room the glass shows: what holds the glass, not furniture in front of it
    const d = Math.min(...cameras.map((c) => Math.abs(signedPlaneDistance(m, c))));
    if (!best || d > best.d) best = { m: glass, d };
  }
  return best?.m ?? null;
}

/** The cameras of the views that saw a node. */
function camerasOf(n: GraphNode, centres: ReadonlyArray<Vec3 | undefined>): Vec3[] {
  return n.views.map((v) => centres[v]).filter((c): c is Vec3 => c !== undefined);
}

/**
 * The graph's mirrors, and `flags.behind_mirror` on the nodes seen through them. Mirror nodes are taken nearest
 * their cameras first; one seen through a mirror already taken is a mirror's reflection, not a mirror.
 * `inMirror`, per node: whether most of its 2D detections lay inside a mirror's glass (evidence.ts Segment).
 */
export function markMirrors(nodes: GraphNode[], views: ViewCameras, inMirror: readonly boolean[] = []): GraphMirror[] {
  for (const n of nodes) delete n.flags.behind_mirror;
  const labelled = nodes.filter((n) => n.label === MIRROR_CATEGORY);
  if (labelled.length === 0) return [];
  const centres = views.map((v) => cameraCentre(v.extrinsic as Mat34));
  const seenThrough = (n: GraphNode, mirrors: readonly GraphMirror[]) =>
    mirrors.find((m) => camerasOf(n, centres).some((c) => seenThroughMirror(m, c, n.centroid, BEHIND_MIRROR_MIN_M, RECTANGLE_MARGIN_M)));
  const distance = (n: GraphNode) => {
    const cs = camerasOf(n, centres);
    return cs.reduce((s, c) => s + Math.hypot(c[0] - n.centroid[0], c[1] - n.centroid[1], c[2] - n.centroid[2]), 0) / (cs.length || 1);
  };
  const mirrors: GraphMirror[] = [];
  for (const n of [...labelled].sort((a, b) => distance(a) - distance(b) || (a.id < b.id ? -1 : 1))) {
    if (seenThrough(n, mirrors)) continue;
    const m = framedGlass(n, nodes, inMirror, camerasOf(n, centres)) ?? mirrorOf(n, camerasOf(n, centres));
    if (m) mirrors.push(m);
  }
  const isMirror = new Set(mirrors.map((m) => m.node));
  // the rest of a mirror's pixels: its other mirror-labelled nodes, and the nodes of what its glass shows (a
  // segmenter labels a reflection as the object it shows, inside the mirror's mask)
  const reflections = nodes.filter((n, k) => !isMirror.has(n.id) && (n.label === MIRROR_CATEGORY || inMirror[k] === true));
  for (const n of reflections) growToReflection(mirrors, camerasOf(n, centres), n.centroid);
  for (const n of nodes) {
    const m = isMirror.has(n.id) ? undefined : seenThrough(n, mirrors);
    if (m) n.flags.behind_mirror = m.node;
  }
  // in node order, as the graph lists its nodes
  const order = new Map(nodes.map((n, k) => [n.id, k]));
  return mirrors.sort((a, b) => order.get(a.node)! - order.get(b.node)!);
}
