/**
 * Writes a rendered bundle's views in each RGB-D dataset's exact on-disk layout (docs/own-data.md), with the
 * layout's own conventions: camera-to-world or world-to-camera, matrices, quaternions or angle-axis, depth in
 * its units, colour at its own size where the dataset's differs from depth. The writers share nothing with
 * bridge/datasets but the PNG encoder, so a convention both got wrong would not round-trip unnoticed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodePng } from "../../../core/bundle/png.js";
import type { FrameBundle, ViewData } from "../../../core/bundle/io.js";
import { invertExtrinsic, type Intrinsics } from "../../../core/math/camera.js";
import { matToQuat } from "../../../core/math/quat.js";
import type { Mat3, Mat34 } from "../../../core/math/vec.js";

const fmt = (v: number) => v.toFixed(9);
const row4 = (E: Mat34) => [...E[0], ...E[1], ...E[2], 0, 0, 0, 1];

/** A 4x4 camera-to-world (row-major numbers) of a view, in a world turned by W (X_file = W X_esi3d). */
function cameraToWorld(
  v: ViewData,
  W: Mat3 = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ],
): number[] {
  const c2w = invertExtrinsic(v.E);
  const out: Mat34 = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) out[i]![j] = W[i]![0] * c2w[0][j]! + W[i]![1] * c2w[1][j]! + W[i]![2] * c2w[2][j]!;
  return row4(out);
}

const mat3Of = (m: number[]): Mat3 => [
  [m[0]!, m[1]!, m[2]!],
  [m[4]!, m[5]!, m[6]!],
  [m[8]!, m[9]!, m[10]!],
];

/** Raw 16-bit depth at `unitsPerMetre` (0 stays 0; beyond 16 bits clamps to 0 = no measurement). */
function rawDepth(d: Float32Array, unitsPerMetre: number): Uint16Array {
  const out = new Uint16Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const r = Math.round(d[i]! * unitsPerMetre);
    out[i] = Number.isFinite(d[i]!) && d[i]! > 0 && r <= 65535 ? r : 0;
  }
  return out;
}

function writeDepth(file: string, v: ViewData, unitsPerMetre: number): void {
  writeFileSync(file, encodePng(v.width, v.height, 1, 16, rawDepth(v.depth, unitsPerMetre)));
}

/** The view's RGB upsampled k times by pixel replication (a colour stream larger than the depth stream). */
function writeColour(file: string, v: ViewData, k = 1): void {
  const W = v.width * k,
    H = v.height * k;
  const out = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) for (let c = 0; c < 3; c++) out[(y * W + x) * 3 + c] = v.rgb[(Math.floor(y / k) * v.width + Math.floor(x / k)) * 3 + c]!;
  writeFileSync(file, encodePng(W, H, 3, 8, out));
}

/** Intrinsics of the same camera on an image k times larger (pixel centres at integers). */
const upscaled = (K: Intrinsics, k: number): Intrinsics => ({ fx: K.fx * k, fy: K.fy * k, cx: (K.cx + 0.5) * k - 0.5, cy: (K.cy + 0.5) * k - 0.5 });

