/**
 * The `drift` component: pose error correlated along the trajectory. Each step between consecutive views
 * (bundle order is trajectory order: the ESI-Bench paper's four paradigms, bridge/sim/views.ts) gets a small
 * relative-pose error, and the errors compose, so a view's error is a random walk of every step before it:
 *
 *   E'_0 = E_0,   E'_k = ε_k · (E_k · E_{k−1}⁻¹) · E'_{k−1},   ε_k = [exp(σ_r·n) | σ_t·m] in camera k's axes
 *
 * (per-axis std σ_r = driftRotDeg/√3, σ_t = driftTransM/√3, so the RMS step error is driftRotDeg and
 * driftTransM). A rotation error at one step also moves every later camera centre by its lever arm, as
 * in odometry. The drifted cameras are then aligned to the true ones exactly as the `vggt` source aligns
 * VGGT's (reconstruct/align.ts `alignCameras`: Umeyama Sim(3) on the camera centres when they span a
 * plane, else camera 0), so the error left is the error after the pipeline's alignment; the alignment's
 * scale multiplies the view's depths (alignExtrinsic's metric camera coordinates).
 */
import type { ViewData } from "../../core/bundle/io.js";
import type { Mat34 } from "../../core/math/vec.js";
import type { Rng } from "../../core/math/rng.js";
import { cameraCentre, extrinsicRotation, invertExtrinsic } from "../../core/math/camera.js";
import { alignCameras, alignExtrinsic, type AlignMethod } from "../align.js";
import { composeExtrinsics, extrinsic, rotationAngleDeg, rotationFromVector } from "./rigid.js";
import type { NoiseParams } from "./params.js";

interface DriftRecord {
  view: number;
  /** Rotation error (degrees) of the aligned drifted camera against the true one. */
  rotDeg: number;
  /** Camera-centre error (m) after the alignment. */
  centreErrM: number;
  /** The aligned drifted camera-from-world extrinsic the view is back-projected with. */
  E: Mat34;
}

export interface DriftResult {
  records: DriftRecord[];
  /** How the drifted trajectory was aligned to the true one, and the scale that multiplies every view's depths. */
  alignment: { method: AlignMethod; scale: number; rmsM: number };
}

/** Drifted, then aligned, cameras of every view (one Rng per step: `stepRng(k)`; step k leads to view k). */
export function driftPoses(views: readonly ViewData[], p: NoiseParams, stepRng: (k: number) => Rng): DriftResult {
  const sr = (p.driftRotDeg * Math.PI) / 180 / Math.sqrt(3),
    st = p.driftTransM / Math.sqrt(3);
  const drifted: Mat34[] = [views[0]!.E];
  for (let k = 1; k < views.length; k++) {
    const rng = stepRng(k);
    const n = [rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal()];
    const eps = extrinsic(rotationFromVector(n[0]! * sr, n[1]! * sr, n[2]! * sr), [n[3]! * st, n[4]! * st, n[5]! * st]);
    const step = composeExtrinsics(views[k]!.E, invertExtrinsic(views[k - 1]!.E));
    drifted.push(composeExtrinsics(eps, composeExtrinsics(step, drifted[k - 1]!)));
  }
  // one view has no step to drift, and aligning it to itself would only add rounding
  if (views.length === 1)
    return { records: [{ view: views[0]!.index, rotDeg: 0, centreErrM: 0, E: views[0]!.E }], alignment: { method: "camera0-unscaled", scale: 1, rmsM: 0 } };
  const T = alignCameras({ predicted: drifted, known: views.map((v) => v.E) });
  const records = views.map((v, k): DriftRecord => {
    const E = alignExtrinsic(drifted[k]!, T);
    const Rt = extrinsicRotation(v.E),
      Rp = extrinsicRotation(E);
    // relative rotation Rp·Rtᵀ
    const rel = [0, 1, 2].map((i) =>
      [0, 1, 2].map((j) => Rp[i]![0]! * Rt[j]![0]! + Rp[i]![1]! * Rt[j]![1]! + Rp[i]![2]! * Rt[j]![2]!),
    ) as unknown as Parameters<typeof rotationAngleDeg>[0];
    const c = cameraCentre(E),
      ct = cameraCentre(v.E);
    return { view: v.index, rotDeg: rotationAngleDeg(rel), centreErrM: Math.hypot(c[0] - ct[0], c[1] - ct[1], c[2] - ct[2]), E };
  });
  return { records, alignment: { method: T.method, scale: T.s, rmsM: T.rmsM } };
}
