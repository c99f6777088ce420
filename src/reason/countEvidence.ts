/**
 * Evidence rules of the symbolic reasoner's uncertainty-aware mode (`--uncertainty on`): what a count
 * should make of nodes that may be one object seen twice, and how much weaker the evidence of a node seen
 * once with few points is. They read only the graph (node centroids, views, support, flags), never the
 * task's objects.
 *
 * Why duplicates: a reconstruction with pose and depth errors puts the same object at different places in
 * different views, and fusion (which merges only overlapping detections) keeps each placement as a node
 * of its own. Two nodes of one label seen in disjoint view sets and close together are then more likely one
 * object than two: two distinct objects that close would usually be seen together in some view. Two
 * nodes that share a view are two detections in one image: distinct, never merged (a cannot-link).
 */
import type { GraphNode } from "../../scenegraph/types.js";

/**
 * Same-label nodes seen in disjoint views whose centroids lie within this distance (m) are counted as one
 * object. Source: the noise model's vggt-typical level (docs/noise-model.md, level 1.25) has AbsRel 0.074, so
 * a target 1.2-3.4 m away (bridge/sim/generate/counting.ts) is misplaced by up to ~0.25 m per view; measured
 * on seed `tune` (multi, noisy), 90 % of same-object duplicate pairs lie within 0.32 m, while distinct
 * targets of the counting generators lie >= 0.4 m apart, except Merged Observation's touching copies,
 * which the view cannot-link keeps apart when one view sees both.
 */
const DUPLICATE_RADIUS_M = 0.35;

/**
 * An object all of whose nodes are flagged `low_support` (one view, few points: scenegraph/nodes.ts) counts
 * this much less in a graph built from several views, where a real object is usually seen more than once and
 * the noise model's phantoms and label swaps (docs/noise-model.md §10) are seen once: half, as likely a
 * phantom as an object. Chosen on seed `tune` from 0, 0.5 and 1 (0.5 and 1 beat 0 on Category Ambiguity; 1
 * lost a Spatial Segmentation item that 0.5 keeps: objects under chairs are often seen once).
 */
const LOW_SUPPORT_DISCOUNT = 0.5;

/**
 * A decision read off a node flagged `low_support` keeps this share of its confidence above 0.5 (its
 * geometry rests on one view's few points, so its relation margins are less sure than they read). Ours: half,
 * in line with LOW_SUPPORT_DISCOUNT; it changes no answer, only how sure it is.
 */
const LOW_SUPPORT_CONFIDENCE_SHARE = 0.5;

/** A confidence for a decision whose referents include `weakNodes` low-support nodes (none: unchanged). */
export function weighedConfidence(confidence: number, weakNodes: number): number {
  if (weakNodes === 0) return confidence;
  return Math.round((0.5 + (confidence - 0.5) * LOW_SUPPORT_CONFIDENCE_SHARE ** weakNodes) * 1000) / 1000;
}

const dist = (a: GraphNode, b: GraphNode) => Math.hypot(a.centroid[0] - b.centroid[0], a.centroid[1] - b.centroid[1], a.centroid[2] - b.centroid[2]);

export interface CountResolution {
  /** objects the nodes stand for */
  count: number;
  /** node ids per object, each group's first the best supported */
  groups: string[][];
  /** one line per merge, for the trace */
  merges: string[];
  /** groups seen only through low-support nodes, in a graph seen from several views */
  weak: number;
  /** the count with weak groups discounted (LOW_SUPPORT_DISCOUNT), never below `seenTogether` */
  estimate: number;
  /** the most nodes one view sees at once: distinct detections, so distinct objects */
  seenTogether: number;
}

/**
 * Nodes per view. The most nodes one view sees at once is a lower bound on the objects: nodes that share a
 * view are distinct detections of one image (the cannot-link resolveDuplicates keeps), so however the
 * reconstruction scatters the other views' nodes, and however many of them merging or the low-support
 * discount takes away, the count cannot be below it. Low-support nodes count here too: in noisy graphs most
 * nodes carry some flag.
 */
function nodesPerView(nodes: readonly GraphNode[]): Map<number, number> {
  const perView = new Map<number, number>();
  for (const n of nodes) for (const v of n.views) perView.set(v, (perView.get(v) ?? 0) + 1);
  return perView;
}

/**
 * Groups nodes that are probably one object: closest pairs first, two groups join when some pair of their
 * nodes lies within `radius` and no view sees both groups. A node without view information (a ground-truth
 * graph's) gives no evidence of being a duplicate and is never merged.
 */
export function resolveDuplicates(nodes: readonly GraphNode[], radius: number = DUPLICATE_RADIUS_M): CountResolution {
  const parent = nodes.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const views = nodes.map((n) => new Set(n.views));
  const pairs: Array<{ i: number; j: number; d: number }> = [];
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) {
      if (!nodes[i]!.views.length || !nodes[j]!.views.length) continue;
      const d = dist(nodes[i]!, nodes[j]!);
      if (d <= radius) pairs.push({ i, j, d });
    }
  pairs.sort((a, b) => a.d - b.d || a.i - b.i || a.j - b.j);
  const merges: string[] = [];
  for (const { i, j, d } of pairs) {
    const [ri, rj] = [find(i), find(j)];
    if (ri === rj) continue;
    const [vi, vj] = [views[ri]!, views[rj]!];
    if ([...vi].some((v) => vj.has(v))) continue; // one view sees both: two objects
    parent[rj] = ri;
    for (const v of vj) vi.add(v);
    merges.push(`${nodes[j]!.id} ~ ${nodes[i]!.id} (${Math.round(d * 1000) / 1000} m apart, never seen together): one object`);
  }
  const byRoot = new Map<number, GraphNode[]>();
  nodes.forEach((n, i) => {
    const r = find(i);
    byRoot.set(r, [...(byRoot.get(r) ?? []), n]);
  });
  const groups = [...byRoot.values()].map((g) => g.sort((a, b) => b.raw_point_count - a.raw_point_count || (a.id < b.id ? -1 : 1)).map((n) => n.id));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const perView = nodesPerView(nodes);
  const multiView = perView.size > 1;
  const weak = multiView ? groups.filter((g) => g.every((id) => byId.get(id)!.flags.low_support)).length : 0;
  const seenTogether = Math.max(0, ...perView.values());
  return { count: groups.length, groups, merges, weak, estimate: Math.max(seenTogether, groups.length - LOW_SUPPORT_DISCOUNT * weak), seenTogether };
}
