/**
 * Test helpers for the point-cloud primitives: a seeded synthetic scene (the shape of
 * bench/peers/gen_scene.py: floor + boxes/spheres/cylinders, 2 mm noise, 0.1 % outliers, shuffled)
 * and a runner for the Open3D peer (bench/peers/o3d_peer.py) on Debian's python3.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "../../../core/math/rng.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const peersDir = resolve(repoRoot, "bench/peers");
const PYTHON = "/usr/bin/python3";

export interface SceneOptions {
  objects?: number;
  halfM?: number;
  noiseM?: number;
  outlierFraction?: number;
  /** Extra exact copies of one point (exercises Open3D's "avg distance 0 is an outlier" rule). */
  duplicates?: number;
}

/** A shuffled synthetic indoor cloud of n points (float32 xyz), fully determined by seed. */
export function syntheticScene(n: number, seed: string | number, opts: SceneOptions = {}): Float32Array {
  const rng = new Rng(`scene/${seed}`);
  const half = opts.halfM ?? 1.75,
    noise = opts.noiseM ?? 0.002,
    nObj = opts.objects ?? 12;
  type Obj = { kind: "box" | "sphere" | "cylinder"; c: [number, number, number]; dims: number[]; yaw: number; area: number };
  const objs: Obj[] = [];
  for (let i = 0; objs.length < nObj && i < 10000; i++) {
    const kind = (["box", "sphere", "cylinder"] as const)[objs.length % 3]!;
    let dims: number[], brad: number, height: number, area: number;
    if (kind === "box") {
      dims = [rng.uniform(0.12, 0.5), rng.uniform(0.12, 0.5), rng.uniform(0.12, 0.5)];
      brad = 0.5 * Math.hypot(dims[0]!, dims[1]!, dims[2]!);
      height = dims[2]!;
      area = 2 * (dims[0]! * dims[1]! + dims[1]! * dims[2]! + dims[0]! * dims[2]!);
    } else if (kind === "sphere") {
      dims = [rng.uniform(0.06, 0.25)];
      brad = dims[0]!;
      height = 2 * dims[0]!;
      area = 4 * Math.PI * dims[0]! ** 2;
    } else {
      dims = [rng.uniform(0.05, 0.2), rng.uniform(0.12, 0.6)];
      brad = Math.hypot(dims[0]!, dims[1]! / 2);
      height = dims[1]!;
      area = 2 * Math.PI * dims[0]! * dims[1]! + 2 * Math.PI * dims[0]! ** 2;
    }
    const c: [number, number, number] = [rng.uniform(-half + brad, half - brad), rng.uniform(-half + brad, half - brad), rng.uniform(0.1, 1.1) + height / 2];
    if (objs.some((o) => Math.hypot(o.c[0] - c[0], o.c[1] - c[1], o.c[2] - c[2]) < brad + 0.5 * Math.hypot(...o.dims) + 0.15)) continue;
    objs.push({ kind, c, dims, yaw: rng.uniform(0, Math.PI), area });
  }
  const floorArea = (2 * half) ** 2;
  const total = floorArea + objs.reduce((s, o) => s + o.area, 0);
  const dup = opts.duplicates ?? 0;
  const nOut = Math.round(n * (opts.outlierFraction ?? 0.001));
  const nSurf = n - nOut - dup;
  const pts = new Float32Array(3 * n);
  let k = 0;
  const put = (x: number, y: number, z: number) => {
    pts[3 * k] = x + rng.normal(0, noise);
    pts[3 * k + 1] = y + rng.normal(0, noise);
    pts[3 * k + 2] = z + rng.normal(0, noise);
    k++;
  };
  for (let i = 0; i < nSurf; i++) {
    let r = rng.next() * total;
    if (r < floorArea) {
      put(rng.uniform(-half, half), rng.uniform(-half, half), 0);
      continue;
    }
    r -= floorArea;
    let o = objs[objs.length - 1]!;
    for (const cand of objs) {
      if (r < cand.area) {
        o = cand;
        break;
      }
      r -= cand.area;
    }
    if (o.kind === "box") {
      const [a, b, cz] = o.dims as [number, number, number];
      const faces = [b * cz, b * cz, a * cz, a * cz, a * b, a * b];
      let f = 0,
        rr = rng.next() * (2 * (b * cz + a * cz + a * b));
      while (rr >= faces[f]!) rr -= faces[f++]!;
      const u = [rng.uniform(-0.5, 0.5) * a, rng.uniform(-0.5, 0.5) * b, rng.uniform(-0.5, 0.5) * cz];
      const ax = Math.floor(f / 2);
      u[ax] = (f % 2 === 0 ? -0.5 : 0.5) * [a, b, cz][ax]!;
      const cs = Math.cos(o.yaw),
        sn = Math.sin(o.yaw);
      put(o.c[0] + cs * u[0]! - sn * u[1]!, o.c[1] + sn * u[0]! + cs * u[1]!, o.c[2] + u[2]!);
    } else if (o.kind === "sphere") {
      let vx = rng.normal(),
        vy = rng.normal(),
        vz = rng.normal();
      const l = Math.hypot(vx, vy, vz) || 1;
      vx /= l;
      vy /= l;
      vz /= l;
      put(o.c[0] + vx * o.dims[0]!, o.c[1] + vy * o.dims[0]!, o.c[2] + vz * o.dims[0]!);
    } else {
      const [rad, h] = o.dims as [number, number];
      const side = 2 * Math.PI * rad * h,
        cap = Math.PI * rad * rad;
      const u = rng.next() * (side + 2 * cap);
      const th = rng.uniform(0, 2 * Math.PI);
      if (u < side) put(o.c[0] + rad * Math.cos(th), o.c[1] + rad * Math.sin(th), o.c[2] + rng.uniform(-h / 2, h / 2));
      else {
        const rr = rad * Math.sqrt(rng.next());
        put(o.c[0] + rr * Math.cos(th), o.c[1] + rr * Math.sin(th), o.c[2] + (u < side + cap ? h / 2 : -h / 2));
      }
    }
  }
  for (let i = 0; i < nOut; i++) {
    pts[3 * k] = rng.uniform(-half, half);
    pts[3 * k + 1] = rng.uniform(-half, half);
    pts[3 * k + 2] = rng.uniform(0, 1.5);
    k++;
  }
  for (let i = 0; i < dup; i++) {
    pts[3 * k] = 0.25;
    pts[3 * k + 1] = -0.5;
    pts[3 * k + 2] = 0.0;
    k++;
  }
  return shufflePoints(pts, rng.fork("shuffle"));
}