const kMatrix4 = (K: Intrinsics) => [K.fx, 0, K.cx, 0, 0, K.fy, K.cy, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const lines = (rows: number[][]) => rows.map((r) => r.map(fmt).join(" ")).join("\n") + "\n";

/** ScanNet frame names: not 0..n-1, so sorting must be numeric (10 before 100, 2 before 10). */
const SCANNET_NAMES = (n: number) => Array.from({ length: n }, (_, i) => String(i === 0 ? 0 : i === 1 ? 2 : i * 10 + (i === n - 1 ? 90 : 0)));

/**
 * ScanNet reader.py export: color/ at twice the depth size, depth/ mm, pose/ c2w, intrinsic/, and
 * instance-filt/ (8-bit, objectId + 1) with <scene>.aggregation.json. Returns mask value -> original id.
 */
export function writeScannet(dir: string, b: FrameBundle, views: ViewData[]): { names: string[]; maskToId: Map<number, number> } {
  for (const d of ["color", "depth", "pose", "intrinsic", "instance-filt"]) mkdirSync(join(dir, d), { recursive: true });
  const names = SCANNET_NAMES(views.length);
  const ids = b.manifest.instances.map((e) => e.id).sort((x, y) => x - y);
  const rank = new Map(ids.map((id, k) => [id, k]));
  const maskToId = new Map(ids.map((id, k) => [k + 1, id]));
  views.forEach((v, i) => {
    writeColour(join(dir, "color", `${names[i]}.png`), v, 2);
    writeDepth(join(dir, "depth", `${names[i]}.png`), v, 1000);
    writeFileSync(
      join(dir, "pose", `${names[i]}.txt`),
      lines([cameraToWorld(v).slice(0, 4), cameraToWorld(v).slice(4, 8), cameraToWorld(v).slice(8, 12), [0, 0, 0, 1]]),
    );
    const mask = new Uint8Array(v.ids.length);
    for (let p = 0; p < mask.length; p++) mask[p] = v.ids[p] ? rank.get(v.ids[p]!)! + 1 : 0;
    writeFileSync(join(dir, "instance-filt", `${names[i]}.png`), encodePng(v.width, v.height, 1, 8, mask));
  });
  const K = views[0]!.K;
  const m4 = (k: number[]) => lines([k.slice(0, 4), k.slice(4, 8), k.slice(8, 12), k.slice(12, 16)]);
  writeFileSync(join(dir, "intrinsic", "intrinsic_depth.txt"), m4(kMatrix4(K)));
  writeFileSync(join(dir, "intrinsic", "intrinsic_color.txt"), m4(kMatrix4(upscaled(K, 2))));
  const scene = dir.split("/").at(-1)!;
  const segGroups = ids.map((id, k) => ({ id: k, objectId: k, segments: [], label: b.manifest.instances.find((e) => e.id === id)!.category }));
  writeFileSync(join(dir, `${scene}.aggregation.json`), JSON.stringify({ sceneId: `scannet.${scene}`, appId: "Aggregator.v2", segGroups }));
  return { names, maskToId };
}

/** ScanNet++ iPhone: rgb/ at twice the depth size, depth/ mm, pose_intrinsic_imu.json (K at the RGB size, aligned_pose c2w). */
export function writeScannetpp(sceneDir: string, views: ViewData[]): string[] {
  const dir = join(sceneDir, "iphone");
  for (const d of ["rgb", "depth"]) mkdirSync(join(dir, d), { recursive: true });
  const names = views.map((_, i) => `frame_${String(i * 10).padStart(6, "0")}`);
  const json: Record<string, unknown> = {};
  views.forEach((v, i) => {
    writeColour(join(dir, "rgb", `${names[i]}.png`), v, 2);
    writeDepth(join(dir, "depth", `${names[i]}.png`), v, 1000);
    const K = upscaled(v.K, 2);
    const c2w = cameraToWorld(v);
    json[names[i]!] = {
      timestamp: i / 60,
      intrinsic: [
        [K.fx, 0, K.cx],
        [0, K.fy, K.cy],
        [0, 0, 1],
      ],
      pose: [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 1],
      ],
      aligned_pose: [c2w.slice(0, 4), c2w.slice(4, 8), c2w.slice(8, 12), c2w.slice(12, 16)],
      imu: {},
    };
  });
  writeFileSync(join(dir, "pose_intrinsic_imu.json"), JSON.stringify(json));
  return names;
}

/** Angle-axis of a rotation matrix (the inverse of Rodrigues' formula; angles below pi). */
function angleAxis(R: Mat3): [number, number, number] {
  const q = matToQuat(R);
  const s = Math.hypot(q.x, q.y, q.z);
  if (s < 1e-12) return [0, 0, 0];
  const theta = 2 * Math.atan2(s, q.w);
  return [(q.x / s) * theta, (q.y / s) * theta, (q.z / s) * theta];
}

/** The rotation taking esi3d's Z-up world to a Y-up one (X_file = W X): z -> y, y -> -z. */
const Z_UP_TO_Y_UP: Mat3 = [
  [1, 0, 0],
  [0, 0, 1],
  [0, -1, 0],
];

/**
 * ARKitScenes 3DOD in a Y-up world: lowres_wide/, lowres_depth/ (mm), lowres_wide_intrinsics/*.pincam and
 * lowres_wide.traj (world -> camera angle-axis + translation) whose timestamps are `trajOffsetS` off the frames'.
 */
