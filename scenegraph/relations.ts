/**
 * Spatial relations, computed deterministically from boxes and points with documented thresholds and a
 * margin: how far (m) the deciding quantity is from its threshold. The same code builds the relations of
 * predicted graphs and of the ground-truth graph, so the two are comparable.
 * Candidate pairs: boxes within CANDIDATE_RADIUS_M of each other (3DSSG's receptive field).
 */
import type { Vec3 } from "../core/math/vec.js";
import { TOUCHING_GAP_M } from "../core/task/rules.js";
import { aabb, type Aabb, footprintIntersectionArea } from "./primitives/boxes.js";
import { closestDistance, indexPoints, type IndexedPoints } from "./primitives/overlap.js";
import { boxBottom, boxTop, type YawBox } from "../core/geometry.js";
import type { Predicate, Relation } from "./types.js";
import { STACK_MIN_RISE_M, STACK_MIN_XY_IOU } from "../core/task/rules.js";

/** 3DSSG `radius_receptive`: only pairs whose boxes come within 0.5 m of each other get relations. */
export const CANDIDATE_RADIUS_M = 0.5;
/** `on`: A's bottom within [B.top - 0.05, B.top + 0.03] (VLA-3D's and SceneVerse's rule-based relations) ... */
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
/*
 * `stacked_on` / `stacked_under`: ESI-Bench's `is_on_top` (Stacking & Stability): the upper node's lowest point at
 * least STACK_MIN_RISE_M above the lower one's (the spec's 0.02 m; the runner's released stacking.py asks only
 * "above") and the XY IoU of their axis-aligned bounds at least STACK_MIN_XY_IOU (core/task/rules.ts) ...
 */
/**
 * ... and the two touching (closest points within TOUCHING_GAP_M): ESI tests a stack it built, where every pair is in
 * contact; in a graph of a whole room the rule alone would stack a lamp over a far-below rug. Ours.
 */
export const STACK_CONTACT_M = TOUCHING_GAP_M;
/** Egocentric left/right/front/behind: differences under 0.1 m give no relation (a dead zone, as rule-based relation sets have). */
export const EGO_DEAD_ZONE_M = 0.1;

export interface RelNode {
  id: string;
  box: YawBox;
  /** Downsampled points (for closest distances). */
  xyz: Float32Array;
  /**
   * Optional full-resolution points: closest distances under REFINE_BELOW_M are measured again on them,
   * because voxel means sit up to half a voxel inside a curved surface and would open a touching gap.
   */
  fine?: Float32Array;
}

/** Pairs closer than this (m) on downsampled points get their closest distance measured on the fine points. */
const REFINE_BELOW_M = 3 * TOUCHING_GAP_M;

export interface Viewpoint {
  position: Vec3;
  yaw: number;
}

const footprintArea = (b: YawBox) => b.extent[0] * b.extent[1];

/** Intersection of the footprints over A's footprint area. */
function footprintIoA(a: YawBox, b: YawBox): number {
  const ia = footprintArea(a);
  return ia > 0 ? footprintIntersectionArea(a, b) / ia : 0;
}

/** Signed distance (m) of (x, y) inside B's footprint: positive inside, negative outside. */
function insideDepth(b: YawBox, x: number, y: number): number {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const dx = x - b.centre[0],
    dy = y - b.centre[1];
  return Math.min(b.extent[0] / 2 - Math.abs(c * dx + s * dy), b.extent[1] / 2 - Math.abs(-s * dx + c * dy));
}

function boxGap(a: YawBox, b: YawBox): number {
  // conservative: gap between bounding circles in XY combined with the z gap
  const ra = Math.hypot(a.extent[0], a.extent[1]) / 2,
    rb = Math.hypot(b.extent[0], b.extent[1]) / 2;
  const dxy = Math.max(0, Math.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) - ra - rb);
  const dz = Math.max(0, boxBottom(a) - boxTop(b), boxBottom(b) - boxTop(a));
  return Math.hypot(dxy, dz);
}

/** Intersection over union of two axis-aligned bounds seen from above (ESI's `xy_iou`). */
function xyIoU(a: Aabb, b: Aabb): number {
  const ix = Math.max(0, Math.min(a.max[0], b.max[0]) - Math.max(a.min[0], b.min[0]));
  const iy = Math.max(0, Math.min(a.max[1], b.max[1]) - Math.max(a.min[1], b.min[1]));
  const inter = ix * iy;
  const union = xyArea(a) + xyArea(b) - inter;
  return union > 1e-8 ? inter / union : 0;
}
const xyArea = (a: Aabb) => Math.max(0, a.max[0] - a.min[0]) * Math.max(0, a.max[1] - a.min[1]);

