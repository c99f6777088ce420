/**
 * Exports for other tools: each point's predicted node (the PLY `node` field), and the ConceptGraphs
 * scene-graph JSON (nodes as `scene_graph.json`: id, bbox_extent, bbox_center, object_tag, possible_tags,
 * caption; edges as ConceptGraphs' relation records limited to its vocabulary "a on b" / "b on a" /
 * "a in b" / "b in a"). The object map ConceptGraphs' scripts load is in conceptgraphsMap.ts.
 */
import { join } from "node:path";
import type { PlyNodes } from "../reconstruct/ply.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { writeFileAtomic, writeJsonAtomic } from "../core/fs.js";
import { CONCEPTGRAPHS_MAP_FILE, encodeConceptGraphsMap } from "./conceptgraphsMap.js";
import type { SceneGraph } from "./types.js";

/** Each cloud point's node: k for the points of graph.nodes[k] (`members[k]`), -1 for points in no node. */
export function pointNodes(count: number, graph: Pick<SceneGraph, "nodes">, members: readonly Uint32Array[]): PlyNodes {
  if (members.length !== graph.nodes.length) throw new Error(`pointNodes: ${members.length} member lists for ${graph.nodes.length} nodes`);
  const ofPoint = new Int32Array(count).fill(-1);
  members.forEach((m, k) => {
    for (const i of m) ofPoint[i] = k;
  });
  return { ofPoint, nodes: graph.nodes.map((n) => ({ id: n.id, label: n.label })) };
}

interface ConceptGraphsExport {
  nodes: Array<{ id: number; bbox_extent: number[]; bbox_center: number[]; object_tag: string; possible_tags: string[]; caption: string }>;
  edges: Array<{ object1: { id: number; object_tag: string }; object2: { id: number; object_tag: string }; object_relation: string; reason: string }>;
}

function toConceptGraphs(g: SceneGraph): ConceptGraphsExport {
  const num = (id: string) => Number(id.slice(1));
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const nodes = g.nodes.map((n) => ({
    id: num(n.id),
    bbox_extent: n.box.extent.map((v) => Math.round(v * 100) / 100),
    bbox_center: n.box.centre.map((v) => Math.round(v * 100) / 100),
    object_tag: n.label,
    possible_tags: Object.keys(n.label_distribution),
    caption: `${n.label} seen in ${n.views.length} view(s)`,
  }));
  const edges = g.relations
    .filter((r) => r.predicate === "on" || r.predicate === "inside")
    .map((r) => ({
      object1: { id: num(r.subject), object_tag: byId.get(r.subject)!.label },
      object2: { id: num(r.object), object_tag: byId.get(r.object)!.label },
      object_relation: r.predicate === "on" ? "a on b" : "a in b",
      reason: `geometric rule (esi3d), margin ${r.margin_m} m`,
    }));
  return { nodes, edges };
}

/** The files `--conceptgraphs DIR` writes, relative to DIR. */
export const CONCEPTGRAPHS_FILES = { map: CONCEPTGRAPHS_MAP_FILE, nodes: "scene_graph.json", edges: "cfslam_object_relations.json" } as const;

/** Writes the ConceptGraphs export of a graph into `dir`: the object map (pkl.gz) and the two JSON files. */
export function writeConceptGraphs(dir: string, graph: SceneGraph, cloud: Pick<PointCloud, "count" | "xyz" | "rgb">, members: readonly Uint32Array[]): void {
  const cg = toConceptGraphs(graph);
  writeFileAtomic(join(dir, CONCEPTGRAPHS_FILES.map), encodeConceptGraphsMap(graph, cloud, members));
  writeJsonAtomic(join(dir, CONCEPTGRAPHS_FILES.nodes), cg.nodes);
  writeJsonAtomic(join(dir, CONCEPTGRAPHS_FILES.edges), cg.edges);
}