/** Fisher-Yates shuffle of the points (not the coordinates) into a new array. */
function shufflePoints(xyz: Float32Array, rng: Rng): Float32Array {
  const n = xyz.length / 3;
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  const out = new Float32Array(xyz.length);
  for (let i = 0; i < n; i++) {
    out[3 * i] = xyz[3 * perm[i]!]!;
    out[3 * i + 1] = xyz[3 * perm[i]! + 1]!;
    out[3 * i + 2] = xyz[3 * perm[i]! + 2]!;
  }
  return out;
}

/** Fails loudly (CI installs python3-open3d) when Debian's python3 cannot import open3d and numpy. */
export function requireOpen3d(): void {
  const script = join(peersDir, "o3d_peer.py");
  if (!existsSync(script)) throw new Error(`Open3D peer not found at ${script} (the repository's bench/peers)`);
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} not found: install Debian's python3 with python3-open3d and python3-numpy (see bench/peers/README.md)`);
  try {
    execFileSync(PYTHON, ["-c", "import open3d, numpy"], { stdio: "pipe" });
  } catch (e) {
    throw new Error(
      `${PYTHON} cannot import open3d/numpy: apt-get install -y python3-open3d python3-numpy (see bench/peers/README.md)\n${String((e as { stderr?: Buffer }).stderr ?? e)}`,
    );
  }
}

