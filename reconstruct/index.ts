/** One entry point for every point-cloud source (`--source gt|vggt|noisy`). */
import type { FrameBundle } from "../bridge/bundle/io.js";
import { backprojectViews } from "./gt/backproject.js";
import { bundleCategories } from "./categories.js";
import type { PointCloud } from "./pointcloud.js";
import { vggtPointCloud, type VggtOptions } from "./vggt/index.js";

export const SOURCES = ["gt", "vggt", "noisy"] as const;
export type Source = (typeof SOURCES)[number];

export interface CloudOptions {
  source: Source;
  /** noisy: 0..1 */
  noiseLevel?: number;
  noiseSeed?: string;
  vggt?: VggtOptions;
  /** gt/noisy: back-project every stride-th pixel (1 = all). */
  stride?: number;
  /** gt: leave out pixels of these instance ids (room structure, when only objects matter). */
  excludeIds?: ReadonlySet<number>;
}

export async function buildPointCloud(bundle: FrameBundle, opts: CloudOptions): Promise<PointCloud> {
  switch (opts.source) {
    case "gt":
      return backprojectViews(bundle.views, bundleCategories(bundle), { stride: opts.stride, excludeIds: opts.excludeIds });
    case "vggt":
      return vggtPointCloud(bundle, opts.vggt ?? {});
    case "noisy":
      throw new Error("the noisy source is not available yet");
  }
}
