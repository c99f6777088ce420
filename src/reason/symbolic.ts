/**
 * The `symbolic` reasoner: one deterministic program per built-in subcategory over the scene graph, using
 * the same answer rules as the generator (bridge/task/rules.ts). On a ground-truth graph it is the
 * "graph oracle": it shows what the graph contains, separately from how well an LLM reads it.
 * Confidence comes from how far the deciding quantity is from its threshold (relation margins).
 */
import { classifyTriangle, collinearityResidual, COLLINEAR_TOL_M, TOUCHING_GAP_M, TRIANGLE_EQUAL_SIDE_TOL, triangleMargin } from "../../bridge/task/rules.js";
import { colorRgb } from "../../bridge/task/palette.js";
import { boxDistance } from "../../bridge/objects/geometry.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { queryOf, type Query, type Referent } from "./query.js";
import type { Reasoner, ReasonerAnswer, ReasonerInput } from "./types.js";

/** Confidence from a margin: 0.5 at the threshold, rising to 1 at `scale` away from it. */
export function marginConfidence(margin: number, scale: number): number {
  return Math.round((0.5 + 0.5 * Math.min(1, Math.max(0, margin) / scale)) * 1000) / 1000;
}

/** Distance scales at which a decision counts as certain (m or relative), per rule. */
export const CONFIDENCE_SCALE = {
  triangleRelative: TRIANGLE_EQUAL_SIDE_TOL,
  collinearM: COLLINEAR_TOL_M,
  touchingM: TOUCHING_GAP_M,
  distanceRelative: 0.3,
  volumeRelative: 0.5,
  insideM: 0.02,
};

