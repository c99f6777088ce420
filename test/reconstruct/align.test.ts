import { describe, expect, it } from "vitest";
import type { Mat3, Mat34, Vec3 } from "../../core/math/vec.js";
import { matMul } from "../../core/math/vec.js";
import { cameraCentre, poseToExtrinsic } from "../../core/math/camera.js";
import { quatToMat } from "../../core/math/quat.js";
import { alignCameras, alignExtrinsic, applySim3, umeyama, type Sim3 } from "../../reconstruct/align.js";
import { principalSpreads } from "../../reconstruct/principalAxes.js";

/** The determinant of a 3×3 matrix (a rotation's is +1, a reflection's -1). */
const det3 = ([a, b, c]: Mat3): number => a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);

/** Rotation about +Z by `yaw` radians. */
function rotZ(yaw: number): Mat3 {
  const c = Math.cos(yaw),
    s = Math.sin(yaw);
  return [
    [c, -s, 0],
    [s, c, 0],
    [0, 0, 1],
  ];
}

/** Deterministic pseudo-random numbers in [-1, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 31 - 1;
}

const KNOWN: Sim3 = { R: quatToMat({ x: 0.3, y: -0.5, z: 0.2, w: 0.8 }), t: [1.5, -2, 0.75], s: 2.5 };

function expectMat(a: Mat3, b: Mat3, tol: number) {
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(Math.abs(a[i]![j]! - b[i]![j]!)).toBeLessThan(tol);
}

/** Predicted extrinsic of a camera whose known extrinsic is E, in a frame related by x_known = s·R·x_pred + t. */
function predictedFrom(E: Mat34, T: Sim3): Mat34 {
  // Inverse of alignExtrinsic: prediction = [R_k·R | (R_k·t + t_k)/s].
  const Rk: Mat3 = [
    [E[0][0], E[0][1], E[0][2]],
    [E[1][0], E[1][1], E[1][2]],
    [E[2][0], E[2][1], E[2][2]],
  ];
  const Rp = matMul(Rk, T.R);
  const tp = [0, 1, 2].map((r) => (Rk[r]![0]! * T.t[0] + Rk[r]![1]! * T.t[1] + Rk[r]![2]! * T.t[2] + E[r]![3]!) / T.s);
  return [
    [Rp[0][0], Rp[0][1], Rp[0][2], tp[0]!],
    [Rp[1][0], Rp[1][1], Rp[1][2], tp[1]!],
    [Rp[2][0], Rp[2][1], Rp[2][2], tp[2]!],
  ];
}

describe("umeyama", () => {
  it("recovers a known similarity exactly", () => {
    const r = lcg(1);
    const src: Vec3[] = Array.from({ length: 20 }, () => [r() * 3, r() * 3, r() * 3]);
    const dst = src.map((p) => applySim3(KNOWN, p));
    const u = umeyama(src, dst, true);
    expect(u.s).toBeCloseTo(2.5, 12);
    expectMat(u.R, KNOWN.R, 1e-12);
    u.t.forEach((v, i) => expect(v).toBeCloseTo(KNOWN.t[i]!, 11));
    expect(u.rmse).toBeLessThan(1e-12);
  });
  it("fits a rigid transform when withScale is false (s = 1)", () => {
    const r = lcg(2);
    const src: Vec3[] = Array.from({ length: 10 }, () => [r(), r(), r()]);
    const rigid = { ...KNOWN, s: 1 };
    const u = umeyama(
      src,
      src.map((p) => applySim3(rigid, p)),
      false,
    );
    expect(u.s).toBe(1);
    expectMat(u.R, KNOWN.R, 1e-12);
    expect(u.rmse).toBeLessThan(1e-12);
  });
  it("returns a proper rotation (det +1) for mirrored data and a positive residual", () => {
    const r = lcg(3);
    const src: Vec3[] = Array.from({ length: 12 }, () => [r(), r(), r()]);
    const dst = src.map((p) => [-p[0], p[1], p[2]] as Vec3);
    const u = umeyama(src, dst, true);
    expect(det3(u.R)).toBeCloseTo(1, 12);
    expect(u.rmse).toBeGreaterThan(0.01);
  });
  it("is the least-squares optimum under noise (perturbing it only increases the residual)", () => {
    const r = lcg(4);
    const src: Vec3[] = Array.from({ length: 30 }, () => [r() * 2, r() * 2, r() * 2]);
    const dst = src.map((p) => applySim3(KNOWN, p).map((v) => v + 0.01 * r()) as Vec3);
    const u = umeyama(src, dst, true);
    expect(u.s).toBeCloseTo(2.5, 2);
    const rms = (T: Sim3) => Math.sqrt(src.reduce((a, p, i) => a + applySim3(T, p).reduce((b, v, k) => b + (v - dst[i]![k]!) ** 2, 0), 0) / src.length);
    expect(rms(u)).toBeCloseTo(u.rmse, 12);
    for (const d of [
      { ...u, s: u.s * 1.001 },
      { ...u, R: matMul(rotZ(0.001), u.R) },
      { ...u, t: [u.t[0] + 0.001, u.t[1], u.t[2]] as Vec3 },
    ])
      expect(rms(d)).toBeGreaterThan(u.rmse);
  });
});

