import { describe, expect, it } from "vitest";
import { render, type RenderOutput } from "../../../bridge/sim/raster.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { toByte } from "../../../bridge/sim/toByte.js";
import { cameraCentre, intrinsicsFromHfov, poseToExtrinsic, projectPoint } from "../../../core/math/camera.js";
import type { Mat34, Vec3 } from "../../../core/math/vec.js";
import { mirrorPlane, reflectedExtrinsic, reflectionMatrix } from "../../../core/objects/mirror.js";
import { FLOOR_ID, WALL_IDS } from "../../../core/task/instanceIds.js";
import { colorRgb } from "../../../core/task/palette.js";
import type { TaskObject } from "../../../core/task/schema.js";
import {
  BOX_CENTRE,
  BOX_EXTENT,
  BOX_ID,
  boxObject,
  CAMERA_POSE,
  FRAME_ID,
  HIDDEN_ID,
  LIGHTING,
  MIRROR_ID,
  mirrorRoomObjects,
  mirrorWithFrame,
  ROOM,
} from "../../helpers/mirrorScene.js";

const W = 200,
  H = 150;
const K = intrinsicsFromHfov(W, H, 70);
const E = poseToExtrinsic(CAMERA_POSE);
const cam = { width: W, height: H, K, E };

const dot = (a: Vec3, b: Vec3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const along = (o: Vec3, d: Vec3, s: number): Vec3 => [o[0] + s * d[0], o[1] + s * d[1], o[2] + s * d[2]];
/** The mirror image of p in the plane through q with unit normal n: p − 2((p − q)·n)n. */
const mirrorImage = (p: Vec3, q: Vec3, n: Vec3): Vec3 => along(p, n, -2 * dot([p[0] - q[0], p[1] - q[1], p[2] - q[2]], n));

/** The world ray through pixel (i, j)'s centre, scaled so that its camera z is 1 (a point's camera depth is its parameter). */
function pixelRay(E: Mat34, i: number, j: number): Vec3 {
  const xn = (i - K.cx) / K.fx,
    yn = (j - K.cy) / K.fy;
  return [0, 1, 2].map((k) => E[0][k]! * xn + E[1][k]! * yn + E[2][k]!) as Vec3;
}

/** Where the ray o + s·d (s > 0) enters the box [lo, hi], or Infinity. */
function boxHit(o: Vec3, d: Vec3, lo: Vec3, hi: Vec3): number {
  let near = -Infinity,
    far = Infinity;
  for (let k = 0; k < 3; k++) {
    const a = (lo[k]! - o[k]!) / d[k]!,
      b = (hi[k]! - o[k]!) / d[k]!;
    near = Math.max(near, Math.min(a, b));
    far = Math.min(far, Math.max(a, b));
  }
  return near <= far && near > 0 ? near : Infinity;
}

/**
 * What the reflected ray o + s·d first hits in the test room, worked out without the renderer: the box, the floor
 * or a wall (walls end at the room's height: above them is open sky, id 0). `eps` grows the box and the room by
 * that much (negative shrinks them), to find pixels whose centre lies on an edge.
 */
function reflectedHit(o: Vec3, d: Vec3, eps: number): { id: number; s: number } {
  const half: Vec3 = [BOX_EXTENT[0] / 2 + eps, BOX_EXTENT[1] / 2 + eps, BOX_EXTENT[2] / 2 + eps];
  let best = { id: 0, s: Infinity };
  const consider = (id: number, s: number) => {
    if (s > 0 && s < best.s) best = { id, s };
  };
  consider(
    BOX_ID,
    boxHit(
      o,
      d,
      [BOX_CENTRE[0] - half[0], BOX_CENTRE[1] - half[1], BOX_CENTRE[2] - half[2]],
      [BOX_CENTRE[0] + half[0], BOX_CENTRE[1] + half[1], BOX_CENTRE[2] + half[2]],
    ),
  );
  if (d[2] < 0) consider(FLOOR_ID, (-eps - o[2]) / d[2]);
  const [sx, sy] = ROOM.size;
  // buildScene's walls: −y, +x, +y, −x
  const walls: Array<[number, number, number]> = [
    [WALL_IDS[0], 1, -sy / 2 - eps],
    [WALL_IDS[1], 0, sx / 2 + eps],
    [WALL_IDS[2], 1, sy / 2 + eps],
    [WALL_IDS[3], 0, -sx / 2 - eps],
  ];
  for (const [id, axis, at] of walls) {
    const s = (at - o[axis]!) / d[axis]!;
    const z = o[2] + s * d[2];
    if (z >= -eps && z <= ROOM.height + eps) consider(id, s);
  }
  return best;
}

/**
 * Per pixel, what the mirror equation says it shows: whether its ray meets the mirror's rectangle first (null when
 * that is on an edge), and then what the reflected ray hits (id, and the camera depth of its mirror image).
 */
function expectedReflection(objects: TaskObject[], i: number, j: number): { onMirror: boolean; id: number; depth: number } | null {
  const plane = mirrorPlane(objects.find((o) => o.id === MIRROR_ID)!);
  const C = cameraCentre(E),
    d = pixelRay(E, i, j),
    n = plane.normal,
    q = plane.centre;
  const results = [-1e-4, 0, 1e-4].map((eps) => {
    const dn = dot(d, n);
    if (dn >= 0) return { onMirror: false, id: 0, depth: 0 };
    const t = dot([q[0] - C[0], q[1] - C[1], q[2] - C[2]], n) / dn;
    const X = along(C, d, t);
    const r: Vec3 = [X[0] - q[0], X[1] - q[1], X[2] - q[2]];
    if (Math.abs(dot(r, plane.u)) > plane.half_width_m + eps || Math.abs(dot(r, plane.v)) > plane.half_height_m + eps)
      return { onMirror: false, id: 0, depth: 0 };
    const reflected = along(d, n, -2 * dn);
    const hit = reflectedHit(X, reflected, eps);
    return { onMirror: true, id: hit.id, depth: hit.id ? t + hit.s : 0 };
  });
  const exact = results[1]!;
  return results.every((r) => r.onMirror === exact.onMirror && r.id === exact.id) ? exact : null;
}

/** Object `id` alone, rendered from the camera's mirror image in the test room's mirror. */
function seenFromMirrorImage(objects: TaskObject[], id: number): RenderOutput {
  const plane = mirrorPlane(objects.find((o) => o.id === MIRROR_ID)!);
  return render(
    buildScene({ room: ROOM, objects, lighting: LIGHTING }),
    { ...cam, E: reflectedExtrinsic(E, reflectionMatrix(plane)) },
    { onlyIds: new Set([id]) },
  );
}

const renderMirrorRoom = (objects = mirrorRoomObjects(), camera = cam): RenderOutput => render(buildScene({ room: ROOM, objects, lighting: LIGHTING }), camera);

describe("planar mirrors", () => {
  it("shows at every pixel what the mirror equation puts there: the reflected ids and the mirror image's depth, pixel for pixel", () => {
    const objects = mirrorRoomObjects();
    const out = renderMirrorRoom(objects);
    let mirrorPx = 0,
      boxPx = 0,
      edgePx = 0,
      maxRelDepthErr = 0;
    const wrong: string[] = [];
    for (let j = 0; j < H; j++)
      for (let i = 0; i < W; i++) {
        const p = j * W + i;
        const e = expectedReflection(objects, i, j);
        if (!e) {
          edgePx++;
          continue;
        }
        if (!e.onMirror) {
          if (out.reflectedIds![p] !== 0 || out.reflectedDepth![p] !== 0) wrong.push(`(${i}, ${j}) off the mirror shows ${out.reflectedIds![p]}`);
          continue;
        }
        mirrorPx++;
        // the depth and instance images keep the mirror's surface
        if (out.ids[p] !== MIRROR_ID) wrong.push(`(${i}, ${j}) has id ${out.ids[p]}, not the mirror's`);
        if (out.reflectedIds![p] !== e.id) wrong.push(`(${i}, ${j}) reflects ${out.reflectedIds![p]}, expected ${e.id}`);
        if (e.id === BOX_ID) boxPx++;
        if (e.id !== 0) maxRelDepthErr = Math.max(maxRelDepthErr, Math.abs(out.reflectedDepth![p]! - e.depth) / e.depth);
        else if (out.reflectedDepth![p] !== 0) wrong.push(`(${i}, ${j}) reflects the sky at depth ${out.reflectedDepth![p]}`);
      }
    expect(wrong).toEqual([]);
    expect(mirrorPx).toBeGreaterThan(0.1 * W * H);
    expect(boxPx).toBeGreaterThan(100);
    // pixel centres on an edge (of the mirror, the box, a wall) within 0.1 mm: under 1 % of the image
    expect(edgePx).toBeLessThan(0.01 * W * H);
    // float32 depth, interpolated as 1/z
    expect(maxRelDepthErr).toBeLessThan(1e-5);
  });

  it("renders the box where the mirror equation puts its image: p − 2((p − q)·n)n, projected", () => {
    const objects = mirrorRoomObjects();
    const out = renderMirrorRoom(objects);
    const plane = mirrorPlane(objects.find((o) => o.id === MIRROR_ID)!);
    const image = mirrorImage(BOX_CENTRE, plane.centre, plane.normal);
    // behind the mirror, on the far side from the box
    expect(dot([image[0] - plane.centre[0], image[1] - plane.centre[1], image[2] - plane.centre[2]], plane.normal)).toBeLessThan(-1);
    const { u, v, z } = projectPoint(E, K, image);
    const p = Math.round(v) * W + Math.round(u);
    expect(out.ids[p]).toBe(MIRROR_ID);
    expect(out.reflectedIds![p]).toBe(BOX_ID);
    // the image's nearest face is at most half the box's diagonal in front of its centre
    expect(out.reflectedDepth![p]).toBeGreaterThan(z - Math.hypot(...BOX_EXTENT) / 2);
    expect(out.reflectedDepth![p]).toBeLessThan(z);
    // the depth image keeps the mirror's surface: its point lies on the mirror's plane
    const onSurface = along(cameraCentre(E), pixelRay(E, Math.round(u), Math.round(v)), out.depth[p]!);
    expect(Math.abs(dot([onSurface[0] - plane.centre[0], onSurface[1] - plane.centre[1], onSurface[2] - plane.centre[2]], plane.normal))).toBeLessThan(1e-4);
    // the box itself is out of the camera's view: only its image is seen
    expect(out.ids.includes(BOX_ID)).toBe(false);
  });

  it("colours a mirror pixel as the scene seen from the camera's mirror image, times the mirror's reflectance", () => {
    const objects = mirrorRoomObjects();
    const out = renderMirrorRoom(objects);
    const virtual = seenFromMirrorImage(objects, BOX_ID);
    let compared = 0;
    for (let p = 0; p < W * H; p++) {
      if (out.reflectedIds![p] !== BOX_ID || virtual.ids[p] !== BOX_ID) continue;
      for (let c = 0; c < 3; c++) expect(out.rgb![p * 3 + c]).toBe(toByte(virtual.rgb![p * 3 + c]! * 0.9));
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("reflects only the half-space in front of the mirror: a box behind it, in the mirror image's view, is not shown", () => {
    const objects = mirrorRoomObjects();
    const out = renderMirrorRoom(objects);
    const virtual = seenFromMirrorImage(objects, HIDDEN_ID);
    // the hidden box stands between the mirror image of the camera and the mirror, over mirror pixels
    let overMirror = 0;
    for (let p = 0; p < W * H; p++) if (virtual.ids[p] === HIDDEN_ID && out.ids[p] === MIRROR_ID) overMirror++;
    expect(overMirror).toBeGreaterThan(50);
    expect(out.reflectedIds!.includes(HIDDEN_ID)).toBe(false);
    expect(out.reflectedIds!.includes(FRAME_ID)).toBe(false);
  });

  it("stops at one bounce: a mirror seen in another shows its own surface, one flat colour", () => {
    const facing = [...mirrorWithFrame(MIRROR_ID, FRAME_ID, [2, 0, 1], Math.PI), ...mirrorWithFrame(20, 21, [-2.5, 0, 1], 0)];
    const out = renderMirrorRoom(facing, { ...cam, E: poseToExtrinsic({ position: [-0.5, 0, 1.0], yaw: 0, pitch: 0 }) });
    const seen = new Map<string, number>();
    for (let p = 0; p < W * H; p++)
      if (out.reflectedIds![p] === 20) {
        const rgb = [0, 1, 2].map((c) => out.rgb![p * 3 + c]).join(",");
        seen.set(rgb, (seen.get(rgb) ?? 0) + 1);
      }
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
    // the second mirror's face is flat-shaded (sun and ambient only): one colour, no reflection of its own
    expect(seen.size).toBe(1);
  });

  it("reflects nothing seen from behind: the mirror's back and its frame", () => {
    const out = renderMirrorRoom(mirrorRoomObjects(), { ...cam, E: poseToExtrinsic({ position: [2.8, -0.3, 1.0], yaw: Math.PI, pitch: 0 }) });
    expect(out.ids.includes(FRAME_ID)).toBe(true);
    expect(out.reflectedIds!.every((id) => id === 0)).toBe(true);
    expect(out.reflectedDepth!.every((d) => d === 0)).toBe(true);
  });

  it("blends glass in front of a mirror over its reflection: ids and depth show the glass, the reflection images what the mirror shows", () => {
    const pane = { ...boxObject(30, "pane", [1.0, -0.3, 1.0], [0.02, 0.4, 0.4], 0, "grey"), transparent: true };
    const objects = [...mirrorRoomObjects(), pane];
    const out = renderMirrorRoom(objects);
    const bare = renderMirrorRoom(mirrorRoomObjects());
    const glass = colorRgb("glass");
    let behindGlass = 0;
    for (let p = 0; p < W * H; p++) {
      if (out.ids[p] !== 30 || bare.ids[p] !== MIRROR_ID) continue;
      behindGlass++;
      expect(out.reflectedIds![p]).not.toBe(0);
      expect(out.reflectedDepth![p]).toBeGreaterThan(bare.depth[p]!);
      expect(out.depth[p]).toBeLessThan(bare.depth[p]!);
      // the glass (two surfaces, each letting 0.9 through) tints the reflection as it tints any surface behind it;
      // bare's bytes are the reflection already rounded once
      if (out.reflectedIds![p] === bare.reflectedIds![p])
        for (let c = 0; c < 3; c++) expect(Math.abs(out.rgb![3 * p + c]! - (bare.rgb![3 * p + c]! * 0.81 + glass[c]! * 0.19))).toBeLessThanOrEqual(1);
    }
    expect(behindGlass).toBeGreaterThan(100);
  });

  it("gives no reflection images for a scene without mirrors", () => {
    const out = renderMirrorRoom([boxObject(BOX_ID, "box", BOX_CENTRE, BOX_EXTENT, 0, "red")]);
    expect(out.reflectedIds).toBeUndefined();
    expect(out.reflectedDepth).toBeUndefined();
  });

  it("computes the reflected ids and depth without RGB as with it", () => {
    const scene = buildScene({ room: ROOM, objects: mirrorRoomObjects(), lighting: LIGHTING });
    const a = render(scene, cam),
      b = render(scene, cam, { rgb: false });
    expect(b.rgb).toBeNull();
    expect(Buffer.from(b.reflectedIds!.buffer).equals(Buffer.from(a.reflectedIds!.buffer))).toBe(true);
    expect(Buffer.from(b.reflectedDepth!.buffer).equals(Buffer.from(a.reflectedDepth!.buffer))).toBe(true);
  });
});
