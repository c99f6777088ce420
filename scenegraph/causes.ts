/**
 * Why a node is a duplicate or a hallucination, where the cloud records it: the views that gave the node its
 * points, and what the noisy source did to those views (its NoisyMeta: each view's pose error, the drift after
 * alignment, its depth scale, the blob patches lifted off surfaces, the mask labels swapped or painted on floor
 * and walls; reconstruct/noisy/index.ts). The diagnosis stores it per node when the graph is built, so a viewer
 * reads the cause instead of guessing it. A vggt cloud records no per-view errors, so it gives the views alone.
 *
 * A component is named only when the record shows it at work on the node's own points or views:
 *  - a hallucination whose points are at least CAUSE_MIN_SHARE blob, phantom or swapped-label pixels: blobs,
 *    labels;
 *  - otherwise the geometric component (pose, drift, scale) that moves the node's main view's points the most
 *    at the node's distance from that camera, when that is at least FUSION_VOXEL_M (fragments farther apart
 *    than a voxel no longer overlap, so fusion keeps them apart);
 *  - a duplicate with no such error (ground-truth depth and poses): masks, its fragments' views were not joined.
 */
import type { FrameBundle } from "../core/bundle/io.js";
import type { BlobRecord, NoisyMeta } from "../reconstruct/noisy/index.js";
import type { LabelPhantom } from "../reconstruct/noisy/labels.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { cameraCentre } from "../core/math/camera.js";
import type { Vec3 } from "../core/math/vec.js";
import type { NodeCause } from "./diagnosisSchema.js";
import { FUSION_VOXEL_M } from "./instances/params.js";

/** A hallucination is put down to blobs or labels when at least this share of its points are theirs (a quarter: the largest part of a node that is mostly background). */
const CAUSE_MIN_SHARE = 0.25;
/** Views named per node, largest first. */
const CAUSE_VIEWS = 3;

const pct = (x: number) => `${Math.round(x * 100)} %`;
const cm = (m: number) => `${(m * 100).toFixed(m < 0.1 ? 1 : 0)} cm`;
const deg = Math.PI / 180;

/** The points of a node per view (its `view` labels), largest first. */
function viewsOf(members: Uint32Array, cloud: Pick<PointCloud, "view">): Array<{ view: number; points: number }> {
  const counts = new Map<number, number>();
  for (const i of members) counts.set(cloud.view[i]!, (counts.get(cloud.view[i]!) ?? 0) + 1);
  return [...counts].map(([view, points]) => ({ view, points })).sort((a, b) => b.points - a.points || a.view - b.view);
}

/** A patch's pixels: the first `count` pixels, row by row, of the `side`-wide square at (x0, y0). */
function inPatch(pixel: number, width: number, p: { x0: number; y0: number; side: number }, count: number): boolean {
  const x = pixel % width,
    y = (pixel - x) / width;
  const dx = x - p.x0,
    dy = y - p.y0;
  return dx >= 0 && dy >= 0 && dx < p.side && dy * p.side + dx < count;
}

/** How far (m) each geometric component moves a view's points at distance `r` from its camera. */
function displacements(meta: NoisyMeta, view: number, r: number): Array<{ component: "pose" | "drift" | "scale"; m: number; what: string }> {
  const out: Array<{ component: "pose" | "drift" | "scale"; m: number; what: string }> = [];
  const pose = meta.poses.find((p) => p.view === view);
  if (pose) {
    const dc = Math.hypot(...pose.dC);
    out.push({ component: "pose", m: dc + r * pose.rotDeg * deg, what: `pose error ${pose.rotDeg.toFixed(2)}° and ${cm(dc)}` });
  }
  const drift = meta.drift?.records.find((d) => d.view === view);
  if (drift)
    out.push({
      component: "drift",
      m: drift.centreErrM + r * drift.rotDeg * deg,
      what: `drift ${drift.rotDeg.toFixed(2)}° and ${cm(drift.centreErrM)} after alignment`,
    });
  const scale = meta.viewScales.find((s) => s.view === view);
  if (scale && scale.scale !== 1) out.push({ component: "scale", m: r * Math.abs(scale.scale - 1), what: `depth scale ${scale.scale.toFixed(3)}` });
  return out.sort((a, b) => b.m - a.m);
}

type Patch = Pick<BlobRecord | LabelPhantom, "view" | "x0" | "y0" | "side"> & { count: number };

/** The share of a node's points that lie in some patch of their own view. */
function patchShare(c: Pick<CauseInput, "cloud" | "members">, patches: readonly Patch[]): number {
  if (!patches.length || !c.members.length) return 0;
  const byView = new Map<number, Patch[]>();
  for (const p of patches) byView.set(p.view, [...(byView.get(p.view) ?? []), p]);
  let n = 0;
  for (const i of c.members) {
    const mine = byView.get(c.cloud.view[i]!);
    if (mine && mine.some((p) => inPatch(c.cloud.pixel[i]!, c.cloud.imageWidth, p, p.count))) n++;
  }
  return n / c.members.length;
}

/** The share of a node's points whose mask label the noise model swapped (its view and instance id). */
function swappedShare(c: Pick<CauseInput, "cloud" | "members">, swaps: NoisyMeta["labels"]["swaps"]): number {
  if (!swaps.length || !c.members.length) return 0;
  const swapped = new Set(swaps.map((s) => s.view * 65536 + s.id));
  let n = 0;
  for (const i of c.members) if (swapped.has(c.cloud.view[i]! * 65536 + c.cloud.instance[i]!)) n++;
  return n / c.members.length;
}

