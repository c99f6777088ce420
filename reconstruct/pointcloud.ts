/**
 * The one point-cloud type every source (gt, vggt, noisy) produces: structure of arrays, one entry per
 * point, so later stages can trace every node back to its pixels.
 */

type CloudSource = "gt" | "vggt" | "noisy";

export interface PointCloud {
  count: number;
  /** x, y, z per point (world frame, metres; for `vggt --align none`, VGGT's own frame). */
  xyz: Float32Array;
  /** r, g, b per point. */
  rgb: Uint8Array;
  /** Per-point confidence: 1 for ground truth, VGGT's depth/point confidence (>= 1) for vggt. */
  confidence: Float32Array;
  /** Index of the bundle view the point came from. */
  view: Uint16Array;
  /** Pixel index (row * width + column) in that view's image at the bundle's resolution. */
  pixel: Uint32Array;
  /** Mask label: the instance id at that pixel in the bundle's instance image (0 = none). */
  instance: Uint16Array;
  /** id -> category for the ids in `instance` (the bundle's instance table). */
  categories: Map<number, string>;
  /** Image size the `pixel` indices refer to. */
  imageWidth: number;
  imageHeight: number;
  source: CloudSource;
  /** Source-specific facts worth reporting (alignment scale and residual, noise parameters, ...). */
  meta: Record<string, unknown>;
}

/** The per-point arrays of a cloud. */
export type CloudColumns = Pick<PointCloud, "xyz" | "rgb" | "confidence" | "view" | "pixel" | "instance">;

/** Zeroed per-point arrays for `count` points. */
export function allocateColumns(count: number): CloudColumns {
  return {
    xyz: new Float32Array(count * 3),
    rgb: new Uint8Array(count * 3),
    confidence: new Float32Array(count),
    view: new Uint16Array(count),
    pixel: new Uint32Array(count),
    instance: new Uint16Array(count),
  };
}

/** Views of the first `count` points of each array (no copy). */
export function columnsPrefix(c: CloudColumns, count: number): CloudColumns {
  return {
    xyz: c.xyz.subarray(0, count * 3),
    rgb: c.rgb.subarray(0, count * 3),
    confidence: c.confidence.subarray(0, count),
    view: c.view.subarray(0, count),
    pixel: c.pixel.subarray(0, count),
    instance: c.instance.subarray(0, count),
  };
}

/** Copies every point of `from` into `into`, starting at point `at`. */
export function setColumns(into: CloudColumns, from: CloudColumns, at: number): void {
  into.xyz.set(from.xyz, 3 * at);
  into.rgb.set(from.rgb, 3 * at);
  into.confidence.set(from.confidence, at);
  into.view.set(from.view, at);
  into.pixel.set(from.pixel, at);
  into.instance.set(from.instance, at);
}

/**
 * Reusable storage for clouds built one after another (the runner builds several per task). Fresh memory
 * is expensive to touch on these machines (~2.5 ms per MB of first-touch page faults, measured here), so
 * reusing it makes back-projection several times faster. A cloud taken from an arena is valid until the
 * next cloud is taken from it.
 */
export class CloudArena {
  private cap = 0;
  private columns = allocateColumns(0);

  take(count: number): CloudColumns {
    if (count > this.cap) {
      this.cap = Math.ceil(count * 1.25);
      this.columns = allocateColumns(this.cap);
    }
    return columnsPrefix(this.columns, count);
  }
}

/**
 * A cloud of `count` points that takes only its metadata from `base` (never its arrays). Zeroed when
 * freshly allocated; from an `arena`, the arrays hold old values and the producer must write every field.
 */
export function allocateCloud(
  count: number,
  base: Pick<PointCloud, "categories" | "imageWidth" | "imageHeight" | "source" | "meta">,
  arena?: CloudArena,
): PointCloud {
  const arrays = arena ? arena.take(count) : allocateColumns(count);
  return {
    count,
    ...arrays,
    categories: base.categories,
    imageWidth: base.imageWidth,
    imageHeight: base.imageHeight,
    source: base.source,
    meta: base.meta,
  };
}

/**
 * The first `count` points of a cloud (views of its arrays, no copy), for a producer that allocated for an
 * upper bound of its points and wrote a prefix.
 */
export function truncateCloud(c: PointCloud, count: number): PointCloud {
  if (count > c.count) throw new RangeError(`truncateCloud: ${count} points asked of a cloud of ${c.count}`);
  return { ...c, ...columnsPrefix(c, count), count };
}

/** Copies point `i` of `from` to point `k` of `into`, all but its position (callers move or transform xyz). */
export function copyPointAttributes(from: CloudColumns, i: number, into: CloudColumns, k: number): void {
  into.rgb[3 * k] = from.rgb[3 * i]!;
  into.rgb[3 * k + 1] = from.rgb[3 * i + 1]!;
  into.rgb[3 * k + 2] = from.rgb[3 * i + 2]!;
  into.confidence[k] = from.confidence[i]!;
  into.view[k] = from.view[i]!;
  into.pixel[k] = from.pixel[i]!;
  into.instance[k] = from.instance[i]!;
}

/** A new cloud holding the points where keep[i] is non-zero, in the same order. */
export function filterCloud(c: PointCloud, keep: ArrayLike<number | boolean>): PointCloud {
  let n = 0;
  for (let i = 0; i < c.count; i++) if (keep[i]) n++;
  const out = allocateCloud(n, c);
  let k = 0;
  for (let i = 0; i < c.count; i++) {
    if (!keep[i]) continue;
    out.xyz[3 * k] = c.xyz[3 * i]!;
    out.xyz[3 * k + 1] = c.xyz[3 * i + 1]!;
    out.xyz[3 * k + 2] = c.xyz[3 * i + 2]!;
    copyPointAttributes(c, i, out, k);
    k++;
  }
  return out;
}

/** Per view: its bundle index and the camera centre the source placed it at, in the cloud's frame (x, y, z). */
export type CameraCentres = Array<[view: number, x: number, y: number, z: number]>;

/**
 * The camera centres of a cloud's views, by bundle view index, as its source placed them: gt and noisy record
 * the centres they back-projected from (`meta.cameraCentres`; noisy's are its drifted and perturbed cameras),
 * vggt its predicted extrinsics (`meta.cameras`, aligned to the cloud's frame). Empty for a cloud that records
 * neither (one read from a file).
 */
export function cameraCentresOf(cloud: Pick<PointCloud, "meta">): Map<number, [number, number, number]> {
  const out = new Map<number, [number, number, number]>();
  const m = cloud.meta as { cameraCentres?: CameraCentres; cameras?: Array<{ view: number; extrinsic: number[][] }> };
  for (const [view, x, y, z] of m.cameraCentres ?? []) out.set(view, [x, y, z]);
  if (m.cameraCentres) return out;
  for (const c of m.cameras ?? []) {
    // camera-from-world [R | t]: the centre is -R^T t
    const E = c.extrinsic;
    const t = [E[0]![3]!, E[1]![3]!, E[2]![3]!];
    out.set(c.view, [0, 1, 2].map((j) => -(E[0]![j]! * t[0]! + E[1]![j]! * t[1]! + E[2]![j]! * t[2]!)) as [number, number, number]);
  }
  return out;
}
