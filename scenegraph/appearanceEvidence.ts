/** Appearance labels of a bundle's masks: each mask's view quality (visible share, part hidden) and its seeded detector label. */
import type { FrameBundle } from "../core/bundle/io.js";
import { LIBRARY } from "../core/objects/library.js";
import { cameraCentre, projectPoint } from "../core/math/camera.js";
import { quatToMat } from "../core/math/quat.js";
import { Rng } from "../core/math/rng.js";
import { tallyIds } from "../core/idTally.js";
import { segmentedIds, type Evidence, type Segment } from "./evidence.js";
import { segmentPixelStats } from "./segmentStats.js";
import { maskLabel, type MaskLabel } from "./maskLabel.js";
import { MIRROR_CATEGORY, mirrorPlane, reflectPoint } from "../core/objects/mirror.js";
import type { MirrorPlane } from "../core/bundle/schema.js";

/**
 * Half-width (deg) of the azimuth window around `ambiguousAzimuthDeg` in which the distinguishing part is
 * hidden: 36. From the mug's geometry (library.ts): a handle reaching 0.069 m from the axis behind a body
 * of radius 0.041 m is hidden while the view is within asin(0.041 / 0.069) = 36 deg of the far side.
 */
const HIDDEN_PART_HALF_WIDTH_DEG = 36;

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

/** A task mirror's plane by its id, or null (not a task mirror). */
function taskMirror(bundle: Pick<FrameBundle, "manifest">, id: number): MirrorPlane | null {
  const o = bundle.manifest.task?.objects.find((x) => x.id === id && x.category === MIRROR_CATEGORY);
  return o ? mirrorPlane(o) : null;
}

/**
 * Area (px) of the rectangle around the object's projected box corners, or null when a corner is behind the camera.
 * Seen in `mirror`, the corners of its mirror image (where the reflection shows it).
 */
function projectedRectArea(bundle: Pick<FrameBundle, "manifest">, viewIndex: number, objectId: number, mirror: MirrorPlane | null): number | null {
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
        const { u, v, z } = projectPoint(mv.extrinsic, mv.intrinsics, mirror ? reflectPoint(mirror, w) : w);
        if (z <= 0) return null;
        [x0, y0, x1, y1] = [Math.min(x0, u), Math.min(y0, v), Math.max(x1, u), Math.max(y1, v)];
      }
  const { width: W, height: H } = bundle.manifest.image;
  // only the part inside the image can show: a box cut by the image border is not occluded
  const w = Math.max(0, Math.min(W, x1) - Math.max(0, x0)),
    h = Math.max(0, Math.min(H, y1) - Math.max(0, y0));
  return w * h;
}

/**
 * Whether the view looks at the object from the side that hides its distinguishing part. Seen in `mirror`, from
 * the camera's mirror image: the mirror shows the object as that camera would see it.
 */
function partHidden(bundle: Pick<FrameBundle, "manifest">, viewIndex: number, objectId: number, category: string, mirror: MirrorPlane | null): boolean {
  const amb = LIBRARY.get(category)?.flags.ambiguous;
  const o = bundle.manifest.task?.objects.find((x) => x.id === objectId);
  const mv = bundle.manifest.views.find((v) => v.index === viewIndex);
  if (!amb || !o || !mv) return false;
  const seenFrom = cameraCentre(mv.extrinsic);
  const c = mirror ? reflectPoint(mirror, seenFrom) : seenFrom;
  const R = quatToMat(o.orientation);
  const d = [c[0] - o.position[0], c[1] - o.position[1], c[2] - o.position[2]];
  // the direction towards the camera in the object's frame (R^T d)
  const lx = R[0]![0]! * d[0]! + R[1]![0]! * d[1]! + R[2]![0]! * d[2]!;
  const ly = R[0]![1]! * d[0]! + R[1]![1]! * d[1]! + R[2]![1]! * d[2]!;
  const az = (Math.atan2(ly, lx) * 180) / Math.PI;
  return angleDiffDeg(az, amb.ambiguousAzimuthDeg) <= HIDDEN_PART_HALF_WIDTH_DEG;
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
      // the id the mask shows as its masks were made (a reflection's mask shows the reflected object)
      const id = px.mixed[key] ? dominantId(segmentedIds(ev, view), ev.segmentOfPixel[vi]!, key) : px.firstId[key]!;
      const cat = category.get(id) ?? seg.label;
      const rng = root.fork(`${view.index}/${id}/${key}`);
      // a reflection is judged where the mirror shows it: the mirror is the surface its pixels' rays hit
      const mirror = seg.inMirror ? taskMirror(bundle, dominantId(view.ids, ev.segmentOfPixel[vi]!, key)) : null;
      labels.set(
        key,
        maskLabel(
          cat,
          { n: px.n[key]!, luma: px.luma[key]! },
          projectedRectArea(bundle, view.index, id, mirror),
          partHidden(bundle, view.index, id, cat, mirror),
          rng,
        ),
      );
    }
  });
  const segments: Segment[] = ev.segments.map((s) => {
    const l = labels.get(s.key);
    return l ? { ...s, label: l.label, scores: l.scores } : s;
  });
  return { evidence: { ...ev, segments }, labels };
}
