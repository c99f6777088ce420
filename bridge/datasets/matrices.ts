/**
 * The pose and intrinsics files of RGB-D datasets: whitespace-separated matrices (ScanNet's pose/<i>.txt
 * and intrinsic_*.txt, Replica's traj.txt rows), quaternions (TUM), angle-axis (ARKitScenes), and the
 * conversions between camera-to-world and esi3d's camera-from-world extrinsic.
 */
import type { Mat3, Mat34 } from "../../core/math/vec.js";
import { quatToMat } from "../../core/math/quat.js";
import { rotationError } from "../../core/math/camera.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { DatasetError } from "./scene.js";
import { readDatasetFile } from "./files.js";

/** Row-major 4x4. */
export type Mat4 = number[];

/** A rigid transform's rotation must be orthonormal to this tolerance: text files print 6-9 digits. */
const RIGID_TOLERANCE = 1e-3;

export function readText(file: string, what: string): string {
  return readDatasetFile(file, what).toString("utf8");
}

/**
 * The non-finite values as numpy (np.savetxt, `%f`), C's printf and Python write them: SensReader marks lost
 * tracking with `-inf` (refused as "not a number", though such frames are to be left out).
 */
const NON_FINITE_SPELLINGS: Readonly<Record<string, number>> = {
  inf: Infinity,
  "+inf": Infinity,
  "-inf": -Infinity,
  infinity: Infinity,
  "+infinity": Infinity,
  "-infinity": -Infinity,
  nan: NaN,
  "+nan": NaN,
  "-nan": NaN,
};

/** One token as a number (JavaScript's forms and NON_FINITE_SPELLINGS, any case), or undefined when it is none. */
function numberOf(token: string): number | undefined {
  const key = token.toLowerCase();
  if (Object.hasOwn(NON_FINITE_SPELLINGS, key)) return NON_FINITE_SPELLINGS[key];
  const v = Number(token);
  return Number.isNaN(v) ? undefined : v;
}

/** The numbers of a text, or null when some token is not a number. */
export function numbersOf(text: string): number[] | null {
  const out: number[] = [];
  for (const t of text
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)) {
    const v = numberOf(t);
    if (v === undefined) return null;
    out.push(v);
  }
  return out;
}

/** A file of exactly `count` numbers (e.g. 16 for a 4x4 matrix). */
export function readNumbers(file: string, count: number, what: string): number[] {
  const n = numbersOf(readText(file, what));
  if (!n || n.length !== count) throw new DatasetError(file, `expected ${count} numbers (${what}), found ${n ? n.length : "a token that is not a number"}`);
  return n;
}

/** Intrinsics from a 3x3 or 4x4 row-major K (ScanNet's intrinsic_*.txt is 4x4, ScanNet++'s JSON 3x3). */
export function intrinsicsOfMatrix(m: readonly number[], file: string, field?: string): Intrinsics {
  const n = m.length === 16 ? 4 : m.length === 9 ? 3 : 0;
  if (!n) throw new DatasetError(file, `expected a 3x3 or 4x4 intrinsic matrix, found ${m.length} numbers`, field);
  const K = { fx: m[0]!, fy: m[n + 1]!, cx: m[2]!, cy: m[n + 2]! };
  if (!(K.fx > 0 && K.fy > 0 && [K.fx, K.fy, K.cx, K.cy].every(Number.isFinite)))
    throw new DatasetError(file, `intrinsics fx ${K.fx}, fy ${K.fy}, cx ${K.cx}, cy ${K.cy}: expected positive finite focal lengths (pixels)`, field);
  return K;
}

export const isFiniteMatrix = (m: readonly number[]): boolean => m.every(Number.isFinite);

function rotationOf(m: Mat4): Mat3 {
  return [
    [m[0]!, m[1]!, m[2]!],
    [m[4]!, m[5]!, m[6]!],
    [m[8]!, m[9]!, m[10]!],
  ];
}

/** Refuses a matrix that is not a rigid transform (orthonormal rotation, det +1, last row 0 0 0 1). */
export function checkRigid(m: Mat4, file: string, field?: string): void {
  const { orthoError, det } = rotationError(rotationOf(m));
  const lastRow = m.length === 12 || Math.abs(m[12]!) + Math.abs(m[13]!) + Math.abs(m[14]!) + Math.abs(m[15]! - 1) <= RIGID_TOLERANCE;
  if (!(orthoError <= RIGID_TOLERANCE) || !(Math.abs(det - 1) <= RIGID_TOLERANCE) || !lastRow)
    throw new DatasetError(
      file,
      `not a rigid transform (|R R^T - I| = ${orthoError.toExponential(2)}, det ${det.toFixed(4)}${lastRow ? "" : ", last row not 0 0 0 1"}); expected a 4x4 camera pose`,
      field,
    );
}

/** esi3d's extrinsic (camera-from-world) of a camera-to-world 4x4 with OpenCV camera axes. */
export function extrinsicOfCameraToWorld(c2w: Mat4): Mat34 {
  const R = rotationOf(c2w);
  const t = [c2w[3]!, c2w[7]!, c2w[11]!];
  // [R | t]^-1 = [R^T | -R^T t]
  const Rt: Mat3 = [
    [R[0][0], R[1][0], R[2][0]],
    [R[0][1], R[1][1], R[2][1]],
    [R[0][2], R[1][2], R[2][2]],
  ];
  const row = (i: 0 | 1 | 2): [number, number, number, number] => [Rt[i][0], Rt[i][1], Rt[i][2], -(Rt[i][0] * t[0]! + Rt[i][1] * t[1]! + Rt[i][2] * t[2]!)];
  return [row(0), row(1), row(2)];
}

/** A 4x4 of rotation R and translation t. */
export function rigid(R: Mat3, t: readonly number[]): Mat4 {
  return [R[0][0], R[0][1], R[0][2], t[0]!, R[1][0], R[1][1], R[1][2], t[1]!, R[2][0], R[2][1], R[2][2], t[2]!, 0, 0, 0, 1];
}

/** The extrinsic of a world-to-camera 4x4 (ARKitScenes' .traj): it already is camera-from-world. */
export function extrinsicOfWorldToCamera(w2c: Mat4): Mat34 {
  return [
    [w2c[0]!, w2c[1]!, w2c[2]!, w2c[3]!],
    [w2c[4]!, w2c[5]!, w2c[6]!, w2c[7]!],
    [w2c[8]!, w2c[9]!, w2c[10]!, w2c[11]!],
  ];
}

/** Rotation of a quaternion given as qx qy qz qw (TUM's order). */
export const rotationOfQuaternion = (qx: number, qy: number, qz: number, qw: number): Mat3 => quatToMat({ x: qx, y: qy, z: qz, w: qw });

/** Rotation of an angle-axis vector (Rodrigues; ARKitScenes' .traj columns 2-4, radians). */
export function rotationOfAngleAxis(ax: number, ay: number, az: number): Mat3 {
  const theta = Math.hypot(ax, ay, az);
  if (theta < 1e-12)
    return [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
  const [x, y, z] = [ax / theta, ay / theta, az / theta];
  const c = Math.cos(theta),
    s = Math.sin(theta),
    C = 1 - c;
  return [
    [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
    [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
    [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
  ];
}
