/**
 * Stacking & Stability's offline program, shared by the 3D arm (each item's graph node: its label and its box's
 * footprint) and the 2D arm (each item's mask in one view: its label and its apparent width). Neither arm can see
 * where the generator put each object on the one below or what anything weighs, so the program orders by shape:
 *
 * - FLAT_FACE rule: an object goes the higher the less of its footprint its narrower flat face (top or bottom) fills.
 *   Why: each upper object lands anywhere over the lower one's top (ESI's `sample_kinematics("onTop")`), and a stack
 *   stands while every centre of mass above rests over the face below it (a full square top catches any landing
 *   spot; a can's round top, a bowl's narrow foot or a candle's wick does not). The share is the label's library
 *   model's (flatFaceShares): category knowledge, as the 2D arm's wall model is, never the task's own record.
 * - FOOTPRINT rule: between equal shares, the larger footprint goes lower (a wider base), ESI's selection prompt's
 *   "flat-bottomed (stable base)".
 * - Then the items' listed order, so that the answer is one order.
 */
import { buildModel, LIBRARY } from "../../core/objects/library.js";
import { convexHull2d } from "../../scenegraph/primitives/hull2d.js";
import { marginConfidence, type Decision } from "./decision.js";

/** FLAT_FACE compares shares in steps of this (equal steps go to FOOTPRINT). Ours: a twentieth of a footprint. */
const SHARE_TIE = 0.05;
/** A share gap this large between neighbours makes the FLAT_FACE order certain (marginConfidence's scale). Ours. */
const SHARE_CERTAIN = 0.25;
/** Vertices this close (m) to a model's lowest or highest point lie on its bottom or top face. */
const FACE_TOLERANCE_M = 1e-6;

/** Area of the convex hull of 2D points (the graph's own hull, then the shoelace formula). */
function hullArea(points: ReadonlyArray<readonly [number, number]>): number {
  if (points.length < 3) return 0;
  const xy = Float64Array.from(points.flat());
  const ring = convexHull2d(xy);
  let twice = 0;
  ring.forEach((i, k) => {
    const j = ring[(k + 1) % ring.length]!;
    twice += xy[2 * i]! * xy[2 * j + 1]! - xy[2 * j]! * xy[2 * i + 1]!;
  });
  return Math.abs(twice) / 2;
}

const shareCache = new Map<string, { top: number; bottom: number } | null>();

/**
 * The shares of its box footprint that a category's top and bottom faces fill (its library model, the first one),
 * or null for a label the library does not know. Scale-free: a rescaled object keeps them.
 * Inclined Plane's programs read the bottom share too (an object without a flat bottom rolls).
 */
export function flatFaceShares(label: string): { top: number; bottom: number } | null {
  if (shareCache.has(label)) return shareCache.get(label)!;
  const def = LIBRARY.get(label);
  let shares: { top: number; bottom: number } | null = null;
  if (def) {
    const model = buildModel(def.models[0]!.id);
    const t = model.tris;
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 2; i < t.length; i += 3) {
      lo = Math.min(lo, t[i]!);
      hi = Math.max(hi, t[i]!);
    }
    const face = (z: number) => {
      const pts: Array<[number, number]> = [];
      for (let i = 0; i < t.length; i += 3) if (Math.abs(t[i + 2]! - z) <= FACE_TOLERANCE_M) pts.push([t[i]!, t[i + 1]!]);
      return hullArea(pts) / (model.extent[0] * model.extent[1]);
    };
    shares = { top: face(hi), bottom: face(lo) };
  }
  shareCache.set(label, shares);
  return shares;
}

/** What an arm sees of one item: its label and its footprint (m^2 from a graph box, px^2 from a mask: compared within one arm). */
export interface StackEvidence {
  item: string;
  label: string;
  footprint: number;
}

/** The order, bottom first, by FLAT_FACE then FOOTPRINT then the listed order; declines on a label without a model. */
export function stackOrder(evidence: readonly StackEvidence[], trace: string[]): Decision {
  const scored = evidence.map((e, listed) => ({ ...e, listed, shares: flatFaceShares(e.label) }));
  const unknown = scored.find((s) => !s.shares);
  if (unknown)
    return { unanswerable: `no shape for the label ${unknown.label} (${unknown.item})`, trace: [...trace, `unanswerable: no shape for ${unknown.label}`] };
  const share = (s: (typeof scored)[number]) => Math.min(s.shares!.top, s.shares!.bottom);
  for (const s of scored)
    trace.push(
      `${s.item}: narrower flat face ${share(s).toFixed(2)} of its footprint (top ${s.shares!.top.toFixed(2)}, bottom ${s.shares!.bottom.toFixed(2)}), footprint ${s.footprint.toPrecision(3)}`,
    );
  const step = (s: (typeof scored)[number]) => Math.round(share(s) / SHARE_TIE);
  const order = [...scored].sort((a, b) => step(b) - step(a) || b.footprint - a.footprint || a.listed - b.listed);
  // how far from another order: the smallest share gap between neighbours (a tie broken by footprint counts as 0)
  const gaps = order.slice(1).map((s, k) => Math.max(0, share(order[k]!) - share(s)));
  const answer = JSON.stringify(order.map((s) => s.item));
  trace.push(`bottom to top: ${order.map((s) => s.item).join(", ")}`);
  return { answer, confidence: marginConfidence(Math.min(...gaps), SHARE_CERTAIN), trace };
}
