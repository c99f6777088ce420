import type { FrameBundle } from "../core/bundle/io.js";

/** The bundle's id -> category table as a map. */
export function bundleCategories(bundle: Pick<FrameBundle, "manifest">): Map<number, string> {
  return new Map(bundle.manifest.instances.map((e) => [e.id, e.category]));
}