export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), "esi3d-prim-"));
  file(name: string): string {
    return join(this.path, name);
  }
  dispose(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export function writeF32(path: string, xyz: Float32Array): void {
  writeFileSync(path, Buffer.from(xyz.buffer, xyz.byteOffset, xyz.byteLength));
}

function readBytes(path: string): Uint8Array {
  const b = readFileSync(path);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
}

export function readF32(path: string): Float32Array {
  const b = readBytes(path);
  return new Float32Array(b.buffer, 0, b.byteLength / 4);
}

export function readI32(path: string): Int32Array {
  const b = readBytes(path);
  return new Int32Array(b.buffer, 0, b.byteLength / 4);
}

/** Runs o3d_peer.py; returns its JSON summary. */
export function runO3dPeer(args: string[]): Record<string, unknown> {
  const out = execFileSync(PYTHON, [join(peersDir, "o3d_peer.py"), "--runs", "1", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return JSON.parse(out.trim().split("\n").pop()!) as Record<string, unknown>;
}

/** Points as x,y,z tuples sorted lexicographically (for order-free comparison of clouds). */
export function sortedTuples(xyz: Float32Array): Float32Array {
  const n = xyz.length / 3;
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => xyz[3 * a]! - xyz[3 * b]! || xyz[3 * a + 1]! - xyz[3 * b + 1]! || xyz[3 * a + 2]! - xyz[3 * b + 2]!);
  const out = new Float32Array(xyz.length);
  idx.forEach((i, j) => {
    out[3 * j] = xyz[3 * i]!;
    out[3 * j + 1] = xyz[3 * i + 1]!;
    out[3 * j + 2] = xyz[3 * i + 2]!;
  });
  return out;
}

/** Canonical relabelling: clusters renumbered by first appearance, noise stays -1. */
export function canonicalLabels(labels: Int32Array): Int32Array {
  const map = new Map<number, number>();
  const out = new Int32Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l < 0) {
      out[i] = -1;
      continue;
    }
    let m = map.get(l);
    if (m === undefined) {
      m = map.size;
      map.set(l, m);
    }
    out[i] = m;
  }
  return out;
}

export interface RoomOptions {
  /** Rotation of the whole room about z (rad) and its translation. */
  yaw?: number;
  offset?: [number, number, number];
  /** Floor tilt about the x axis (deg), applied to every point. */
  tiltDeg?: number;
  noiseM?: number;
  /** Points per square metre of surface. */
  density?: number;
}

/**
 * A synthetic room: floor z=0 over 5 x 4 m, four walls 2.5 m tall, three boxes on the floor, a table
 * (top + four legs) with a box on it. Returns the shuffled cloud and the true class of every point
 * (0 object, 1 floor, 2 wall).
 */
