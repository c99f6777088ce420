/**
 * What the views show of a floor plan, as evidence for the region layer (scenegraph/regions.ts): floor and wall
 * points on a 2D grid, the wall lines they form, and the free space the depth sweeps (each depth ray runs from
 * its camera through empty space to the point it measured, so a ray that ends beyond a wall line went through
 * an opening in it). Along each wall line, every grid position is one of three things: closed (the views show
 * wall there), open (the views see through it: rays cross it; for a cloud without cameras, floor on both sides
 * and no wall on it), or unseen. Nothing unseen is taken for wall or for opening: the region layer keeps the
 * difference.
 *
 * Our apartments have axis-aligned walls (HOV-SG's wall skeleton on a 2D map becomes a line partition): grid
 * columns and rows holding a long run of wall cells that run along them are wall lines; a line's band is as wide
 * as its wall points spread, so a noisy cloud's smeared wall (tens of centimetres) is still one line with its
 * points on it, and lines whose bands overlap are one wall.
 */
import { cameraCentresOf, type PointCloud } from "../reconstruct/pointcloud.js";
import { INTEGRATE_STRIDE_PX } from "./occupancy.js";
import { STRUCTURE_FLOOR, STRUCTURE_OBJECT, STRUCTURE_WALL } from "./primitives/structure.js";

/** Grid cell of the 2D map (m): the occupancy grid's voxel (scenegraph/occupancy.ts, 0.1 m as Explore-EQA and 3D-Mem map). */
export const REGION_CELL_M = 0.1;
/** A wall line holds at least this many wall cells along it (m of seen wall). Ours. */
const MIN_WALL_LINE_M = 0.8;
/** Lines closer than this (m) are one wall seen twice (both faces, noise): below a narrow corridor's width (ours). */
const LINE_MERGE_M = 0.3;
/**
 * A wall line's band: wall points this far (m) from the line count as on it, at least (a wall's two faces at
 * 0.1 m cells) and at most (a noisy cloud's wall spread: depth errors of a few percent at 3-5 m, the noisy
 * source's vggt-like preset; wider would swallow a doorway's jambs). Between the two, the spread of the wall
 * columns the line was found from. Ours.
 */
export const MIN_LINE_BAND_M = 0.2;
const MAX_LINE_BAND_M = 0.6;
/** A wall point is at least this high above the floor (m): below knee height it may be floor seen at the wall's foot. */
const WALL_MIN_HEIGHT_M = 0.3;
/** Depth rays are cast from every RAY_STRIDE_PX-th pixel in x and y: the occupancy grid's integration stride. */
const RAY_STRIDE_PX = INTEGRATE_STRIDE_PX;
/**
 * A line position is open when at least this many rays cross it (ours: one ray may be a flying pixel or a
 * depth error beyond the band)...
 */
const OPEN_MIN_RAYS = 2;
/** ...and at least this share of the rays that reach it cross it rather than end on it (ours). */
const OPEN_RAY_SHARE = 0.5;
/** A run of wall cells bridges gaps of up to this many cells (ours: a noisy wall's holes, well below a doorway). */
const RUN_GAP_CELLS = 2;
/** Floor points at least this many per cell count as seen free space. */
const FLOOR_MIN_POINTS = 1;
/** At most this many grid cells: a cloud spread wider (metres of outliers) has no plan to read. */
const MAX_GRID_CELLS = 4_000_000;

/**
 * Appends the floor points and the wall points at least `wallMinZ` high (codes 1 and 2) from point k on; returns
 * the next k. Loop functions of their own over typed arrays (docs/design.md: hot loops and the JIT).
 */
function appendStructure(
  xyz: Float32Array,
  codes: Uint8Array,
  n: number,
  wallMinZ: number,
  xs: Float32Array,
  ys: Float32Array,
  kinds: Uint8Array,
  k: number,
): number {
  for (let i = 0; i < n; i++) {
    const c = codes[i]!;
    if (c !== STRUCTURE_FLOOR && c !== STRUCTURE_WALL) continue;
    if (c === STRUCTURE_WALL && xyz[i * 3 + 2]! < wallMinZ) continue;
    xs[k] = xyz[i * 3]!;
    ys[k] = xyz[i * 3 + 1]!;
    kinds[k++] = c;
  }
  return k;
}

/** Points whose pixel lies on the grid of every `stride`-th row and column. */
function countOnRayGrid(pixel: Uint32Array, n: number, W: number, stride: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const px = pixel[i]!,
      col = px % W;
    if (col % stride === 0 && ((px - col) / W) % stride === 0) m++;
  }
  return m;
}

