/**
 * A voxel occupancy grid (unknown / free / occupied) fused from depth views: the next-best-view planner's
 * map (TSDF/occupancy + frontier, as Explore-EQA, 3D-Mem and GraphEQA
 * use; NBVP's gain counts unknown voxels a view would see). Rays are cast from the camera centre through
 * a subsampled pixel grid: voxels before the measured depth become free, the voxel at it occupied; a pixel
 * without depth (the open ceiling) frees its ray up to the range limit.
 */
import { cameraCentre, type AgentPose, type Intrinsics } from "../core/math/camera.js";
import type { Mat34 } from "../core/math/vec.js";
import type { YawBox } from "../core/geometry.js";
import type { Task } from "../core/task/schema.js";

/** Voxel side (m): Explore-EQA, 3D-Mem and GraphEQA all map at 0.1 m. */
const OCCUPANCY_VOXEL_M = 0.1;
/** Rays are marched in steps of this fraction of a voxel (dense enough not to skip a voxel corner often). */
const MARCH_FRACTION = 0.5;
/** Range limit of a ray (m): 3D-Mem marks "explored" up to 1.7 m of depth; our rooms are larger, so 5 m. */
const MAX_RAY_RANGE_M = 5;
/** Integration samples every INTEGRATE_STRIDE_PX-th pixel in x and y. */
export const INTEGRATE_STRIDE_PX = 4;

/**
 * Height of the mapped volume above the floor (m): the camera's top height (bridge/sim/agent.ts
 * MAX_CAMERA_HEIGHT_M 2.0); the open space under a ceiling holds nothing a question asks about.
 */
const MAP_HEIGHT_M = 2;
/** Rays per candidate view in the gain (x, y): a coarse grid over the image. */
const GAIN_RAYS: [number, number] = [12, 9];

export const UNKNOWN = 0;
const FREE = 1;
const OCCUPIED = 2;

export interface GridBounds {
  min: [number, number, number];
  max: [number, number, number];
}

export class OccupancyGrid {
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
  readonly state: Uint8Array;
  private stamp: Uint32Array;
  private stampId = 0;

  constructor(
    readonly bounds: GridBounds,
    readonly voxelM = OCCUPANCY_VOXEL_M,
  ) {
    this.nx = Math.max(1, Math.ceil((bounds.max[0] - bounds.min[0]) / voxelM));
    this.ny = Math.max(1, Math.ceil((bounds.max[1] - bounds.min[1]) / voxelM));
    this.nz = Math.max(1, Math.ceil((bounds.max[2] - bounds.min[2]) / voxelM));
    this.state = new Uint8Array(this.nx * this.ny * this.nz);
    this.stamp = new Uint32Array(this.state.length);
  }

  /** The voxel index of a world point, or -1 outside the grid. */
  index(x: number, y: number, z: number): number {
    const i = Math.floor((x - this.bounds.min[0]) / this.voxelM),
      j = Math.floor((y - this.bounds.min[1]) / this.voxelM),
      k = Math.floor((z - this.bounds.min[2]) / this.voxelM);
    if (i < 0 || j < 0 || k < 0 || i >= this.nx || j >= this.ny || k >= this.nz) return -1;
    return (k * this.ny + j) * this.nx + i;
  }

  /** The centre of voxel `v`. */
  centre(v: number): [number, number, number] {
    const i = v % this.nx,
      j = Math.floor(v / this.nx) % this.ny,
      k = Math.floor(v / (this.nx * this.ny));
    return [this.bounds.min[0] + (i + 0.5) * this.voxelM, this.bounds.min[1] + (j + 0.5) * this.voxelM, this.bounds.min[2] + (k + 0.5) * this.voxelM];
  }

  /** Fuses one depth view (z-depth, camera-from-world E). */
  integrate(depth: Float32Array, width: number, height: number, K: Intrinsics, E: Mat34, stride = INTEGRATE_STRIDE_PX): void {
    const C = cameraCentre(E);
    const step = this.voxelM * MARCH_FRACTION;
    for (let j = stride >> 1; j < height; j += stride)
      for (let i = stride >> 1; i < width; i += stride) {
        const d = depth[j * width + i]!;
        const hit = d > 0 && Number.isFinite(d);
        // ray direction in the world: R^T (x/z, y/z, 1), length per unit of z-depth
        const xc = (i - K.cx) / K.fx,
          yc = (j - K.cy) / K.fy;
        const dx = E[0][0] * xc + E[1][0] * yc + E[2][0],
          dy = E[0][1] * xc + E[1][1] * yc + E[2][1],
          dz = E[0][2] * xc + E[1][2] * yc + E[2][2];
        const len = Math.hypot(dx, dy, dz);
        const range = hit ? d * len : MAX_RAY_RANGE_M;
        const ux = dx / len,
          uy = dy / len,
          uz = dz / len;
        const n = Math.floor(Math.min(range, MAX_RAY_RANGE_M) / step);
        for (let s = 0; s < n; s++) {
          const t = s * step;
          const v = this.index(C[0] + ux * t, C[1] + uy * t, C[2] + uz * t);
          if (v >= 0 && this.state[v] !== OCCUPIED) this.state[v] = FREE;
        }
        if (hit && range <= MAX_RAY_RANGE_M) {
          const v = this.index(C[0] + ux * range, C[1] + uy * range, C[2] + uz * range);
          if (v >= 0) this.state[v] = OCCUPIED;
        }
      }
  }

