/**
 * Spatial relations, computed deterministically from boxes and points with documented thresholds and a
 * margin: how far (m) the deciding quantity is from its threshold. The same code builds the relations of
 * predicted graphs and of the ground-truth graph, so the two are comparable.
 * Candidate pairs: boxes within CANDIDATE_RADIUS_M of each other (3DSSG's receptive field).
 */
import type { Vec3 } from "../src/core/math/vec.js";
import { TOUCHING_GAP_M } from "../bridge/task/rules.js";
import { KdTree3 } from "./primitives/kdtree.js";
import { footprintIntersectionArea, type YawBox } from "./primitives/boxes.js";
import type { Predicate, Relation, YawBoxJson } from "./types.js";

/** 3DSSG `radius_receptive`: only pairs whose boxes come within 0.5 m of each other get relations. */
export const CANDIDATE_RADIUS_M = 0.5;
/** `on`: A's bottom within [B.top - 0.05, B.top + 0.03] (anchors §11, VLA-3D/SceneVerse) ... */
export const ON_BELOW_TOP_M = 0.05;
export const ON_ABOVE_TOP_M = 0.03;
/** ... and A's footprint at least half over B's (intersection over A's area, VLA-3D IoM 0.5). */
export const ON_MIN_IOM = 0.5;
/** `above`/`below`: a vertical gap of at least 1 cm over footprints that overlap by IoM > 0.5 (VLA-3D). */
export const ABOVE_MIN_GAP_M = 0.01;
/** `inside`: A's centre within B's footprint and A's height range within B's, with this tolerance (m). */
export const INSIDE_Z_TOLERANCE_M = 0.02;
/** `near`: closest points within 0.5 m (3DSSG receptive field) and not touching. */
export const NEAR_M = 0.5;
/** Egocentric left/right/front/behind: differences under 0.1 m give no relation (anchors §11 dead-zone). */
export const EGO_DEAD_ZONE_M = 0.1;

export interface RelNode {
  id: string;
  box: YawBoxJson;
  /** Downsampled points (for closest distances). */
  xyz: Float32Array;
  /**
   * Optional full-resolution points: closest distances under REFINE_BELOW_M are measured again on them,
   * because voxel means sit up to half a voxel inside a curved surface and would open a touching gap.
   */
  fine?: Float32Array;
}

/** Pairs closer than this (m) on downsampled points get their closest distance measured on the fine points. */
export const REFINE_BELOW_M = 3 * TOUCHING_GAP_M;

export interface Viewpoint {
  position: Vec3;
  yaw: number;
}

/** Our JSON box as the primitives' yaw box. */
export function asYawBox(b: YawBoxJson): YawBox {
  return { center: b.centre, extent: b.extent, yaw: b.yaw, volume: b.extent[0] * b.extent[1] * b.extent[2] };
}

const footprintArea = (b: YawBoxJson) => b.extent[0] * b.extent[1];
const bottom = (b: YawBoxJson) => b.centre[2] - b.extent[2] / 2;
const top = (b: YawBoxJson) => b.centre[2] + b.extent[2] / 2;

/** Intersection of the footprints over the smaller... over A's footprint area. */
export function footprintIoA(a: YawBoxJson, b: YawBoxJson): number {
  const ia = footprintArea(a);
  return ia > 0 ? footprintIntersectionArea(asYawBox(a), asYawBox(b)) / ia : 0;
}

/** Signed distance (m) of (x, y) inside B's footprint: positive inside, negative outside. */
function insideDepth(b: YawBoxJson, x: number, y: number): number {
  const c = Math.cos(b.yaw), s = Math.sin(b.yaw);
  const dx = x - b.centre[0], dy = y - b.centre[1];
  return Math.min(b.extent[0] / 2 - Math.abs(c * dx + s * dy), b.extent[1] / 2 - Math.abs(-s * dx + c * dy));
}

function boxGap(a: YawBoxJson, b: YawBoxJson): number {
  // conservative: gap between bounding circles in XY combined with the z gap
  const ra = Math.hypot(a.extent[0], a.extent[1]) / 2, rb = Math.hypot(b.extent[0], b.extent[1]) / 2;
  const dxy = Math.max(0, Math.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) - ra - rb);
  const dz = Math.max(0, bottom(a) - top(b), bottom(b) - top(a));
  return Math.hypot(dxy, dz);
}

/** A point set with its kd-tree and bounds, built once per node and reused for every pair. */
interface Indexed {
  xyz: Float32Array;
  tree: KdTree3;
  min: [number, number, number];
  max: [number, number, number];
}

function indexed(xyz: Float32Array): Indexed {
  const min: [number, number, number] = [Infinity, Infinity, Infinity], max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < xyz.length; i += 3)
    for (let a = 0; a < 3; a++) {
      const v = xyz[i + a]!;
      if (v < min[a]!) min[a] = v;
      if (v > max[a]!) max[a] = v;
    }
  return { xyz, tree: new KdTree3(xyz), min, max };
}

/**
 * Closest distance between two point sets (m), or `maxM` when they are farther apart: nearest-point
 * queries of the smaller set in the larger set's kd-tree, each bounded by the best so far, skipping
 * query points whose distance to the other set's box already exceeds it.
 */
export function closestDistance(a: Indexed, b: Indexed, maxM: number): number {
  const [q, t] = a.xyz.length <= b.xyz.length ? [a, b] : [b, a];
  let best = maxM;
  const p = q.xyz;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!, y = p[i + 1]!, z = p[i + 2]!;
    const dx = x < t.min[0] ? t.min[0] - x : x > t.max[0] ? x - t.max[0] : 0;
    const dy = y < t.min[1] ? t.min[1] - y : y > t.max[1] ? y - t.max[1] : 0;
    const dz = z < t.min[2] ? t.min[2] - z : z > t.max[2] ? z - t.max[2] : 0;
    if (dx * dx + dy * dy + dz * dz >= best * best) continue;
    if (t.tree.nearest(x, y, z, best) >= 0) best = Math.sqrt(t.tree.lastNearestD2);
    if (best === 0) break;
  }
  return best;
}

