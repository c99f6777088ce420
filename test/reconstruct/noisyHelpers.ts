/** Fixtures shared by the `noisy` source's tests (noisy.test.ts, noisy-artifacts.test.ts). */
import type { FrameBundle } from "../../bridge/bundle/io.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import type { NoisyMeta } from "../../reconstruct/noisy/index.js";

/** A rendered bundle of a generated task, cut to its first `maxViews` views. */
export function realBundle(sub: Parameters<typeof generateTask>[0], seed: string, paradigm: "gt" | "multi", maxViews = Infinity): FrameBundle {
  const b = renderBundle(generateTask(sub, seed, 0), paradigm);
  return { dir: "", manifest: { ...b.manifest, views: b.manifest.views.slice(0, maxViews) }, views: b.views.slice(0, maxViews) };
}

export const categoriesOf = (b: FrameBundle) => new Map(b.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
export const gtOf = (b: FrameBundle) => backprojectViews(b.views, categoriesOf(b));
export const metaOf = (c: PointCloud) => c.meta as unknown as NoisyMeta;
