/**
 * Reading a scene graph for the offline programs: which node a question's referent is, the distance
 * between two nodes, the node the viewer looks at. Only what a question names (category, colour) picks a
 * node, never the simulator's object positions.
 */
import { colourDistance, namedColorRgb } from "../../core/task/palette.js";
import { boxDistance } from "../../core/geometry.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import type { Query, Referent } from "./query.js";

/** Nodes that could be the referent: same category, best colour match first, then the best supported. */
function candidates(g: SceneGraph, ref: Referent): GraphNode[] {
  const want = namedColorRgb(ref.color);
  // a referent without a colour (an imported task's) is matched by category and support only
  const byColour = (a: GraphNode, b: GraphNode) =>
    want ? Number(b.color_name === ref.color) - Number(a.color_name === ref.color) || colourDistance(a.color, want) - colourDistance(b.color, want) : 0;
  return g.nodes.filter((n) => n.label === ref.category).sort((a, b) => byColour(a, b) || b.raw_point_count - a.raw_point_count || (a.id < b.id ? -1 : 1));
}

/** Resolves several referents to distinct nodes (each takes its best still-free candidate). */
export function resolve(g: SceneGraph, refs: Referent[]): Array<GraphNode | null> {
  const used = new Set<string>();
  return refs.map((r) => {
    const n = candidates(g, r).find((c) => !used.has(c.id)) ?? null;
    if (n) used.add(n.id);
    return n;
  });
}

export const xyDist = (a: GraphNode, b: GraphNode) => Math.hypot(a.centroid[0] - b.centroid[0], a.centroid[1] - b.centroid[1]);

/** Closest distance between two nodes: the graph's own relation when it has one, else their boxes'. */
export function closest(g: SceneGraph, a: GraphNode, b: GraphNode): number {
  const r = g.relations.find((x) => (x.subject === a.id && x.object === b.id) || (x.subject === b.id && x.object === a.id));
  return r ? r.closest_distance_m : boxDistance(a.box, b.box);
}

/** Nodes that support another node (tables, shelves): never the object a question looks at. */
export const supportNodes = (g: SceneGraph): Set<string> => new Set(g.relations.filter((r) => r.predicate === "supports").map((r) => r.subject));

/** The node the viewer is looking at: smallest angle to the initial optical axis, supports excluded. */
export function lookedAt(g: SceneGraph, q: Query): GraphNode | null {
  const supports = supportNodes(g);
  const { position: p, yaw, pitch } = q.viewpoint;
  const f = [Math.cos(pitch) * Math.cos(yaw), Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch)];
  let best: GraphNode | null = null,
    bestAngle = Infinity;
  for (const n of g.nodes) {
    if (supports.has(n.id)) continue;
    const d = [n.centroid[0] - p[0], n.centroid[1] - p[1], n.centroid[2] - p[2]];
    const L = Math.hypot(d[0]!, d[1]!, d[2]!) || 1;
    const angle = Math.acos(Math.max(-1, Math.min(1, (d[0]! * f[0]! + d[1]! * f[1]! + d[2]! * f[2]!) / L)));
    if (angle < bestAngle || (angle === bestAngle && best && n.raw_point_count > best.raw_point_count)) [best, bestAngle] = [n, angle];
  }
  return best;
}