export function writeArkitscenes(dir: string, vid: string, views: ViewData[], trajOffsetS: number): string[] {
  const f = join(dir, `${vid}_frames`);
  for (const d of ["lowres_wide", "lowres_depth", "lowres_wide_intrinsics"]) mkdirSync(join(f, d), { recursive: true });
  const stamps = views.map((_, i) => (6000.1 + i * 0.5).toFixed(3));
  const traj: string[] = [];
  views.forEach((v, i) => {
    const name = `${vid}_${stamps[i]}`;
    writeColour(join(f, "lowres_wide", `${name}.png`), v);
    writeDepth(join(f, "lowres_depth", `${name}.png`), v, 1000);
    writeFileSync(join(f, "lowres_wide_intrinsics", `${name}.pincam`), `${v.width} ${v.height} ${fmt(v.K.fx)} ${fmt(v.K.fy)} ${fmt(v.K.cx)} ${fmt(v.K.cy)}\n`);
    // world -> camera of the Y-up world: the inverse of its camera-to-world
    const c2w = cameraToWorld(v, Z_UP_TO_Y_UP);
    const R = mat3Of(c2w),
      t = [c2w[3]!, c2w[7]!, c2w[11]!];
    const Rt: Mat3 = [
      [R[0][0], R[1][0], R[2][0]],
      [R[0][1], R[1][1], R[2][1]],
      [R[0][2], R[1][2], R[2][2]],
    ];
    const tw = Rt.map((r) => -(r[0] * t[0]! + r[1] * t[1]! + r[2] * t[2]!));
    traj.push([Number(stamps[i]) + trajOffsetS, ...angleAxis(Rt), ...tw].map(fmt).join(" "));
  });
  writeFileSync(join(f, "lowres_wide.traj"), traj.join("\n") + "\n");
  return stamps.map((s) => `${vid}_${s}`);
}

/** TUM RGB-D: rgb.txt, depth.txt, groundtruth.txt (tx ty tz qx qy qz qw, c2w) with timestamps a little apart. */
export function writeTum(dir: string, views: ViewData[]): string[] {
  for (const d of ["rgb", "depth"]) mkdirSync(join(dir, d), { recursive: true });
  const depthTs = views.map((_, i) => 1305031102.175304 + i * 0.2);
  const rgbList = ["# color images", "# file: 'rgbd_dataset'", "# timestamp filename"],
    depthList = ["# depth maps", "# file: 'rgbd_dataset'", "# timestamp filename"],
    gt = ["# ground truth trajectory", "# timestamp tx ty tz qx qy qz qw"];
  views.forEach((v, i) => {
    const tRgb = (depthTs[i]! + 0.011).toFixed(6),
      tD = depthTs[i]!.toFixed(6);
    writeColour(join(dir, "rgb", `${tRgb}.png`), v);
    writeDepth(join(dir, "depth", `${tD}.png`), v, 5000);
    rgbList.push(`${tRgb} rgb/${tRgb}.png`);
    depthList.push(`${tD} depth/${tD}.png`);
    const c2w = cameraToWorld(v);
    const q = matToQuat(mat3Of(c2w));
    // a pose 4 ms before the frame and one far from any frame (mocap runs faster than the camera)
    gt.push([depthTs[i]! - 0.004, c2w[3]!, c2w[7]!, c2w[11]!, q.x, q.y, q.z, q.w].map((x, k) => (k === 0 ? x.toFixed(4) : x.toFixed(9))).join(" "));
    gt.push([depthTs[i]! + 0.1, 9, 9, 9, 0, 0, 0, 1].map((x) => x.toFixed(4)).join(" "));
  });
  writeFileSync(join(dir, "rgb.txt"), rgbList.join("\n") + "\n");
  writeFileSync(join(dir, "depth.txt"), depthList.join("\n") + "\n");
  writeFileSync(join(dir, "groundtruth.txt"), gt.join("\n") + "\n");
  return depthTs.map((t) => t.toFixed(6));
}

/** Replica (NICE-SLAM): results/frameNNNNNN + depthNNNNNN.png (6553.5 per metre), traj.txt rows, cam_params.json. */
export function writeReplica(dir: string, views: ViewData[]): string[] {
  mkdirSync(join(dir, "results"), { recursive: true });
  const rows: string[] = [];
  views.forEach((v, i) => {
    const n = String(i).padStart(6, "0");
    writeColour(join(dir, "results", `frame${n}.png`), v);
    writeDepth(join(dir, "results", `depth${n}.png`), v, 6553.5);
    rows.push(cameraToWorld(v).map(fmt).join(" "));
  });
  writeFileSync(join(dir, "traj.txt"), rows.join("\n") + "\n");
  const K = views[0]!.K;
  writeFileSync(
    join(dir, "cam_params.json"),
    JSON.stringify({ camera: { w: views[0]!.width, h: views[0]!.height, fx: K.fx, fy: K.fy, cx: K.cx, cy: K.cy, scale: 6553.5 } }),
  );
  return views.map((_, i) => `frame${String(i).padStart(6, "0")}`);
}
