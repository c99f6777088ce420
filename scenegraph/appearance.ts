/**
 * Label evidence that depends on what was seen (`--labels appearance`, issue 16): a seeded error model of a
 * 2D detector's class scores, in the spirit of the noisy source's error model (reconstruct/noisy/params.ts).
 * With `--labels oracle` every mask carries its object's true category; with `appearance` each mask (one
 * object's visible pixels in one view) gets scores over its category and the category's look-alikes
 * (core/objects/library.ts `confusables`), from what the view shows:
 * - the view's quality q in [0, 1] is the product of the visible fraction (an occluded object gives its
 *   look-alikes weight by how little of it shows), a size factor (small masks give weak evidence) and a
 *   light factor (dark views, Illumination Variability, give weak evidence);
 * - the apparent class gets log-odds q * FULL_VIEW_LOG_ODDS over each look-alike; a view that hides a
 *   category's distinguishing part (a mug's handle, a piano's keyboard: `flags.ambiguous`) gives the
 *   category and its first look-alike the same score, as the two look the same from there;
 * - the detector's scores are those logits plus Gumbel noise drawn from (seed, task, view, object), so the
 *   top label is a sample of the softmax of the logits (the Gumbel-max rule) and the reported scores are
 *   noisy too: nothing downstream can read the true class off them.
 * The masks keep their pixels: only labels change. Both arms read the result: the graph builder fuses the
 * scores as soft votes (nodes' label_distribution, serialized with `--uncertainty on`), and the 2D
 * baseline (src/reason/symbolic2d.ts) reads the same per-mask labels.
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { LIBRARY } from "../core/objects/library.js";
import { cameraCentre, projectPoint } from "../core/math/camera.js";
import { quatToMat } from "../core/math/quat.js";
import { Rng } from "../core/math/rng.js";
import { tallyIds } from "../core/idTally.js";
import { computeEvidence, type Evidence, type Segment } from "./evidence.js";
import type { LabelMode, MaskMode } from "./options.js";
import { segmentPixelStats } from "./segmentStats.js";

/**
 * Top-1 probability of the apparent class in a fully visible, large, well-lit view: 0.95. Our choice, for a
 * closed-vocabulary detector on clean renders; COCO-trained detectors classify large unoccluded objects of
 * a known class at about this rate. Turned into log-odds over the look-alikes per mask (fullViewLogOdds).
 */
export const FULL_VIEW_TOP1 = 0.95;
/**
 * Mask area (px) at which size stops weakening the evidence: 32 x 32 = 1024 px, COCO's "small object"
 * bound (Lin et al. 2014, cocodataset.org detection eval), where detectors' AP roughly halves. Below it the
 * size factor is sqrt(area / this).
 */
export const FULL_EVIDENCE_AREA_PX = 32 * 32;
/**
 * Mean mask luma (8-bit, Rec. 601) at which light stops weakening the evidence: 60, about a quarter of the
 * range. Our choice: ExDark-style low-light images (mean luma well below 64) are where detectors' recall
 * falls; the built-in suite's dimly lit rooms (ambient 0.1-0.15) render masks near 20-40.
 */
export const WELL_LIT_LUMA = 60;
/**
 * Share of the rectangle around an object's projected box that its silhouette fills when fully visible:
 * 0.6. Our estimate: a round or cylindrical object fills about pi/4 of its box's outline, and that outline
 * about 3/4 of the rectangle around the projected corners. The visible fraction is mask area over this
 * share of the rectangle, capped at 1.
 */
const SILHOUETTE_FILL = 0.6;
/**
 * Half-width (deg) of the azimuth window around `ambiguousAzimuthDeg` in which the distinguishing part is
 * hidden: 36. From the mug's geometry (library.ts): a handle reaching 0.069 m from the axis behind a body
 * of radius 0.041 m is hidden while the view is within asin(0.041 / 0.069) = 36 deg of the far side.
 */
const HIDDEN_PART_HALF_WIDTH_DEG = 36;
/** Gumbel noise scale of the detector's logits: 1, so the top label is a sample of softmax(logits). */
const GUMBEL_SCALE = 1;

/** One mask's label evidence. */
export interface MaskLabel {
  /** the detector's top label */
  label: string;
  /** its scores over the candidate classes (sum 1) */
  scores: Record<string, number>;
  /** the view's evidence quality and its factors */
  quality: { q: number; visible: number; size: number; light: number; partHidden: boolean };
}