  /**
   * The weighted unknown voxels a camera at `pose` would see: rays through a coarse pixel grid, each stopped
   * by the first occupied voxel (occlusion-aware, NBVP's gain), every voxel counted once. `weight` per voxel
   * (null: 1 everywhere).
   */
  gain(pose: AgentPose, K: Intrinsics, width: number, height: number, weight: Float32Array | null, rays: [number, number] = GAIN_RAYS): number {
    const id = ++this.stampId;
    if (id === 0xffffffff) this.stamp.fill(0), (this.stampId = 1);
    const cy = Math.cos(pose.yaw),
      sy = Math.sin(pose.yaw),
      cp = Math.cos(pose.pitch),
      sp = Math.sin(pose.pitch);
    const f: [number, number, number] = [cp * cy, cp * sy, sp],
      r: [number, number, number] = [sy, -cy, 0],
      dn: [number, number, number] = [sp * cy, sp * sy, -cp];
    const step = this.voxelM * MARCH_FRACTION;
    const n = Math.floor(MAX_RAY_RANGE_M / step);
    let g = 0;
    const [P0, P1, P2] = pose.position;
    for (let b = 0; b < rays[1]; b++)
      for (let a = 0; a < rays[0]; a++) {
        const xc = (((a + 0.5) / rays[0]) * width - K.cx) / K.fx,
          yc = (((b + 0.5) / rays[1]) * height - K.cy) / K.fy;
        let dx = f[0] + xc * r[0] + yc * dn[0],
          dy = f[1] + xc * r[1] + yc * dn[1],
          dz = f[2] + xc * r[2] + yc * dn[2];
        const len = Math.hypot(dx, dy, dz);
        dx /= len;
        dy /= len;
        dz /= len;
        for (let s = 1; s < n; s++) {
          const t = s * step;
          const v = this.index(P0 + dx * t, P1 + dy * t, P2 + dz * t);
          if (v < 0) break;
          const st = this.state[v]!;
          if (st === OCCUPIED) break;
          if (st === UNKNOWN && this.stamp[v] !== id) {
            this.stamp[v] = id;
            g += weight ? weight[v]! : 1;
          }
        }
      }
    return g;
  }

  isOccupied(x: number, y: number, z: number): boolean {
    const v = this.index(x, y, z);
    return v >= 0 && this.state[v] === OCCUPIED;
  }

  /** Voxel indices inside the axis-aligned hull of a yaw box grown by `growM`. */
  voxelsOfBox(b: YawBox, growM: number): number[] {
    const c = Math.abs(Math.cos(b.yaw)),
      s = Math.abs(Math.sin(b.yaw));
    const hx = (c * b.extent[0] + s * b.extent[1]) / 2 + growM,
      hy = (s * b.extent[0] + c * b.extent[1]) / 2 + growM,
      hz = b.extent[2] / 2 + growM;
    const out: number[] = [];
    const v = this.voxelM;
    for (let z = b.centre[2] - hz; z <= b.centre[2] + hz + 1e-9; z += v)
      for (let y = b.centre[1] - hy; y <= b.centre[1] + hy + 1e-9; y += v)
        for (let x = b.centre[0] - hx; x <= b.centre[0] + hx + 1e-9; x += v) {
          const k = this.index(x, y, z);
          if (k >= 0) out.push(k);
        }
    return [...new Set(out)];
  }

  /** Share of the given voxels that are no longer unknown (1 for an empty set). */
  knownFraction(voxels: readonly number[]): number {
    if (voxels.length === 0) return 1;
    let k = 0;
    for (const v of voxels) if (this.state[v] !== UNKNOWN) k++;
    return k / voxels.length;
  }
}

/** An empty grid over a task's room, from the floor up to MAP_HEIGHT_M (or the ceiling, if lower). */
export function roomGrid(room: Pick<Task["room"], "size" | "bounds" | "floor_z" | "height">): OccupancyGrid {
  const b = room.bounds;
  const cx = b ? (b.min[0] + b.max[0]) / 2 : 0,
    cy = b ? (b.min[1] + b.max[1]) / 2 : 0,
    z0 = room.floor_z ?? 0;
  const [sx, sy] = room.size;
  return new OccupancyGrid({ min: [cx - sx / 2, cy - sy / 2, z0], max: [cx + sx / 2, cy + sy / 2, z0 + Math.min(room.height, MAP_HEIGHT_M)] });
}