const round = (x: number, dp = 4) => Math.round(x * 10 ** dp) / 10 ** dp;

export function computeRelations(nodes: readonly RelNode[], viewpoint: Viewpoint): Relation[] {
  const out: Relation[] = [];
  const coarse = new Map<string, Indexed>(), fine = new Map<string, Indexed>();
  const coarseOf = (n: RelNode) => coarse.get(n.id) ?? coarse.set(n.id, indexed(n.xyz)).get(n.id)!;
  const fineOf = (n: RelNode) => fine.get(n.id) ?? fine.set(n.id, indexed(n.fine!)).get(n.id)!;
  const fwd: [number, number] = [Math.cos(viewpoint.yaw), Math.sin(viewpoint.yaw)];
  const right: [number, number] = [fwd[1], -fwd[0]];
  const push = (subject: RelNode, predicate: Predicate, object: RelNode, margin: number, centre: number, closest: number) =>
    out.push({ subject: subject.id, predicate, object: object.id, margin_m: round(Math.max(0, margin)), centre_distance_m: round(centre), closest_distance_m: round(closest) });
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const A = nodes[i]!, B = nodes[j]!;
      if (boxGap(A.box, B.box) > CANDIDATE_RADIUS_M) continue;
      const ca = A.box.centre, cb = B.box.centre;
      const centre = Math.hypot(ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]);
      let closest = A.xyz.length && B.xyz.length ? closestDistance(coarseOf(A), coarseOf(B), CANDIDATE_RADIUS_M) : boxGap(A.box, B.box);
      if (closest < REFINE_BELOW_M && A.fine && B.fine && A.fine.length && B.fine.length) closest = Math.min(closest, closestDistance(fineOf(A), fineOf(B), REFINE_BELOW_M));
      // symmetric predicates, once per pair
      if (closest <= TOUCHING_GAP_M) push(A, "touching", B, TOUCHING_GAP_M - closest, centre, closest);
      else if (closest < NEAR_M) push(A, "near", B, Math.min(closest - TOUCHING_GAP_M, NEAR_M - closest), centre, closest);
      for (const [X, Y] of [[A, B], [B, A]] as const) {
        const iom = footprintIoA(X.box, Y.box);
        const iomMargin = (iom - ON_MIN_IOM) * Math.sqrt(footprintArea(X.box));
        const zb = bottom(X.box), ty = top(Y.box);
        const onSlack = Math.min(zb - (ty - ON_BELOW_TOP_M), ty + ON_ABOVE_TOP_M - zb);
        const isOn = onSlack >= 0 && iom > ON_MIN_IOM && footprintArea(Y.box) > footprintArea(X.box);
        if (isOn) {
          const m = Math.min(onSlack, iomMargin);
          push(X, "on", Y, m, centre, closest);
          push(Y, "supports", X, m, centre, closest);
        } else if (zb >= ty + ABOVE_MIN_GAP_M && iom > ON_MIN_IOM) {
          const m = Math.min(zb - ty - ABOVE_MIN_GAP_M, iomMargin);
          push(X, "above", Y, m, centre, closest);
          push(Y, "below", X, m, centre, closest);
        }
        // inside: X's centre in Y's footprint, X's height range within Y's, X smaller on every axis
        const depth = insideDepth(Y.box, X.box.centre[0], X.box.centre[1]);
        const zIn = Math.min(bottom(X.box) - bottom(Y.box) + INSIDE_Z_TOLERANCE_M, top(Y.box) + INSIDE_Z_TOLERANCE_M - top(X.box));
        const smaller = Math.max(...X.box.extent) < Math.max(...Y.box.extent) && X.box.extent[2] < Y.box.extent[2];
        if (depth > 0 && zIn >= 0 && smaller && !isOn) {
          push(X, "inside", Y, Math.min(depth, zIn), centre, closest);
          push(Y, "contains", X, Math.min(depth, zIn), centre, closest);
        }
      }
      // egocentric, from the agent's initial viewpoint: right is the camera's right, front is nearer to it
      const dx = cb[0] - ca[0], dy = cb[1] - ca[1];
      const lateral = dx * right[0] + dy * right[1];
      if (Math.abs(lateral) > EGO_DEAD_ZONE_M) {
        const [L, R] = lateral > 0 ? [A, B] : [B, A];
        push(L, "left_of", R, Math.abs(lateral) - EGO_DEAD_ZONE_M, centre, closest);
        push(R, "right_of", L, Math.abs(lateral) - EGO_DEAD_ZONE_M, centre, closest);
      }
      const da = (ca[0] - viewpoint.position[0]) * fwd[0] + (ca[1] - viewpoint.position[1]) * fwd[1];
      const db = (cb[0] - viewpoint.position[0]) * fwd[0] + (cb[1] - viewpoint.position[1]) * fwd[1];
      if (Math.abs(da - db) > EGO_DEAD_ZONE_M) {
        const [F, Bk] = da < db ? [A, B] : [B, A];
        push(F, "in_front_of", Bk, Math.abs(da - db) - EGO_DEAD_ZONE_M, centre, closest);
        push(Bk, "behind", F, Math.abs(da - db) - EGO_DEAD_ZONE_M, centre, closest);
      }
    }
  }
  return out;
}
