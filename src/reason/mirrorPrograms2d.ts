/**
 * Specular Reflection's mask programs (the 2D arm): the question's image (view 0) alone, its masks (a detector
 * labels what the pixels show, so an object seen in a mirror has a mask of its own category inside the mirror's),
 * the image's focal length and each category's typical size. No depth: where a reflection's object stands comes
 * from size constancy (its distance along the reflected path is f·H/h) and the rule that a mirror facing the camera
 * keeps an object's sideways offset and folds its depth back towards the camera.
 */
import type { Intrinsics } from "../../core/math/camera.js";
import { MIRROR_CATEGORY } from "../../core/objects/mirror.js";
import { declined, marginConfidence, type Decision } from "./decision.js";
import { labelOf, objectsNamed, typicalHeightOf } from "./mirrorPrograms.js";
import type { Query } from "./query.js";

/** What these programs read of a mask. */
export interface MirrorMask {
  key: number;
  label: string;
  area: number;
  cx: number;
  cy: number;
  bbox: [number, number, number, number];
}

/** A mask this short (px) gives no size (ours: 1 px rows carry no height). */
const MIN_SIZED_MASK_HEIGHT_PX = 2;
/** A relative path-length gap this large makes a Spatial Relations decision its surest (as Spatial Distance's 0.3). */
const PATH_RELATIVE_SCALE = 0.3;
/** Mask-only decisions about what stands where behind a mirror are never surer than this (ours: no depth is seen). */
const MASK_MAX_CONFIDENCE = 0.6;
/** A sideways gap this large (m) between the nearest and the next candidate makes Correspondence its surest. */
const LATERAL_GAP_M = 0.3;

const inside = (m: MirrorMask, mirror: MirrorMask) => m.cx >= mirror.bbox[0] && m.cx <= mirror.bbox[2] && m.cy >= mirror.bbox[1] && m.cy <= mirror.bbox[3];

/** The image's masks of a category, split into those inside a mirror's mask (reflections) and the rest (direct). */
function split(masks: MirrorMask[], category: string): { mirrors: MirrorMask[]; reflected: MirrorMask[]; direct: MirrorMask[] } {
  const mirrors = masks.filter((m) => m.label === MIRROR_CATEGORY);
  const mine = masks.filter((m) => m.label === labelOf(category)).sort((a, b) => b.area - a.area);
  const reflected = mine.filter((m) => mirrors.some((w) => inside(m, w)));
  return { mirrors, reflected, direct: mine.filter((m) => !reflected.includes(m)) };
}

/** Camera-frame sideways offset x and distance z (m) of a mask's object by size constancy, or null without a typical size. */
function placeBySize(m: MirrorMask, K: Intrinsics): { x: number; z: number } | null {
  const H = typicalHeightOf(m.label);
  const h = m.bbox[3] - m.bbox[1] + 1;
  if (H === null || h < MIN_SIZED_MASK_HEIGHT_PX) return null;
  const z = (K.fy * H) / h;
  return { x: ((m.cx - K.cx) * z) / K.fx, z };
}

/** Reflection Authoring: the object's mask pixels in the image, inside a mirror's mask or outside it. */
export function reflectionAuthoring2d(masks: MirrorMask[], q: Query, trace: string[]): Decision {
  const ref = objectsNamed(q)[0];
  if (!ref) return declined("the question names no object the detector knows", trace);
  const { mirrors, reflected, direct } = split(masks, ref.category);
  if (!mirrors.length) return declined("the image shows no mirror", trace);
  const r = reflected.reduce((s, m) => s + m.area, 0),
    d = direct.reduce((s, m) => s + m.area, 0);
  if (r + d === 0) return declined(`the image shows no ${ref.category}`, trace);
  trace.push(`${ref.category} pixels inside the mirror's mask ${r}, outside it ${d}`);
  return { answer: r > d ? "yes" : "no", confidence: Math.round((Math.max(r, d) / (r + d)) * 1000) / 1000, trace };
}

/**
 * Spatial Relations (mirror): each reflection's path length from its apparent size; in front of a mirror that faces
 * the camera, the longer the path, the farther the object stands from the mirror and so the nearer the camera.
 */
export function mirrorSpatial2d(masks: MirrorMask[], K: Intrinsics, q: Query, trace: string[]): Decision {
  const [a, b] = objectsNamed(q);
  if (!a || !b) return declined("the question names fewer than two objects the detector knows", trace);
  const path = (category: string) => {
    const m = split(masks, category).reflected[0];
    return m ? placeBySize(m, K) : null;
  };
  const pa = path(a.category),
    pb = path(b.category);
  if (!pa || !pb) return declined(`${!pa ? a.name : b.name} shows no sized mask in the mirror`, trace);
  trace.push(`reflected path by apparent size: A ${pa.z.toFixed(2)} m, B ${pb.z.toFixed(2)} m: the longer path stands nearer the camera`);
  const margin = Math.abs(pa.z - pb.z) / Math.max(pa.z, pb.z);
  return { answer: pa.z >= pb.z ? "A" : "B", confidence: Math.min(MASK_MAX_CONFIDENCE, marginConfidence(margin, PATH_RELATIVE_SCALE)), trace };
}

/**
 * Correspondence: the reflection's sideways offset (size constancy along its path) is its object's own, for a mirror
 * facing the camera; the direct mask whose offset is nearest it is the reflected one, named by its place among the three.
 */
export function mirrorCorrespondence2d(masks: MirrorMask[], K: Intrinsics, q: Query, trace: string[]): Decision {
  const ref = objectsNamed(q)[0];
  if (!ref) return declined("the question names no object the detector knows", trace);
  const { reflected, direct } = split(masks, ref.category);
  if (!reflected.length) return declined(`no ${ref.category} shows in the mirror`, trace);
  const three = direct.slice(0, 3);
  if (three.length < 3) return declined(`${three.length} ${ref.category} mask(s) outside the mirror, not 3`, trace);
  const r = placeBySize(reflected[0]!, K);
  const placed = three.map((m) => ({ m, p: placeBySize(m, K) }));
  if (!r || placed.some((x) => !x.p)) return declined(`a ${ref.category} mask gives no size`, trace);
  const ranked = [...placed].sort((x, y) => Math.abs(x.p!.x - r.x) - Math.abs(y.p!.x - r.x));
  const target = ranked[0]!;
  const order = [...three].sort((x, y) => x.cx - y.cx);
  const answer = (["left", "middle", "right"] as const)[order.indexOf(target.m)]!;
  trace.push(
    `reflection ${reflected[0]!.key} sideways ${r.x.toFixed(2)} m; nearest mask ${target.m.key} at ${target.p!.x.toFixed(2)} m, next ${ranked[1]!.p!.x.toFixed(2)} m`,
  );
  const gap = Math.abs(ranked[1]!.p!.x - r.x) - Math.abs(target.p!.x - r.x);
  return { answer, confidence: Math.min(MASK_MAX_CONFIDENCE, marginConfidence(gap, LATERAL_GAP_M)), trace };
}