export interface Decision {
  answer: string;
  confidence: number;
  trace: string[];
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const label = (s: string) => s.replace(/_/g, " ");

function colourDistance(a: readonly number[], b: readonly number[]): number {
  const sa = a[0]! + a[1]! + a[2]! + 1e-6, sb = b[0]! + b[1]! + b[2]! + 1e-6;
  return Math.hypot(a[0]! / sa - b[0]! / sb, a[1]! / sa - b[1]! / sb) + 0.2 * Math.abs(sa - sb) / 765;
}

/** Nodes that could be the referent: same category, best colour match first, then the best supported. */
export function candidates(g: SceneGraph, ref: Referent): GraphNode[] {
  const want = colorRgb(ref.color);
  return g.nodes
    .filter((n) => n.label === ref.category)
    .sort((a, b) => Number(b.color_name === ref.color) - Number(a.color_name === ref.color) || colourDistance(a.color, want) - colourDistance(b.color, want) || b.raw_point_count - a.raw_point_count || (a.id < b.id ? -1 : 1));
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

const asBox = (n: GraphNode) => ({ centre: n.box.centre, half: [n.box.extent[0] / 2, n.box.extent[1] / 2, n.box.extent[2] / 2] as [number, number, number], yaw: n.box.yaw });
const xyDist = (a: GraphNode, b: GraphNode) => Math.hypot(a.centroid[0] - b.centroid[0], a.centroid[1] - b.centroid[1]);

function closest(g: SceneGraph, a: GraphNode, b: GraphNode): number {
  const r = g.relations.find((x) => (x.subject === a.id && x.object === b.id) || (x.subject === b.id && x.object === a.id));
  return r ? r.closest_distance_m : boxDistance(asBox(a), asBox(b));
}

/** The integer option nearest to a count (the lower one on ties). */
export function nearestOption(options: string[], value: number): string {
  return options.reduce((best, o) => (Math.abs(Number(o) - value) < Math.abs(Number(best) - value) || (Math.abs(Number(o) - value) === Math.abs(Number(best) - value) && Number(o) < Number(best)) ? o : best));
}

class Unanswerable extends Error {}

function need<T>(x: T | null | undefined, what: string): T {
  if (x === null || x === undefined) throw new Unanswerable(what);
  return x;
}

/** The node the viewer is looking at: smallest angle to the initial optical axis, supports excluded. */
function lookedAt(g: SceneGraph, q: Query, exclude: Set<string>): GraphNode | null {
  const supports = new Set(g.relations.filter((r) => r.predicate === "supports").map((r) => r.subject));
  const { position: p, yaw, pitch } = q.viewpoint;
  const f = [Math.cos(pitch) * Math.cos(yaw), Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch)];
  let best: GraphNode | null = null, bestAngle = Infinity;
  for (const n of g.nodes) {
    if (exclude.has(n.id) || supports.has(n.id)) continue;
    const d = [n.centroid[0] - p[0], n.centroid[1] - p[1], n.centroid[2] - p[2]];
    const L = Math.hypot(d[0]!, d[1]!, d[2]!) || 1;
    const angle = Math.acos(Math.max(-1, Math.min(1, (d[0]! * f[0]! + d[1]! * f[1]! + d[2]! * f[2]!) / L)));
    if (angle < bestAngle || (angle === bestAngle && best && n.raw_point_count > best.raw_point_count)) [best, bestAngle] = [n, angle];
  }
  return best;
}

function matchOption(options: string[], text: string): string | null {
  return options.find((o) => o === text || o === label(text)) ?? null;
}

/** The program of each built-in subcategory. */
export function decide(g: SceneGraph, q: Query): Decision {
  const trace: string[] = [];
  const refs = resolve(g, q.referents);
  q.referents.forEach((r, i) => trace.push(`${r.name} -> ${refs[i]?.id ?? "not found"}`));
  switch (q.subcategory) {
    case "geometric_configuration": {
      const [a, b, c] = refs.map((n, i) => need(n, q.referents[i]!.name));
      const sides: [number, number, number] = [xyDist(b!, c!), xyDist(c!, a!), xyDist(a!, b!)];
      const kind = classifyTriangle(sides);
      trace.push(`sides ${sides.map(r3).join(", ")} m -> ${kind}`);
      return { answer: kind, confidence: marginConfidence(triangleMargin(sides), CONFIDENCE_SCALE.triangleRelative), trace };
    }
    case "linear_alignment": {
      const ns = refs.map((n, i) => need(n, q.referents[i]!.name));
      const res = collinearityResidual(ns.map((n) => n.centroid));
      trace.push(`collinearity residual ${r3(res)} m (tolerance ${COLLINEAR_TOL_M})`);
      return { answer: res <= COLLINEAR_TOL_M ? "yes" : "no", confidence: marginConfidence(Math.abs(res - COLLINEAR_TOL_M), CONFIDENCE_SCALE.collinearM), trace };
    }
    case "physical_contact": {
      const [a, b] = refs.map((n, i) => need(n, q.referents[i]!.name));
      const d = closest(g, a!, b!);
      trace.push(`closest distance ${r3(d)} m (touching <= ${TOUCHING_GAP_M})`);
      return { answer: d <= TOUCHING_GAP_M ? "yes" : "no", confidence: marginConfidence(Math.abs(d - TOUCHING_GAP_M), CONFIDENCE_SCALE.touchingM), trace };
    }
    case "material_transparency": {
      const container = need(refs[0], q.referents[0]!.name);
      const obj = refs[1];
      if (!obj) {
        trace.push(`${q.referents[1]!.name} not in the graph: nothing is seen inside`);
        return { answer: "no", confidence: 0.5, trace };
      }
      const rel = g.relations.find((r) => r.predicate === "inside" && r.subject === obj.id && r.object === container.id);
      trace.push(rel ? `inside, margin ${rel.margin_m} m` : "no inside relation");
      return { answer: rel ? "yes" : "no", confidence: rel ? marginConfidence(rel.margin_m, CONFIDENCE_SCALE.insideM) : 0.75, trace };
    }
    case "spatial_distance": {
      const [ref, ...objs] = refs;
      const reference = need(ref, q.referents[0]!.name);
      const scored = q.referents.slice(1).map((r, i) => ({ name: r.name, node: objs[i], d: objs[i] ? boxDistance(asBox(objs[i]!), asBox(reference)) : Infinity }));
      scored.sort((x, y) => x.d - y.d);
      scored.forEach((s) => trace.push(`${s.name}: ${Number.isFinite(s.d) ? r3(s.d) + " m" : "not found"} from ${reference.id}`));
      const [near, far] = scored;
      const ratio = far && Number.isFinite(far.d) && near!.d > 0 ? far.d / near!.d - 1 : 1;
      return { answer: need(matchOption(q.options, near!.name), "option"), confidence: marginConfidence(ratio, CONFIDENCE_SCALE.distanceRelative), trace };
    }
    case "dimensional_size": {
      // the two copies of the task's category, and the references (the options) next to them
      const refCats = q.referents.filter((r) => r.role === "reference");
      const objCat = q.referents.find((r) => r.role === "target")!.category;
      const copies = g.nodes.filter((n) => n.label === objCat).sort((a, b) => b.raw_point_count - a.raw_point_count).slice(0, 2);
      if (copies.length < 2) throw new Unanswerable(`two ${label(objCat)}s`);
      const bigger = /smaller/.test(q.question) ? false : true;
      const [big, small] = [...copies].sort((a, b) => b.volume_m3 - a.volume_m3);
      const target = bigger ? big! : small!;
      const refNodes = resolve(g, refCats);
      const dists = refNodes.map((n) => (n ? boxDistance(asBox(n), asBox(target)) : Infinity));
      const k = dists.indexOf(Math.min(...dists));
      trace.push(`volumes ${copies.map((c) => `${c.id} ${c.volume_m3}`).join(", ")} m3; asked ${bigger ? "bigger" : "smaller"} -> ${target.id}; nearest reference ${refCats[k]!.name}`);
      const ratio = small!.volume_m3 > 0 ? big!.volume_m3 / small!.volume_m3 - 1 : 1;
      return { answer: need(matchOption(q.options, refCats[k]!.category), "option"), confidence: marginConfidence(ratio, CONFIDENCE_SCALE.volumeRelative), trace };
    }
    case "partial_occlusion": {
      const occ = need(refs[0], q.referents[0]!.name);
      const supports = new Set(g.relations.filter((r) => r.predicate === "supports").map((r) => r.subject));
      const others = g.nodes.filter((n) => n.id !== occ.id && !supports.has(n.id)).map((n) => ({ n, d: boxDistance(asBox(n), asBox(occ)) })).sort((a, b) => a.d - b.d);
      const hidden = need(others[0], "an object behind the occluder").n;
      trace.push(`nearest object to ${occ.id}: ${hidden.id} (${hidden.label}, ${r3(others[0]!.d)} m)`);
      const opt = matchOption(q.options, hidden.label);
      if (!opt) throw new Unanswerable(`an option for label ${hidden.label}`);
      return { answer: opt, confidence: Math.round((0.5 + 0.5 * (hidden.label_distribution[hidden.label] ?? 1)) * 1000) / 1000, trace };
    }
    case "view_hallucination": {
      const n = need(lookedAt(g, q, new Set()), "an object in front of the viewer");
      trace.push(`object on the optical axis: ${n.id} (${n.label})`);
      const opt = matchOption(q.options, n.label);
      if (!opt) throw new Unanswerable(`an option for label ${n.label}`);
      return { answer: opt, confidence: Math.round((0.5 + 0.5 * (n.label_distribution[n.label] ?? 1)) * 1000) / 1000, trace };
    }
    case "counting_with_occlusion":
    case "spatial_segmentation":
    case "merged_observation":
    case "category_ambiguity":
    case "illumination_variability": {
      const cat = need(q.countCategory, "the counted category");
      const counted = g.nodes.filter((n) => n.label === cat);
      const answer = nearestOption(q.options, counted.length);
      const doubtful = counted.filter((n) => n.flags.possible_duplicate_of.length || n.flags.low_support || n.flags.fragment).length;
      trace.push(`${counted.length} node(s) labelled ${cat} (${doubtful} flagged) -> option ${answer}`);
      const confidence = Math.round((counted.length === Number(answer) ? 1 : 0.5) * (1 - 0.5 * (doubtful / Math.max(1, counted.length))) * 1000) / 1000;
      return { answer, confidence, trace };
    }
    default:
      throw new Unanswerable(`a program for ${q.subcategory} (not a built-in subcategory)`);
  }
}

/** Fallback when the graph lacks what a program needs: the first option, at confidence 0, with the reason. */
function unanswerable(q: Query, what: string, trace: string[]): Decision {
  return { answer: q.answer_format === "integer" ? nearestOption(q.options, 0) : q.options[0] ?? "no", confidence: 0, trace: [...trace, `not in the graph: ${what}; answering ${q.answer_format === "integer" ? "the count 0" : "the first option"} at confidence 0`] };
}

/** An offline reasoner from a decision program: the answer, a confidence and the program's trace. */
export function programReasoner(id: string, needs: "graph" | "bundle", method: string, run: (input: ReasonerInput, q: Query) => Decision): Reasoner {
  return {
    id,
    needs,
    async answer(input: ReasonerInput): Promise<ReasonerAnswer> {
      const t = performance.now();
      const q = queryOf(input.task);
      const d = run(input, q);
      return { status: "parsed", answer: d.answer, confidence: d.confidence, raw: d.trace, method: `${method}:${q.subcategory}`, reason: d.trace[d.trace.length - 1], latencyMs: Math.round((performance.now() - t) * 100) / 100 };
    },
  };
}

export function createSymbolicReasoner(): Reasoner {
  return programReasoner("symbolic", "graph", "program", (input, q) => {
    if (!input.graph) throw new Error("the symbolic reasoner needs a scene graph");
    try {
      return decide(input.graph, q);
    } catch (e) {
      if (!(e instanceof Unanswerable)) throw e;
      return unanswerable(q, e.message, []);
    }
  });
}