describe("alignCameras", () => {
  const pose = (x: number, y: number, z: number, yaw: number, pitch = 0) => poseToExtrinsic({ position: [x, y, z], yaw, pitch });

  it("uses Umeyama on ≥ 3 non-collinear cameras and recovers the similarity", () => {
    const known = [pose(0, 0, 1.5, 0), pose(1, 0.2, 1.5, 0.4), pose(1.2, 1.5, 1.4, 1.2, -0.2), pose(-0.3, 1, 1.6, 2)];
    const predicted = known.map((E) => predictedFrom(E, KNOWN));
    const a = alignCameras({ predicted, known });
    expect(a.method).toBe("umeyama");
    expect(a.s).toBeCloseTo(2.5, 10);
    expectMat(a.R, KNOWN.R, 1e-10);
    expect(a.rmsM).toBeLessThan(1e-10);
    // Re-expressing the predictions gives back the known extrinsics.
    const back = alignExtrinsic(predicted[2]!, a);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) expect(back[r]![c]!).toBeCloseTo(known[2]![r]![c]!, 10);
  });
  it("falls back to camera 0 + median distance ratio for collinear cameras", () => {
    const known = [pose(0, 0, 1.5, 0.3), pose(1, 0, 1.5, 0.5), pose(2, 0, 1.5, 0.1)];
    const predicted = known.map((E) => predictedFrom(E, KNOWN));
    const a = alignCameras({ predicted, known });
    expect(a.method).toBe("camera0+baseline");
    expect(a.s).toBeCloseTo(2.5, 10);
    expectMat(a.R, KNOWN.R, 1e-10);
    a.t.forEach((v, i) => expect(v).toBeCloseTo(KNOWN.t[i]!, 10));
    expect(a.rmsM).toBeLessThan(1e-10);
    expect(a.note).toMatch(/collinear/);
  });
  it("cameras turning in place (centres equal up to rounding) are not fitted by Umeyama: the scale stays, the scene is not shrunk to a point", () => {
    // three turns about one centre; the predicted centres drift by centimetres, the known ones differ by rounding only
    // the built-in simulator's views 0..2 of a run's active episode (geometric_configuration-002: turn_up, turn_right)
    const known: Mat34[] = [
      [
        [0.645664113846982, 0.7636215372094945, 0, 0.4711142282967433],
        [0.08307002676605643, -0.07023811221348043, -0.9940653792612301, 0.09100151296708586],
        [-0.7590897329981997, 0.6418323422066662, -0.1087842900157316, 2.2617102751090967],
      ],
      [
        [0.645664113846982, 0.7636215372094945, 0, 0.4711142282967433],
        [-0.1162273955978634, 0.09827362734905327, -0.9883488689122869, 0.6732744053085835],
        [-0.7547244825780658, 0.6381413966179187, 0.1522054970091515, 2.1610914416222036],
      ],
      [
        [0.8213034397531256, 0.5704915948983683, 0, -0.12427613440556207],
        [-0.08683195674104967, 0.1250068982429502, -0.988348868912287, 0.6802244281343586],
        [-0.563844722541769, 0.8117343257137724, 0.1522054970091515, 2.206221527813219],
      ],
    ];
    const spread = principalSpreads(known.map(cameraCentre));
    expect(spread[0]).toBeLessThan(1e-12);
    expect(spread[1] / spread[0]).toBeGreaterThan(0.1); // rounding alone looks "planar" by the ratio
    const drift: Vec3[] = [
      [0, 0, 0],
      [0.02, -0.01, 0.005],
      [-0.01, 0.03, 0.01],
    ];
    const predicted = known.map((E, k) =>
      predictedFrom(E, { R: KNOWN.R, t: [KNOWN.t[0] + drift[k]![0], KNOWN.t[1] + drift[k]![1], KNOWN.t[2] + drift[k]![2]], s: 1 }),
    );
    const a = alignCameras({ predicted, known });
    expect(a.method).not.toBe("umeyama");
    expect(a.s).toBe(1);
  });
  it("two cameras: camera 0 + baseline", () => {
    const known = [pose(0, 0, 1.5, 0.3), pose(0.5, 0.5, 1.5, 0.9)];
    const a = alignCameras({ predicted: known.map((E) => predictedFrom(E, KNOWN)), known });
    expect(a.method).toBe("camera0+baseline");
    expect(a.s).toBeCloseTo(2.5, 10);
  });
  it("one view (or turning in place): scale from depth, and says so; unscaled without depth", () => {
    const known = [pose(3, 1, 1.5, 0.3)];
    const predicted = known.map((E) => predictedFrom(E, KNOWN));
    const a = alignCameras({ predicted, known, depthRatio: () => 2.5 });
    expect(a.method).toBe("camera0+depth");
    expect(a.note).toMatch(/depth/);
    expectMat(a.R, KNOWN.R, 1e-12);
    a.t.forEach((v, i) => expect(v).toBeCloseTo(KNOWN.t[i]!, 10));
    const b = alignCameras({ predicted, known, depthRatio: () => null });
    expect(b.method).toBe("camera0-unscaled");
    expect(b.s).toBe(1);
    // Camera 0 is still placed exactly.
    const c = cameraCentre(known[0]!);
    applySim3(b, cameraCentre(predicted[0]!)).forEach((v, i) => expect(v).toBeCloseTo(c[i]!, 10));
  });
});