const isNoisy = (meta: Record<string, unknown>): boolean => Array.isArray(meta.poses) && Array.isArray(meta.viewScales) && typeof meta.labels === "object";

export interface CauseInput {
  cloud: Pick<PointCloud, "view" | "pixel" | "instance" | "imageWidth" | "meta" | "source">;
  bundle: Pick<FrameBundle, "views">;
  /** the phase of each view, for a bundle of a changing world's phases (absent otherwise) */
  phaseOfView?: readonly number[];
  members: Uint32Array;
  centroid: Vec3;
  status: "duplicate" | "hallucinated";
  /** a duplicate's twin: its id and members */
  twin: { id: string; members: Uint32Array } | null;
}

/**
 * A duplicate split by time: its points and its twin's come from disjoint phases of a changing world, so the
 * memory kept one copy per phase instead of following the object (what a fused memory does to a moved object
 * that stayed within the gate). The text, or null when the phases overlap or the bundle has none.
 */
function phaseSplit(c: CauseInput): string | null {
  if (!c.phaseOfView || !c.twin) return null;
  const phases = (m: Uint32Array) => new Set(viewsOf(m, c.cloud).map((v) => c.phaseOfView![v.view] ?? 0));
  const mine = phases(c.members),
    theirs = phases(c.twin.members);
  if ([...mine].some((p) => theirs.has(p))) return null;
  const list = (s: Set<number>) =>
    [...s]
      .sort((a, b) => a - b)
      .map((p) => `phase ${p + 1}`)
      .join(", ");
  return `it holds what ${list(mine)} saw and its twin what ${list(theirs)} saw: the object changed place between them and the memory kept both`;
}

/** Why a duplicate or hallucinated node exists, from what the cloud records (see the header). */
export function nodeCause(c: CauseInput): NodeCause {
  const total = c.members.length || 1;
  const views = viewsOf(c.members, c.cloud);
  const named = views.slice(0, CAUSE_VIEWS).map((v) => ({ view: v.view, share: v.points / total }));
  const viewText = named.map((v) => `view ${v.view} (${pct(v.share)})`).join(", ");
  const twinViews = c.twin ? viewsOf(c.twin.members, c.cloud).slice(0, CAUSE_VIEWS) : [];
  const twinText = c.twin ? `; its twin ${c.twin.id} from ${twinViews.map((v) => `view ${v.view}`).join(", ") || "no view"}` : "";
  const from = `its points come from ${viewText || "no view"}${twinText}`;
  const split = c.status === "duplicate" ? phaseSplit(c) : null;
  if (split) return { views: named, component: "change", text: `${from}: ${split}` };
  const meta = c.cloud.meta as unknown as NoisyMeta;
  if (c.cloud.source !== "noisy" || !isNoisy(c.cloud.meta)) {
    if (c.status === "duplicate" && c.cloud.source === "gt")
      return {
        views: named,
        component: "masks",
        text: `${from}: exact depth and poses moved nothing, so fusion did not join this object's masks from these views (cut by an occluder, or too little overlap)`,
      };
    return { views: named, component: null, text: `${from} (this source records no per-view errors to name a cause)` };
  }
  if (c.status === "hallucinated") {
    const blobs = patchShare(
      c,
      meta.blobs.map((b) => ({ ...b, count: b.points })),
    );
    const phantoms = patchShare(
      c,
      meta.labels.phantoms.map((f) => ({ ...f, count: f.pixels })),
    );
    const swapped = swappedShare(c, meta.labels.swaps);
    const parts = [
      { component: "blobs" as const, share: blobs, what: "blob pixels (patches lifted off their surface)" },
      { component: "labels" as const, share: phantoms, what: "a phantom label patch (floor or wall given an object's label)" },
      { component: "labels" as const, share: swapped, what: "a mask whose label was swapped" },
    ].sort((a, b) => b.share - a.share);
    if (parts[0]!.share >= CAUSE_MIN_SHARE)
      return { views: named, component: parts[0]!.component, text: `${pct(parts[0]!.share)} of its points are ${parts[0]!.what}; ${from}` };
  }
  const main = views[0];
  if (main) {
    const camera = c.bundle.views.find((v) => v.index === main.view);
    const r = camera ? Math.hypot(...(cameraCentre(camera.E).map((x, k) => x - c.centroid[k]!) as [number, number, number])) : 0;
    const moved = displacements(meta, main.view, r);
    if (moved[0] && moved[0].m >= FUSION_VOXEL_M)
      return {
        views: named,
        component: moved[0].component,
        text: `${from}. The noise model moved view ${main.view}'s points by up to ${cm(moved[0].m)} at this node, ${r.toFixed(1)} m from that camera: ${moved.map((d) => `${d.what} (${cm(d.m)})`).join(", ")}`,
      };
    if (c.status === "duplicate")
      return {
        views: named,
        component: "masks",
        text: `${from}. View ${main.view}'s recorded errors move its points by under ${cm(FUSION_VOXEL_M)} here, so fusion did not join this object's masks from these views`,
      };
  }
  return { views: named, component: null, text: `${from} (no recorded error of these views explains it)` };
}