/** The classes a mask of `category` may be read as: the category and its look-alikes (none outside the library). */
function candidateClasses(category: string): string[] {
  return [category, ...(LIBRARY.get(category)?.confusables ?? [])];
}

/** Log-odds of the apparent class over each of `n` look-alikes in a perfect view. */
const fullViewLogOdds = (n: number) => Math.log((FULL_VIEW_TOP1 / (1 - FULL_VIEW_TOP1)) * n);

const angleDiffDeg = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);

type View = FrameBundle["views"][number] & { intrinsics?: unknown };

/** Per view position, the keys of its segments, ascending. */
function segmentsByView(ev: Evidence, views: ReadonlyArray<{ index: number }>): number[][] {
  const position = new Map(views.map((v, i) => [v.index, i]));
  const out = views.map((): number[] => []);
  for (const s of ev.segments) out[position.get(s.view)!]?.push(s.key);
  return out;
}

/** The id shown most among the pixels of segment `key` (ties: the lower id). */
function dominantId(ids: Uint16Array, map: Int32Array, key: number): number {
  const at: number[] = [];
  for (let p = 0; p < map.length; p++) if (map[p] === key) at.push(p);
  const t = tallyIds(ids, at);
  let best = 0;
  for (let j = 1; j < t.ids.length; j++) if (t.counts[j]! > t.counts[best]! || (t.counts[j] === t.counts[best] && t.ids[j]! < t.ids[best]!)) best = j;
  return t.ids[best]!;
}

/** Area (px) of the rectangle around the object's projected box corners, or null when a corner is behind the camera. */
function projectedRectArea(bundle: Pick<FrameBundle, "manifest">, viewIndex: number, objectId: number): number | null {
  const o = bundle.manifest.task?.objects.find((x) => x.id === objectId);
  const mv = bundle.manifest.views.find((v) => v.index === viewIndex);
  if (!o || !mv) return null;
  const R = quatToMat(o.orientation);
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const sx of [-0.5, 0.5])
    for (const sy of [-0.5, 0.5])
      for (const sz of [-0.5, 0.5]) {
        const l = [sx * o.extent[0], sy * o.extent[1], sz * o.extent[2]];
        const w: [number, number, number] = [0, 1, 2].map((r) => o.position[r]! + R[r]![0]! * l[0]! + R[r]![1]! * l[1]! + R[r]![2]! * l[2]!) as [
          number,
          number,
          number,
        ];
        const { u, v, z } = projectPoint(mv.extrinsic, mv.intrinsics, w);
        if (z <= 0) return null;
        [x0, y0, x1, y1] = [Math.min(x0, u), Math.min(y0, v), Math.max(x1, u), Math.max(y1, v)];
      }
  const { width: W, height: H } = bundle.manifest.image;
  // only the part inside the image can show: a box cut by the image border is not occluded
  const w = Math.max(0, Math.min(W, x1) - Math.max(0, x0)),
    h = Math.max(0, Math.min(H, y1) - Math.max(0, y0));
  return w * h;
}

/** Whether the view looks at the object from the side that hides its distinguishing part. */
function partHidden(bundle: Pick<FrameBundle, "manifest">, viewIndex: number, objectId: number, category: string): boolean {
  const amb = LIBRARY.get(category)?.flags.ambiguous;
  const o = bundle.manifest.task?.objects.find((x) => x.id === objectId);
  const mv = bundle.manifest.views.find((v) => v.index === viewIndex);
  if (!amb || !o || !mv) return false;
  const c = cameraCentre(mv.extrinsic);
  const R = quatToMat(o.orientation);
  const d = [c[0] - o.position[0], c[1] - o.position[1], c[2] - o.position[2]];
  // the direction towards the camera in the object's frame (R^T d)
  const lx = R[0]![0]! * d[0]! + R[1]![0]! * d[1]! + R[2]![0]! * d[2]!;
  const ly = R[0]![1]! * d[0]! + R[1]![1]! * d[1]! + R[2]![1]! * d[2]!;
  const az = (Math.atan2(ly, lx) * 180) / Math.PI;
  return angleDiffDeg(az, amb.ambiguousAzimuthDeg) <= HIDDEN_PART_HALF_WIDTH_DEG;
}

