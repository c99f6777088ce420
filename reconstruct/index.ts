/** One entry point for every point-cloud source (`--source gt|vggt|noisy`); options in ./options.ts. */
import type { FrameBundle } from "../core/bundle/io.js";
import { backprojectViews } from "./gt/backproject.js";
import { bundleCategories } from "./categories.js";
import type { CloudOptions } from "./options.js";
import { filterCloud, type CloudArena, type PointCloud } from "./pointcloud.js";

/** How a cloud is built, beyond what it is (none of this changes the points' values). */
export interface CloudRuntime {
  /** gt/noisy: back-project every stride-th pixel (1 = all). */
  stride?: number;
  /** Reusable storage for gt/noisy clouds (valid until its next use); see CloudArena. */
  arena?: CloudArena;
  /** Leave out points whose pixel has one of these instance ids (room structure, when only objects matter). */
  excludeIds?: ReadonlySet<number>;
  /** Progress lines of slow sources (vggt). */
  log?: (msg: string) => void;
  /** noisy: the views so far when lifting only the newest (see NoiseOptions.trajectory). */
  trajectory?: readonly FrameBundle["views"][number][];
}

/** The cloud of `bundle` from the source and its options, as CloudOptionsSchema parsed them at the front-end. */
export async function buildPointCloud(bundle: FrameBundle, o: CloudOptions, runtime: CloudRuntime = {}): Promise<PointCloud> {
  switch (o.source) {
    case "gt":
      return backprojectViews(bundle.views, bundleCategories(bundle), { stride: runtime.stride, excludeIds: runtime.excludeIds, arena: runtime.arena });
    case "vggt": {
      // loaded on demand: ONNX Runtime's native module is not needed by the other sources
      const { vggtPointCloud } = await import("./vggt/index.js");
      const cloud = await vggtPointCloud(bundle, { ...o.vggt, log: runtime.log });
      return withoutIds(cloud, runtime.excludeIds);
    }
    case "noisy": {
      const { noisyPointCloud } = await import("./noisy/index.js");
      // the noise options go as they are: the same names from the flag to the error model
      return noisyPointCloud(bundle, { ...o, excludeIds: runtime.excludeIds, arena: runtime.arena, trajectory: runtime.trajectory });
    }
  }
}

/** The cloud without the points of these instance ids (the structure points a graph leaves out). */
export function withoutIds(c: PointCloud, ids: ReadonlySet<number> | undefined): PointCloud {
  if (!ids || ids.size === 0) return c;
  const keep = new Uint8Array(c.count);
  for (let i = 0; i < c.count; i++) keep[i] = ids.has(c.instance[i]!) ? 0 : 1;
  const out = filterCloud(c, keep);
  out.meta = { ...c.meta, excluded_ids: [...ids] };
  return out;
}
