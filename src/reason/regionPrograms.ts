/**
 * Cognitive Mapping programs of the offline symbolic reasoner: they read only the graph's region layer
 * (rooms, doorways, objects in rooms; scenegraph/regions.ts) and the question text (room names, object
 * categories), never the task's layout. Templates: bridge/sim/generate/mapping.ts (ESI's records).
 */
import { roomAdjacency, shortestRoomPaths } from "../../bridge/task/layout.js";
import type { GraphNode, RegionLayer, SceneGraph } from "../../scenegraph/types.js";
import { declined, type Decision } from "./decision.js";
import { parsePathQuestion } from "./pathQuestions.js";
import type { Query } from "./query.js";

/**
 * Confidence of a region answer: the region layer carries no per-room evidence score yet, so every answer
 * read off it gets this one value (ours; below 1 because segmentation can miss a wall or a doorway).
 */
export const REGION_CONFIDENCE = 0.8;

export interface RegionInput {
  g: SceneGraph;
  q: Query;
  trace: string[];
}
export type RegionProgram = (p: RegionInput) => Decision;

function layer(p: RegionInput): RegionLayer | string {
  const r = p.g.regions;
  if (!r || r.rooms.length === 0) return "the graph has no region layer (rooms)";
  p.trace.push(`region layer: ${r.rooms.map((x) => x.id).join(", ")}; doorways ${r.doorways.map((d) => d.rooms.join("--")).join(", ") || "none"}`);
  return r;
}

const missing = (r: RegionLayer, names: readonly string[]) => names.find((n) => !r.rooms.some((x) => x.id === n)) ?? null;

/** The node of a category the question names: the one with the most points. */
function nodeOf(g: SceneGraph, category: string): GraphNode | null {
  return g.nodes.filter((n) => n.label === category).sort((a, b) => b.point_count - a.point_count)[0] ?? null;
}
const roomOfNode = (r: RegionLayer, n: GraphNode) => r.rooms.find((x) => x.objects.includes(n.id))?.id ?? null;

export const connectivityProgram: RegionProgram = (p) => {
  const r = layer(p);
  if (typeof r === "string") return declined(r, p.trace);
  const m = /Are (\S+) and (\S+) adjacent/.exec(p.q.question);
  if (!m) return declined("the question names no two rooms", p.trace);
  const [a, b] = [m[1]!, m[2]!];
  const lacking = missing(r, [a, b]);
  if (lacking) return declined(`${lacking} is not a room of the graph`, p.trace);
  const door = r.doorways.find((d) => d.rooms.includes(a) && d.rooms.includes(b));
  p.trace.push(door ? `doorway ${a}--${b} at (${door.centre.join(", ")})` : `no doorway joins ${a} and ${b}`);
  return { answer: door ? "Yes" : "No", confidence: REGION_CONFIDENCE, trace: p.trace };
};

function shortestPath(r: RegionLayer, a: string, b: string): string[][] {
  return shortestRoomPaths(roomAdjacency(r.rooms.map((x) => x.id), r.doorways), a, b);
}

export const traversableProgram: RegionProgram = (p) => {
  const r = layer(p);
  if (typeof r === "string") return declined(r, p.trace);
  const pq = parsePathQuestion(p.q.question);
  if (!pq || pq.kind !== "intermediate") return declined("the question names no start and goal room", p.trace);
  const [a, b] = [pq.start, pq.goal];
  const lacking = missing(r, [a, b]);
  if (lacking) return declined(`${lacking} is not a room of the graph`, p.trace);
  const paths = shortestPath(r, a, b);
  if (!paths.length) return declined(`no doorway path joins ${a} and ${b} in the graph`, p.trace);
  const hits = p.q.options.filter((o) => paths.some((path) => path.slice(1, -1).includes(o)));
  p.trace.push(`shortest paths: ${paths.map((x) => x.join(" > ")).join("; ")}`);
  if (hits.length !== 1) return declined(`${hits.length} options lie inside the shortest path(s)`, p.trace);
  return { answer: hits[0]!, confidence: paths.length === 1 ? REGION_CONFIDENCE : REGION_CONFIDENCE / paths.length, trace: p.trace };
};

export const regionalProgram: RegionProgram = (p) => {
  const r = layer(p);
  if (typeof r === "string") return declined(r, p.trace);
  const belong = /Which room does (\S+) belong to/.exec(p.q.question);
  if (belong) {
    const n = nodeOf(p.g, belong[1]!);
    if (!n) return declined(`no ${belong[1]} in the graph`, p.trace);
    const room = roomOfNode(r, n);
    p.trace.push(`${belong[1]} -> ${n.id} in ${room ?? "no room"}`);
    if (!room || !p.q.options.includes(room)) return declined(`${belong[1]} lies in ${room ?? "no room"}, not an option`, p.trace);
    return { answer: room, confidence: REGION_CONFIDENCE, trace: p.trace };
  }
  const same = /Are (\S+) and (\S+) in the same region/.exec(p.q.question);
  if (!same) return declined("no Regional Boundary template matches the question", p.trace);
  const nodes = [nodeOf(p.g, same[1]!), nodeOf(p.g, same[2]!)];
  const lacking = nodes.findIndex((n) => !n);
  if (lacking >= 0) return declined(`no ${same[lacking + 1]} in the graph`, p.trace);
  const rooms = nodes.map((n) => roomOfNode(r, n!));
  p.trace.push(`${same[1]} in ${rooms[0] ?? "no room"}, ${same[2]} in ${rooms[1] ?? "no room"}`);
  if (!rooms[0] || !rooms[1]) return declined("an object lies in no room of the graph", p.trace);
  return { answer: rooms[0] === rooms[1] ? "Yes" : "No", confidence: REGION_CONFIDENCE, trace: p.trace };
};

export const navigationProgram: RegionProgram = (p) => {
  const r = layer(p);
  if (typeof r === "string") return declined(r, p.trace);
  const nav = parsePathQuestion(p.q.question);
  if (!nav || nav.kind !== "next-step") return declined("the question names no start and goal room, or has no blank step", p.trace);
  const { start: a, goal: b, steps, blank } = nav;
  const lacking = missing(r, [a, b]);
  if (lacking) return declined(`${lacking} is not a room of the graph`, p.trace);
  const paths = shortestPath(r, a, b).filter((path) => path.length === steps.length + 1 && steps.every((f, i) => i === blank || f === null || path[i + 1] === f));
  p.trace.push(`paths from ${a} to ${b} agreeing with the filled steps: ${paths.map((x) => x.join(" > ")).join("; ") || "none"}`);
  const answers = [...new Set(paths.map((path) => path[blank + 1]!))].filter((x) => p.q.options.includes(x));
  if (answers.length !== 1) return declined(`${answers.length} options fit step ${blank + 1}`, p.trace);
  return { answer: answers[0]!, confidence: REGION_CONFIDENCE, trace: p.trace };
};
