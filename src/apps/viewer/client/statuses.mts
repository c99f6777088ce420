/** The node statuses the page shows (chips, legend, 3D filter, sorting), with what each means. */
import type { NodeStatus } from "../../../../scenegraph/diagnosisSchema.js";

/**
 * What each node status means, in one line (the legend's tooltips), keyed by every status the diagnosis gives:
 * a status it adds and this lacks does not type-check. docs/viewer.md has the rules behind them.
 */
export const STATUS_MEANINGS: Record<NodeStatus, string> = {
  matched: "matched one to one to a true object: mostly its points, near its box",
  duplicate: "a second node for an object another node (its twin) is matched to",
  merged: "one node over two or more true objects",
  hallucinated: "a node near no true object: mostly floor, walls, background, or displaced geometry",
  stale: "a node where an object was before it was moved, no longer where it is: it should have followed the object",
  mirror_ghost: "a node behind a mirror where a true object's reflection is: the reflection taken for geometry",
};
/** The statuses in the order the page lists them (chips, legend, sorting). */
export const STATUSES = Object.keys(STATUS_MEANINGS) as NodeStatus[];