const round = (x: number, dp = 4) => Math.round(x * 10 ** dp) / 10 ** dp;

export function computeRelations(nodes: readonly RelNode[], viewpoint: Viewpoint): Relation[] {
  const out: Relation[] = [];
  const coarse = new Map<string, IndexedPoints>(),
    fine = new Map<string, IndexedPoints>();
  const coarseOf = (n: RelNode) => coarse.get(n.id) ?? coarse.set(n.id, indexPoints(n.xyz)).get(n.id)!;
  const fineOf = (n: RelNode) => fine.get(n.id) ?? fine.set(n.id, indexPoints(n.fine!)).get(n.id)!;
  const bounds = new Map<string, Aabb>();
  const boundsOf = (n: RelNode) => bounds.get(n.id) ?? bounds.set(n.id, aabb(n.xyz)).get(n.id)!;
  const fwd: [number, number] = [Math.cos(viewpoint.yaw), Math.sin(viewpoint.yaw)];
  const right: [number, number] = [fwd[1], -fwd[0]];
  const push = (subject: RelNode, predicate: Predicate, object: RelNode, margin: number, centre: number, closest: number) =>
    out.push({
      subject: subject.id,
      predicate,
      object: object.id,
      margin_m: round(Math.max(0, margin)),
      centre_distance_m: round(centre),
      closest_distance_m: round(closest),
    });
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const A = nodes[i]!,
        B = nodes[j]!;
      if (boxGap(A.box, B.box) > CANDIDATE_RADIUS_M) continue;
      const ca = A.box.centre,
        cb = B.box.centre;
      const centre = Math.hypot(ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]);
      let closest = A.xyz.length && B.xyz.length ? closestDistance(coarseOf(A), coarseOf(B), CANDIDATE_RADIUS_M) : boxGap(A.box, B.box);
      if (closest < REFINE_BELOW_M && A.fine && B.fine && A.fine.length && B.fine.length)
        closest = Math.min(closest, closestDistance(fineOf(A), fineOf(B), REFINE_BELOW_M));
      // symmetric predicates, once per pair
      if (closest <= TOUCHING_GAP_M) push(A, "touching", B, TOUCHING_GAP_M - closest, centre, closest);
      else if (closest < NEAR_M) push(A, "near", B, Math.min(closest - TOUCHING_GAP_M, NEAR_M - closest), centre, closest);
      for (const [X, Y] of [
        [A, B],
        [B, A],
      ] as const) {
        const iom = footprintIoA(X.box, Y.box);
        const iomMargin = (iom - ON_MIN_IOM) * Math.sqrt(footprintArea(X.box));
        const zb = boxBottom(X.box),
          ty = boxTop(Y.box);
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
        const zIn = Math.min(boxBottom(X.box) - boxBottom(Y.box) + INSIDE_Z_TOLERANCE_M, boxTop(Y.box) + INSIDE_Z_TOLERANCE_M - boxTop(X.box));
        const smaller = Math.max(...X.box.extent) < Math.max(...Y.box.extent) && X.box.extent[2] < Y.box.extent[2];
        if (depth > 0 && zIn >= 0 && smaller && !isOn) {
          push(X, "inside", Y, Math.min(depth, zIn), centre, closest);
          push(Y, "contains", X, Math.min(depth, zIn), centre, closest);
        }
      }
      // stacked: ESI's stacking rule between two nodes in contact; at most one of the pair can rise over the other
      if (closest <= STACK_CONTACT_M && A.xyz.length && B.xyz.length) {
        const ba = boundsOf(A),
          bb = boundsOf(B);
        const [U, L, bu, bl] = ba.min[2] >= bb.min[2] ? [A, B, ba, bb] : [B, A, bb, ba];
        const rise = bu.min[2] - bl.min[2];
        const iou = xyIoU(bu, bl);
        if (rise >= STACK_MIN_RISE_M && iou >= STACK_MIN_XY_IOU) {
          const m = Math.min(rise - STACK_MIN_RISE_M, (iou - STACK_MIN_XY_IOU) * Math.sqrt(Math.min(xyArea(bu), xyArea(bl))), STACK_CONTACT_M - closest);
          push(U, "stacked_on", L, m, centre, closest);
          push(L, "stacked_under", U, m, centre, closest);
        }
      }
      // egocentric, from the agent's initial viewpoint: right is the camera's right, front is nearer to it
      const dx = cb[0] - ca[0],
        dy = cb[1] - ca[1];
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
