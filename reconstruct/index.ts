/** One entry point for every point-cloud source (`--source gt|vggt|noisy`). */
import type { FrameBundle } from "../bridge/bundle/io.js";
import { backprojectViews } from "./gt/backproject.js";
import { bundleCategories } from "./categories.js";
import type { PointCloud } from "./pointcloud.js";
import { vggtPointCloud, type VggtOptions } from "./vggt/index.js";
import { noisyPointCloud, type NoiseComponent } from "./noisy/index.js";
import { filterCloud, type CloudArena } from "./pointcloud.js";

export const SOURCES = ["gt", "vggt", "noisy"] as const;
export type Source = (typeof SOURCES)[number];

export interface CloudOptions {
  source: Source;
  /** noisy: 0..1 */
  noiseLevel?: number;
  noiseSeed?: string;
  noiseComponents?: NoiseComponent[];
  vggt?: VggtOptions;
  /** gt/noisy: back-project every stride-th pixel (1 = all). */
  stride?: number;
  /** Reusable storage for gt/noisy clouds (valid until its next use); see CloudArena. */
  arena?: CloudArena;
  /** Leave out points whose pixel has one of these instance ids (room structure, when only objects matter). */
  excludeIds?: ReadonlySet<number>;
}

export async function buildPointCloud(bundle: FrameBundle, opts: CloudOptions): Promise<PointCloud> {
  switch (opts.source) {
    case "gt":
      return backprojectViews(bundle.views, bundleCategories(bundle), { stride: opts.stride, excludeIds: opts.excludeIds, arena: opts.arena });
    case "vggt":
      return withoutIds(await vggtPointCloud(bundle, opts.vggt ?? {}), opts.excludeIds);
    case "noisy":
      return noisyPointCloud(bundle, { level: opts.noiseLevel ?? 0.5, seed: opts.noiseSeed ?? "0", components: opts.noiseComponents, excludeIds: opts.excludeIds, arena: opts.arena });
  }
}

function withoutIds(c: PointCloud, ids: ReadonlySet<number> | undefined): PointCloud {
  if (!ids || ids.size === 0) return c;
  const keep = new Uint8Array(c.count);
  for (let i = 0; i < c.count; i++) keep[i] = ids.has(c.instance[i]!) ? 0 : 1;
  const out = filterCloud(c, keep);
  out.meta = { ...c.meta, excluded_ids: [...ids] };
  return out;
}
