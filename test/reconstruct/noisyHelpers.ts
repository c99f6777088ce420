/** Fixtures shared by the `noisy` source's tests (noisy.test.ts, noisy-artifacts.test.ts). */
import type { FrameBundle } from "../../core/bundle/io.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import type { NoisyMeta } from "../../reconstruct/noisy/index.js";
import type { Mat34 } from "../../core/math/vec.js";

/** A rendered bundle of a generated task, cut to its first `maxViews` views. */
export function realBundle(sub: Parameters<typeof generateTask>[0], seed: string, paradigm: "gt" | "multi", maxViews = Infinity): FrameBundle {
  const b = renderBundle(generateTask(sub, seed, 0), paradigm);
  return { dir: "", manifest: { ...b.manifest, views: b.manifest.views.slice(0, maxViews) }, views: b.views.slice(0, maxViews) };
}

const categoriesOf = (b: FrameBundle) => new Map(b.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
export const gtOf = (b: FrameBundle) => backprojectViews(b.views, categoriesOf(b));
export const metaOf = (c: PointCloud) => c.meta as unknown as NoisyMeta;

export const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
/** Same points, byte for byte, in every per-point array. */
export const sameArrays = (a: PointCloud, b: PointCloud) =>
  a.count === b.count && (["xyz", "rgb", "confidence", "view", "pixel", "instance"] as const).every((k) => bytes(a[k]).equals(bytes(b[k])));
/** Camera-frame z (depth) of a world point. */
export const camZ = (E: Mat34, x: number, y: number, z: number) => E[2][0] * x + E[2][1] * y + E[2][2] * z + E[2][3];