/** The label evidence of one mask: the view's quality, the logits over the candidates, the Gumbel-noised scores. */
export function maskLabel(category: string, px: { n: number; luma: number }, rectArea: number | null, hidden: boolean, rng: Rng): MaskLabel {
  const classes = candidateClasses(category);
  const visible = rectArea && rectArea > 0 ? Math.min(1, px.n / (SILHOUETTE_FILL * rectArea)) : 1;
  const size = Math.min(1, Math.sqrt(px.n / FULL_EVIDENCE_AREA_PX));
  const light = Math.min(1, px.luma / px.n / WELL_LIT_LUMA);
  const q = visible * size * light;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const quality = { q: r3(q), visible: r3(visible), size: r3(size), light: r3(light), partHidden: hidden };
  if (classes.length === 1) return { label: category, scores: { [category]: 1 }, quality };
  const L = q * fullViewLogOdds(classes.length - 1);
  const logits = classes.map((_c, k) => (k === 0 || (hidden && k === 1) ? L : 0));
  // Gumbel(0, 1) noise: -ln(-ln U), U in (0, 1)
  const noisy = logits.map((l) => l + GUMBEL_SCALE * -Math.log(-Math.log(Math.min(1 - 1e-12, Math.max(1e-12, rng.next())))));
  const top = noisy.indexOf(Math.max(...noisy));
  const e = noisy.map((x) => Math.exp(x - noisy[top]!));
  const sum = e.reduce((a, b) => a + b, 0);
  const scores: Record<string, number> = {};
  classes.forEach((c, k) => (scores[c] = r3(e[k]! / sum)));
  return { label: classes[top]!, scores, quality };
}

/**
 * The evidence with appearance labels: every segment keeps its pixels and takes the detector's top label and
 * scores. Drawn from (seed, task, view, object): the same seed gives the same labels in every arm and run.
 */
export function appearanceEvidence(
  bundle: Pick<FrameBundle, "manifest" | "views">,
  ev: Evidence,
  seed: string,
): { evidence: Evidence; labels: Map<number, MaskLabel> } {
  const labels = new Map<number, MaskLabel>();
  const category = new Map(bundle.manifest.instances.map((e) => [e.id, e.category]));
  const root = new Rng(`appearance/${seed}/${bundle.manifest.task_id}`);
  const px = segmentPixelStats(ev, bundle.views);
  const byView = segmentsByView(ev, bundle.views);
  bundle.views.forEach((view: View, vi) => {
    // the view's segments in order of their first pixel (their keys were given in that order)
    for (const key of byView[vi]!) {
      const seg = ev.segments[key]!;
      if (seg.label === null || px.n[key] === 0) continue;
      // a segment that shows one id (every instance-mode mask) needs no id tally
      const id = px.mixed[key] ? dominantId(view.ids, ev.segmentOfPixel[vi]!, key) : px.firstId[key]!;
      const cat = category.get(id) ?? seg.label;
      const rng = root.fork(`${view.index}/${id}/${key}`);
      labels.set(
        key,
        maskLabel(cat, { n: px.n[key]!, luma: px.luma[key]! }, projectedRectArea(bundle, view.index, id), partHidden(bundle, view.index, id, cat), rng),
      );
    }
  });
  const segments: Segment[] = ev.segments.map((s) => {
    const l = labels.get(s.key);
    return l ? { ...s, label: l.label, scores: l.scores } : s;
  });
  return { evidence: { ...ev, segments }, labels };
}

/** Appearance evidence per bundle (by its views array), mode and seed: the 3D arms and the 2D baseline share it. */
const appearanceCache = new WeakMap<object, Map<string, Evidence>>();

/** The evidence of a bundle under a label mode: the masks' true categories (oracle) or the appearance model's labels. */
export function labelledEvidence(bundle: Pick<FrameBundle, "manifest" | "views">, mode: MaskMode, labels: LabelMode, seed: string): Evidence {
  const ev = computeEvidence(bundle, mode);
  // oracle masks carry the simulator's global ids (a diagnostic upper bound): their labels stay true too
  if (labels === "oracle" || mode === "none" || mode === "oracle") return ev;
  let bySeed = appearanceCache.get(bundle.views);
  if (!bySeed) appearanceCache.set(bundle.views, (bySeed = new Map()));
  const k = `${mode}/${seed}`;
  let out = bySeed.get(k);
  if (!out) bySeed.set(k, (out = appearanceEvidence(bundle, ev, seed).evidence));
  return out;
}