export function syntheticRoom(seed: string | number, opts: RoomOptions = {}): { xyz: Float32Array; truth: Uint8Array } {
  const rng = new Rng(`room/${seed}`);
  const density = opts.density ?? 1500,
    noise = opts.noiseM ?? 0.002;
  const pts: number[] = [];
  const cls: number[] = [];
  const hx = 2.5,
    hy = 2,
    H = 2.5;
  type Box = { c: [number, number, number]; s: [number, number, number]; yaw: number };
  const objects: Box[] = [
    { c: [-1.4, -0.9, 0.2], s: [0.5, 0.4, 0.4], yaw: 0.4 },
    { c: [1.5, 1.0, 0.3], s: [0.6, 0.35, 0.6], yaw: 1.2 },
    { c: [1.6, -1.2, 0.15], s: [0.3, 0.3, 0.3], yaw: 0.1 },
    // table: top and legs
    { c: [-0.3, 0.6, 0.74], s: [1.2, 0.8, 0.04], yaw: 0.25 },
    ...[
      [-0.55, -0.35],
      [0.55, -0.35],
      [0.55, 0.35],
      [-0.55, 0.35],
    ].map(([u, v]) => ({
      c: [-0.3 + Math.cos(0.25) * u! - Math.sin(0.25) * v!, 0.6 + Math.sin(0.25) * u! + Math.cos(0.25) * v!, 0.36] as [number, number, number],
      s: [0.05, 0.05, 0.72] as [number, number, number],
      yaw: 0.25,
    })),
    { c: [-0.2, 0.55, 0.86], s: [0.2, 0.15, 0.2], yaw: 0.9 },
  ];
  const onFloorFootprint = (x: number, y: number) =>
    objects.some((o) => {
      if (o.c[2] - o.s[2] / 2 > 0.01) return false;
      const dx = x - o.c[0],
        dy = y - o.c[1],
        c = Math.cos(-o.yaw),
        s = Math.sin(-o.yaw);
      return Math.abs(c * dx - s * dy) < o.s[0] / 2 && Math.abs(s * dx + c * dy) < o.s[1] / 2;
    });
  const add = (x: number, y: number, z: number, k: number) => {
    pts.push(x + rng.normal(0, noise), y + rng.normal(0, noise), z + rng.normal(0, noise));
    cls.push(k);
  };
  // floor (hidden under objects standing on it)
  for (let i = 0, m = Math.round(density * 4 * hx * hy); i < m; i++) {
    const x = rng.uniform(-hx, hx),
      y = rng.uniform(-hy, hy);
    if (!onFloorFootprint(x, y)) add(x, y, 0, 1);
  }
  // walls
  for (const [len, fixed, alongX] of [
    [2 * hx, -hy, true],
    [2 * hx, hy, true],
    [2 * hy, -hx, false],
    [2 * hy, hx, false],
  ] as const) {
    for (let i = 0, m = Math.round(density * len * H); i < m; i++) {
      const t = rng.uniform(-len / 2, len / 2),
        z = rng.uniform(0, H);
      if (alongX) add(t, fixed, z, 2);
      else add(fixed, t, z, 2);
    }
  }
  // objects: box surfaces (bottom faces resting on something are hidden)
  for (const o of objects) {
    const [a, b, h] = o.s;
    const faces = [b * h, b * h, a * h, a * h, a * b, a * b];
    const total = faces.reduce((s, v) => s + v, 0);
    const cs = Math.cos(o.yaw),
      sn = Math.sin(o.yaw);
    for (let i = 0, m = Math.round(density * total); i < m; i++) {
      let r = rng.next() * total,
        f = 0;
      while (r >= faces[f]!) r -= faces[f++]!;
      const u = [rng.uniform(-a / 2, a / 2), rng.uniform(-b / 2, b / 2), rng.uniform(-h / 2, h / 2)];
      const ax = Math.floor(f / 2);
      u[ax] = (f % 2 ? 0.5 : -0.5) * o.s[ax]!;
      if (f === 4 && o.c[2] - h / 2 < 0.01) continue; // bottom face on the floor
      add(o.c[0] + cs * u[0]! - sn * u[1]!, o.c[1] + sn * u[0]! + cs * u[1]!, o.c[2] + u[2]!, 0);
    }
  }
  // rigid motion: tilt about x, yaw about z, translation
  const n = cls.length;
  const tilt = ((opts.tiltDeg ?? 0) * Math.PI) / 180,
    yaw = opts.yaw ?? 0,
    off = opts.offset ?? [0, 0, 0];
  const ct = Math.cos(tilt),
    st = Math.sin(tilt),
    cy = Math.cos(yaw),
    sy = Math.sin(yaw);
  const xyz = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    const x = pts[3 * i]!,
      y0 = pts[3 * i + 1]!,
      z0 = pts[3 * i + 2]!;
    const y = ct * y0 - st * z0,
      z = st * y0 + ct * z0;
    xyz[3 * i] = cy * x - sy * y + off[0];
    xyz[3 * i + 1] = sy * x + cy * y + off[1];
    xyz[3 * i + 2] = z + off[2];
  }
  // shuffle points and labels together
  const perm = Array.from({ length: n }, (_, i) => i);
  const srng = rng.fork("shuffle");
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(srng.next() * (i + 1));
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const outXyz = new Float32Array(3 * n),
    truth = new Uint8Array(n);
  perm.forEach((src, dst) => {
    outXyz[3 * dst] = xyz[3 * src]!;
    outXyz[3 * dst + 1] = xyz[3 * src + 1]!;
    outXyz[3 * dst + 2] = xyz[3 * src + 2]!;
    truth[dst] = cls[src]!;
  });
  return { xyz: outXyz, truth };
}
