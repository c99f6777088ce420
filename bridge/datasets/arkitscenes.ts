/**
 * ARKitScenes 3DOD, one video's <video_id>_frames folder as apple/ARKitScenes' tenFpsDataLoader reads it:
 * lowres_wide/<vid>_<ts>.png (RGB 256x192), lowres_depth/<vid>_<ts>.png (uint16 mm),
 * lowres_wide_intrinsics/<vid>_<ts>.pincam (one line `w h fx fy cx cy`) and lowres_wide.traj (lines
 * `ts ax ay az tx ty tz`: angle-axis and translation of world -> camera, OpenCV axes; the loader inverts it
 * to get camera-to-world, so it is esi3d's camera-from-world as it stands). A depth frame takes the pose and
 * intrinsics of the same timestamp to 3 decimals, else the nearest within the loader's tolerances.
 * The world's up axis is not stated by the layout: give --up when you know it.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { extrinsicOfWorldToCamera, numbersOf, readText, rigid, rotationOfAngleAxis } from "./matrices.js";
import { framesIn, requireDir } from "./files.js";
import { DatasetError, type DatasetFrame, type DatasetScene } from "./scene.js";
import type { Mat34 } from "../../core/math/vec.js";

/** ARKitScenes' depth PNGs are uint16 millimetres (DATA.md). */
const ARKITSCENES_DEPTH_SCALE = 1000;
/** A pose within this many seconds of a depth frame's timestamp is its pose (tenFpsDataLoader: 0.005). */
const ARKIT_POSE_TOLERANCE_S = 0.005;
/** The .pincam of a frame may be named up to this far off its timestamp (tenFpsDataLoader tries ±0.001). */
const ARKIT_PINCAM_TOLERANCE_S = 0.001;

export function readArkitscenes(dir0: string): DatasetScene {
  const inner = readdirSync(dir0).find((f) => f.endsWith("_frames") && statSync(join(dir0, f)).isDirectory());
  const dir = existsSync(join(dir0, "lowres_depth")) || !inner ? dir0 : join(dir0, inner);
  const depthDir = requireDir(dir, "lowres_depth", "ARKitScenes 3DOD");
  const rgbDir = requireDir(dir, "lowres_wide", "ARKitScenes 3DOD");
  const kDir = requireDir(dir, "lowres_wide_intrinsics", "ARKitScenes 3DOD");
  const trajFile = join(dir, "lowres_wide.traj");
  const traj = readTraj(trajFile);
  const depthFrames = framesIn(depthDir, ".png");
  if (depthFrames.length === 0) throw new DatasetError(depthDir, "no depth images (<vid>_<ts>.png)");
  const frames: DatasetFrame[] = [];
  for (const f of depthFrames) {
    const cut = f.stem.lastIndexOf("_");
    const vid = f.stem.slice(0, cut),
      ts = Number(f.stem.slice(cut + 1));
    if (cut < 0 || !Number.isFinite(ts)) throw new DatasetError(f.file, "expected a file name <video_id>_<timestamp>.png");
    const pose = nearest(traj, ts);
    if (!pose || Math.abs(pose.ts - ts) > ARKIT_POSE_TOLERANCE_S)
      throw new DatasetError(trajFile, `no pose within ${ARKIT_POSE_TOLERANCE_S} s of depth frame ${f.stem} (timestamp ${ts})`);
    frames.push({
      name: f.stem,
      rgb: join(rgbDir, `${f.stem}.png`),
      depth: f.file,
      extrinsic: pose.E,
      poseFrom: { file: trajFile, field: `line ${pose.line}` },
      ...pincam(kDir, vid, f.stem.slice(cut + 1)),
    });
  }
  return {
    layout: "arkitscenes",
    name: basename(dir).replace(/_frames$/, ""),
    dir: dir0,
    frames,
    depthScale: ARKITSCENES_DEPTH_SCALE,
    up: null,
    notes: ["no 2D instance masks in this layout (annotation.json holds 3D boxes)", "world up axis not stated by the layout (give --up)"],
  };
}

function readTraj(file: string): Array<{ ts: number; E: Mat34; line: number }> {
  const lines = readText(file, "camera trajectory, lines `ts ax ay az tx ty tz`").split(/\r?\n/);
  const out: Array<{ ts: number; E: Mat34; line: number }> = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    const n = numbersOf(line);
    if (!n || n.length !== 7)
      throw new DatasetError(file, `expected 7 numbers (ts ax ay az tx ty tz), found ${n ? n.length : "a token that is not a number"}`, `line ${i + 1}`);
    out.push({ ts: n[0]!, E: extrinsicOfWorldToCamera(rigid(rotationOfAngleAxis(n[1]!, n[2]!, n[3]!), [n[4]!, n[5]!, n[6]!])), line: i + 1 });
  });
  return out.sort((a, b) => a.ts - b.ts);
}

/** The entry of `sorted` whose `ts` is nearest to `ts`. */
export function nearest<T extends { ts: number }>(sorted: readonly T[], ts: number): T | undefined {
  let lo = 0,
    hi = sorted.length - 1;
  if (hi < 0) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  const a = sorted[lo]!,
    b = sorted[lo - 1];
  return b && Math.abs(b.ts - ts) <= Math.abs(a.ts - ts) ? b : a;
}

function pincam(kDir: string, vid: string, stamp: string): Pick<DatasetFrame, "intrinsics" | "intrinsicsSize" | "intrinsicsFrom"> {
  const ts = Number(stamp);
  const names = [stamp, ...[ts - ARKIT_PINCAM_TOLERANCE_S, ts + ARKIT_PINCAM_TOLERANCE_S].map((t) => t.toFixed(3))].map((s) =>
    join(kDir, `${vid}_${s}.pincam`),
  );
  const file = names.find((f) => existsSync(f));
  if (!file) throw new DatasetError(names[0]!, "missing (intrinsics of this frame: one line `w h fx fy cx cy`)");
  const n = numbersOf(readText(file, "intrinsics"));
  if (!n || n.length !== 6 || !n.every(Number.isFinite) || !(n[0]! > 0 && n[1]! > 0 && n[2]! > 0 && n[3]! > 0))
    throw new DatasetError(
      file,
      `expected one line of 6 finite numbers \`w h fx fy cx cy\` (pixels), found ${n ? n.join(" ") : "a token that is not a number"}`,
    );
  return { intrinsics: { fx: n[2]!, fy: n[3]!, cx: n[4]!, cy: n[5]! }, intrinsicsSize: { width: n[0]!, height: n[1]! }, intrinsicsFrom: { file } };
}