/** Appends the rays (camera x, y; point x, y) of the points on that grid whose view has a camera; returns the next ray index. */
function appendRays(
  xyz: Float32Array,
  pixel: Uint32Array,
  view: Uint16Array,
  n: number,
  W: number,
  stride: number,
  cam: Float64Array,
  views: number,
  rays: Float32Array,
  r: number,
): number {
  for (let i = 0; i < n; i++) {
    const px = pixel[i]!,
      col = px % W;
    if (col % stride !== 0 || ((px - col) / W) % stride !== 0) continue;
    const v = view[i]!;
    // NaN (not equal to itself): no camera for this view
    if (v >= views || cam[2 * v] !== cam[2 * v]) continue;
    rays[4 * r] = cam[2 * v]!;
    rays[4 * r + 1] = cam[2 * v + 1]!;
    rays[4 * r + 2] = xyz[i * 3]!;
    rays[4 * r + 3] = xyz[i * 3 + 1]!;
    r++;
  }
  return r;
}

/**
 * The floor and wall points a region layer reads, and the depth rays of the views (from the camera centre to
 * every RAY_STRIDE_PX-th pixel's point, whatever it shows), in the order seen. The batch graph takes them from
 * its whole cloud; the active memory appends each new view's.
 */
export class StructurePoints {
  private xs = new Float32Array(1024);
  private ys = new Float32Array(1024);
  private kinds = new Uint8Array(1024);
  count = 0;
  /** Rays: camera (x, y) and end (x, y) per ray. */
  private rays = new Float32Array(4096);
  rayCount = 0;

  /**
   * Appends a cloud's floor and wall points (kinds from `structure`, segmentStructure's per-point codes 0 object,
   * 1 floor, 2 wall, or from the cloud's labels) and its rays (none for a cloud that does not record its cameras).
   */
  add(cloud: PointCloud, floorZ: number, structure?: Uint8Array): void {
    const n = cloud.count;
    let codes = structure;
    if (!codes) {
      const kindOfId = new Uint8Array(65536);
      for (const [id, c] of cloud.categories) kindOfId[id] = c === "floor" ? STRUCTURE_FLOOR : c === "wall" ? STRUCTURE_WALL : STRUCTURE_OBJECT;
      codes = new Uint8Array(n);
      for (let i = 0; i < n; i++) codes[i] = kindOfId[cloud.instance[i]!]!;
    }
    this.reserve(n);
    this.count = appendStructure(cloud.xyz, codes, n, floorZ + WALL_MIN_HEIGHT_M, this.xs, this.ys, this.kinds, this.count);
    // rays from the cameras the cloud records, by view index (NaN: a view without one)
    const centres = cameraCentresOf(cloud);
    if (!centres.size) return;
    const views = Math.max(...centres.keys()) + 1;
    const cam = new Float64Array(2 * views).fill(NaN);
    for (const [v, c] of centres) (cam[2 * v] = c[0]), (cam[2 * v + 1] = c[1]);
    const onGrid = countOnRayGrid(cloud.pixel, n, cloud.imageWidth, RAY_STRIDE_PX);
    if (4 * (this.rayCount + onGrid) > this.rays.length) {
      const r = new Float32Array(Math.max(2 * this.rays.length, 4 * (this.rayCount + onGrid)));
      r.set(this.rays.subarray(0, 4 * this.rayCount));
      this.rays = r;
    }
    this.rayCount = appendRays(cloud.xyz, cloud.pixel, cloud.view, n, cloud.imageWidth, RAY_STRIDE_PX, cam, views, this.rays, this.rayCount);
  }

  /** Room for `more` structure points. */
  private reserve(more: number): void {
    if (this.count + more <= this.xs.length) return;
    const size = Math.max(2 * this.xs.length, this.count + more);
    const xs = new Float32Array(size),
      ys = new Float32Array(size),
      kinds = new Uint8Array(size);
    xs.set(this.xs.subarray(0, this.count));
    ys.set(this.ys.subarray(0, this.count));
    kinds.set(this.kinds.subarray(0, this.count));
    [this.xs, this.ys, this.kinds] = [xs, ys, kinds];
  }

