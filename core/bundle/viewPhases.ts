/** Which phase of a changing world each view of a bundle saw (core/task/phases.ts). */
import type { BundleManifest } from "./schema.js";

/** The phase of each bundle view (0 for a view without one). */
export const viewPhases = (manifest: Pick<BundleManifest, "views">): number[] => manifest.views.map((v) => v.phase ?? 0);

/** Whether a bundle's views come from more than one phase. */
export const isPhased = (manifest: Pick<BundleManifest, "views">): boolean => new Set(viewPhases(manifest)).size > 1;
