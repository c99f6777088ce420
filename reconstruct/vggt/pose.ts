/**
 * VGGT's camera encoding "absT_quaR_FoV" (VGGT's source; vggt/utils/pose_enc.py, rotation.py):
 * [tx, ty, tz, qx, qy, qz, qw, fov_h, fov_w], camera-from-world, OpenCV axes, quaternion scalar-last and
 * not normalised by the network, FoVs in radians at the model input resolution.
 */
import type { Mat34 } from "../../core/math/vec.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { quatToMat } from "../../core/math/quat.js";

/** Number of values per frame in `pose_enc` (pose_enc.py, "absT_quaR_FoV"). */
const POSE_ENC_SIZE = 9;

export interface DecodedCamera {
  /** Camera-from-world [R | T] in VGGT's frame (frame 0's camera, arbitrary scale). */
  E: Mat34;
  /**
   * Intrinsics at the model input resolution, exactly as VGGT's `pose_encoding_to_extri_intri` writes them:
   * principal point (W/2, H/2) in esi3d's pixel convention (pixel (i, j) centred at (i, j)), which is also the
   * convention of VGGT's own unprojection and training data (models/README.md, "Principal point").
   */
  K: Intrinsics;
}

/**
 * Decodes frame `s` of a pose_enc buffer (`pose_encoding_to_extri_intri` with image_size_hw = (H, W), the
 * model input size): R from the quaternion with s = 2/|q|² (rotation.py `quat_to_mat` normalises
 * implicitly), fy = (H/2)/tan(fov_h/2), fx = (W/2)/tan(fov_w/2), cx = W/2, cy = H/2.
 */
export function decodePoseEncoding(poseEnc: ArrayLike<number>, s: number, H: number, W: number): DecodedCamera {
  const o = s * POSE_ENC_SIZE;
  const v = (i: number) => poseEnc[o + i]!;
  const R = quatToMat({ x: v(3), y: v(4), z: v(5), w: v(6) });
  const E: Mat34 = [
    [R[0][0], R[0][1], R[0][2], v(0)],
    [R[1][0], R[1][1], R[1][2], v(1)],
    [R[2][0], R[2][1], R[2][2], v(2)],
  ];
  const fy = H / 2 / Math.tan(v(7) / 2);
  const fx = W / 2 / Math.tan(v(8) / 2);
  return { E, K: { fx, fy, cx: W / 2, cy: H / 2 } };
}

/**
 * Why frame `s` cannot be decoded into a usable camera, or null: every value finite, a non-zero quaternion,
 * fields of view in (0, π) (VGGT's `fl_act="relu"` allows exactly 0, camera_head.py, which is an infinite
 * focal length). The caller drops such a view and reports it.
 */
export function checkPoseEncoding(poseEnc: ArrayLike<number>, s: number): string | null {
  const o = s * POSE_ENC_SIZE;
  for (let i = 0; i < POSE_ENC_SIZE; i++) if (!Number.isFinite(poseEnc[o + i]!)) return `pose_enc[${s}][${i}] is not finite`;
  const q2 = [3, 4, 5, 6].reduce((a, i) => a + poseEnc[o + i]! ** 2, 0);
  if (!(q2 > 0)) return `pose_enc[${s}] has a zero quaternion`;
  for (const i of [7, 8])
    if (!(poseEnc[o + i]! > 0 && poseEnc[o + i]! < Math.PI)) return `pose_enc[${s}][${i}] (field of view) is ${poseEnc[o + i]} rad, outside (0, π)`;
  return null;
}