  /** The 2D map: wall and floor point counts per REGION_CELL_M cell over the points' and cameras' extent, or null without points. */
  grid(): PlanGrid | null {
    let xmin = Infinity,
      ymin = Infinity,
      xmax = -Infinity,
      ymax = -Infinity;
    for (let i = 0; i < this.count; i++) {
      const x = this.xs[i]!,
        y = this.ys[i]!;
      xmin = Math.min(xmin, x);
      xmax = Math.max(xmax, x);
      ymin = Math.min(ymin, y);
      ymax = Math.max(ymax, y);
    }
    if (!Number.isFinite(xmin)) return null;
    // the cameras stand in the plan too: the floor a view shows starts a metre or more ahead of its camera
    for (let i = 0; i < 4 * this.rayCount; i += 4) {
      const x = this.rays[i]!,
        y = this.rays[i + 1]!;
      xmin = Math.min(xmin, x);
      xmax = Math.max(xmax, x);
      ymin = Math.min(ymin, y);
      ymax = Math.max(ymax, y);
    }
    const nx = Math.ceil((xmax - xmin) / REGION_CELL_M) + 1,
      ny = Math.ceil((ymax - ymin) / REGION_CELL_M) + 1;
    if (nx * ny > MAX_GRID_CELLS) return null;
    const wall = new Uint16Array(nx * ny),
      floor = new Uint16Array(nx * ny);
    for (let i = 0; i < this.count; i++) {
      const k = Math.floor((this.ys[i]! - ymin) / REGION_CELL_M) * nx + Math.floor((this.xs[i]! - xmin) / REGION_CELL_M);
      const arr = this.kinds[i] === STRUCTURE_FLOOR ? floor : wall;
      if (arr[k]! < 65535) arr[k]!++;
    }
    return new PlanGrid(xmin, ymin, nx, ny, wall, floor, this.rays.subarray(0, 4 * this.rayCount));
  }
}

/** A wall line: a grid column (axis 0, x = const) or row (axis 1, y = const), at a fractional cell index, with its band. */
export interface WallLine {
  axis: 0 | 1;
  at: number;
  /** Half-width of the band (cells) whose wall points lie on the line. */
  band: number;
  /** false for the edge of the seen extent where no wall was seen: nothing is known beyond it. */
  seen: boolean;
}

/** What the views show at one position of a wall line. */
export const CLOSED = 2;
export const OPEN = 1;
const UNSEEN = 0;

export class PlanGrid {
  constructor(
    readonly x0: number,
    readonly y0: number,
    readonly nx: number,
    readonly ny: number,
    /** wall points per cell */
    readonly wall: Uint16Array,
    /** floor points per cell */
    readonly floor: Uint16Array,
    /** rays: camera (x, y), end (x, y) */
    private readonly rays: Float32Array,
  ) {}

  get hasRays(): boolean {
    return this.rays.length > 0;
  }

  /** Cells along an axis (columns for 0, rows for 1). */
  size(axis: 0 | 1): number {
    return axis === 0 ? this.nx : this.ny;
  }

  private cell(axis: 0 | 1, a: number, b: number): number {
    return axis === 0 ? b * this.nx + a : a * this.nx + b;
  }

  floorAt(cx: number, cy: number): boolean {
    return cx >= 0 && cy >= 0 && cx < this.nx && cy < this.ny && this.floor[cy * this.nx + cx]! >= FLOOR_MIN_POINTS;
  }

  /** World coordinate of a (fractional) cell index's lower edge along an axis. */
  world(axis: 0 | 1, c: number): number {
    return (axis === 0 ? this.x0 : this.y0) + c * REGION_CELL_M;
  }

  /**
   * Per wall cell, the length (cells) of the run of wall cells through it along `along` (0: a row, 1: a column),
   * gaps of up to RUN_GAP_CELLS bridged (a noisy wall has holes).
   */
  private runs(along: 0 | 1): Uint16Array {
    const out = new Uint16Array(this.nx * this.ny);
    const across: 0 | 1 = along === 0 ? 1 : 0;
    const n = this.size(along);
    for (let a = 0; a < this.size(across); a++) {
      for (let b = 0; b < n; ) {
        if (this.wall[this.cell(across, a, b)] === 0) {
          b++;
          continue;
        }
        let end = b,
          gap = 0;
        for (let e = b + 1; e < n && gap <= RUN_GAP_CELLS; e++) {
          if (this.wall[this.cell(across, a, e)]! > 0) (end = e), (gap = 0);
          else gap++;
        }
        for (let e = b; e <= end; e++) out[this.cell(across, a, e)] = end - b + 1;
        b = end + 1;
      }
    }
    return out;
  }

  /**
   * Wall lines along one axis: columns (axis 0) or rows (axis 1) holding long runs of wall cells that run along
   * the line (a cell's run along the line at least its run across: a noisy wall smeared a metre thick would
   * otherwise put a "line" in every column it crosses), merged, each with its band.
   */
  wallLines(axis: 0 | 1): WallLine[] {
    const n = this.size(axis),
      m = this.size(axis === 0 ? 1 : 0);
    const alongRun = this.runs(axis === 0 ? 1 : 0),
      acrossRun = this.runs(axis);
    const counts: number[] = [];
    for (let a = 0; a < n; a++) {
      let c = 0;
      for (let b = 0; b < m; b++) {
        const k = this.cell(axis, a, b);
        if (this.wall[k]! > 0 && alongRun[k]! >= acrossRun[k]!) c++;
      }
      counts.push(c);
    }
    const min = MIN_WALL_LINE_M / REGION_CELL_M;
    const bandMin = Math.round(MIN_LINE_BAND_M / REGION_CELL_M),
      bandMax = Math.round(MAX_LINE_BAND_M / REGION_CELL_M);
    // a line from a run of wall columns: at their count-weighted mean, its band as far as they reach, within bounds
    const lineOf = (run: readonly number[]): WallLine => {
      let w = 0,
        s = 0;
      for (const a of run) (w += counts[a]!), (s += a * counts[a]!);
      const at = s / w;
      let spread = 0;
      for (let a = run[0]! - bandMax; a <= run.at(-1)! + bandMax; a++)
        if (a >= 0 && a < n && counts[a]! >= min / 2) spread = Math.max(spread, Math.abs(a - at));
      return { axis, at, band: Math.min(bandMax, Math.max(bandMin, Math.ceil(spread))), seen: true };
    };
    const runs: number[][] = [];
    for (let a = 0; a < n; a++) {
      if (counts[a]! < min) continue;
      const last = runs.at(-1);
      if (last && a - last.at(-1)! <= LINE_MERGE_M / REGION_CELL_M) last.push(a);
      else runs.push([a]);
    }
    // lines whose bands overlap are one wall seen in two places (a noisy cloud puts one wall's views apart)
    const lines = runs.map(lineOf);
    for (let k = 0; k + 1 < lines.length; ) {
      if (lines[k + 1]!.at - lines[k]!.at > lines[k]!.band + lines[k + 1]!.band) {
        k++;
        continue;
      }
      runs.splice(k, 2, [...runs[k]!, ...runs[k + 1]!]);
      lines.splice(k, 2, lineOf(runs[k]!));
      k = Math.max(0, k - 1);
    }
    return lines;
  }

  /**
   * Per position along `line` (cells 0..size-1 of the other axis): CLOSED, OPEN or UNSEEN. Open where rays cross
   * the band from one side to the other (at least OPEN_MIN_RAYS, and OPEN_RAY_SHARE of those that reach it), or,
   * for a cloud without rays, where floor runs under the band on both sides and no wall stands on it; closed where
   * wall points lie on the band and it is not open.
   */
  lineStates(line: WallLine): Uint8Array {
    const axis = line.axis,
      along: 0 | 1 = axis === 0 ? 1 : 0;
    const n = this.size(along);
    const crossing = new Uint32Array(n),
      ending = new Uint32Array(n);
    this.castRays(line, crossing, ending);
    const out = new Uint8Array(n);
    const a0 = Math.round(line.at);
    for (let b = 0; b < n; b++) {
      let wall = false,
        floorBefore = false,
        floorAfter = false;
      for (let d = -line.band; d <= line.band; d++) {
        const a = a0 + d;
        if (a < 0 || a >= this.size(axis)) continue;
        const k = this.cell(axis, a, b);
        if (this.wall[k]! > 0) wall = true;
        if (this.floor[k]! >= FLOOR_MIN_POINTS) d < 0 ? (floorBefore = true) : d > 0 ? (floorAfter = true) : ((floorBefore = true), (floorAfter = true));
      }
      // with rays, only a ray seen through is an opening (floor at the foot of a wall the view does not show is none)
      const open = this.hasRays
        ? crossing[b]! >= OPEN_MIN_RAYS && crossing[b]! >= OPEN_RAY_SHARE * (crossing[b]! + ending[b]!)
        : !wall && floorBefore && floorAfter;
      out[b] = open ? OPEN : wall ? CLOSED : UNSEEN;
    }
    return out;
  }

  /** Counts, per position along the line, the rays that cross its band and those that end inside it. */
  private castRays(line: WallLine, crossing: Uint32Array, ending: Uint32Array): void {
    const r = this.rays;
    const inv = 1 / REGION_CELL_M;
    const u = line.axis === 0 ? 0 : 1,
      v = 1 - u;
    const at = (line.at + 0.5) * REGION_CELL_M + (line.axis === 0 ? this.x0 : this.y0);
    const vo = line.axis === 0 ? this.y0 : this.x0;
    const band = (line.band + 0.5) * REGION_CELL_M;
    const n = crossing.length;
    for (let i = 0; i < r.length; i += 4) {
      const s0 = r[i + u]! - at,
        s1 = r[i + 2 + u]! - at;
      if (Math.abs(s1) <= band) {
        const b = Math.floor((r[i + 2 + v]! - vo) * inv);
        if (b >= 0 && b < n) ending[b]!++;
        continue;
      }
      // from one side of the line to beyond the band on the other
      if (!((s0 < 0 && s1 > band) || (s0 > 0 && s1 < -band))) continue;
      const t = s0 / (s0 - s1);
      const b = Math.floor((r[i + v]! + t * (r[i + 2 + v]! - r[i + v]!) - vo) * inv);
      if (b >= 0 && b < n) crossing[b]!++;
    }
  }
}
