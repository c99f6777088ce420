/**
 * The `symbolic` reasoner: one deterministic program per built-in subcategory over the scene graph, using
 * the same answer rules as the generator (core/task/rules.ts). On a ground-truth graph it is the
 * "graph oracle": it shows what the graph contains, separately from how well an LLM reads it. Confidence
 * comes from how far the deciding quantity is from its threshold (relation margins). When the graph lacks
 * what a program needs (a referent, two copies to compare), the program declines (decision.ts).
 */
import {
  bestFit,
  classifyTriangle,
  collinearityResidual,
  COLLINEAR_TOL_M,
  fitMargin,
  LIQUID_VOLUME_MIN_RATIO,
  TOUCHING_GAP_M,
  TRIANGLE_EQUAL_SIDE_TOL,
  triangleMargin,
} from "../../core/task/rules.js";
import type { BuiltinSubcategory } from "../../core/task/taxonomy.js";
import { BOARD_CATEGORY, CRITICAL_TILT_DEG, MEDIAN_STATIC_FRICTION, rollsByShape, slopeAnswer, stayChance, tippingTiltDeg } from "./slopePrior.js";
import { boxDistance } from "../../core/geometry.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { declined, marginConfidence, nearestOption, optionNaming, programReasoner, type Decision } from "./decision.js";
import { resolveDuplicates, weighedConfidence } from "./countEvidence.js";
import { closest, lookedAt, resolve, supportNodes, xyDist } from "./graphQueries.js";
import type { Query } from "./query.js";
import type { Reasoner } from "./types.js";
import { connectivityProgram, navigationProgram, regionalProgram, traversableProgram } from "./regionPrograms.js";
import { stackOrder } from "./stackingPrograms.js";
import { byDrapeHeight, CLOTH_LABEL, optionCategory } from "./deformablePrograms.js";
import { enclosureAnswer, graphEnclosureCount } from "./enclosurePrograms.js";
import { changeDecision, graphBoxPhases, viewRecords, type ViewRecord } from "./changePrograms.js";
import { mirrorCorrespondenceProgram, mirrorSpatialProgram, reflectionAuthoringProgram } from "./mirrorPrograms.js";
import { actionOrderProgram } from "./actionOrderPrograms.js";
import { agentObservationProgram } from "./agentObservationPrograms.js";

/** Distance scales at which a decision counts as certain (m or relative), per rule. */
const CONFIDENCE_SCALE = {
  triangleRelative: TRIANGLE_EQUAL_SIDE_TOL,
  collinearM: COLLINEAR_TOL_M,
  touchingM: TOUCHING_GAP_M,
  distanceRelative: 0.3,
  volumeRelative: 0.5,
  insideM: 0.02,
  /** Rigid Containment: a clearance this large (m) between the object and the walls is certain. */
  fitM: 0.03,
  /** Liquid Volume: the rule's smallest interior ratio (core/task/rules.ts) counts as certain. */
  liquidRelative: LIQUID_VOLUME_MIN_RATIO - 1,
};

/** Geometric Configuration: a longest side below this (m) is no triangle. Our choice: a tenth of the suite's smallest objects. */
const MIN_TRIANGLE_SIDE_M = 0.01;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const spaced = (s: string) => s.replace(/_/g, " ");
/** Confidence of a label answer: halfway to 1 by the share of the node's points that carry the label. */
const labelConfidence = (n: GraphNode) => Math.round((0.5 + 0.5 * (n.label_distribution[n.label] ?? 1)) * 1000) / 1000;

/**
 * What a program sees: the graph, the question, its referents resolved to nodes (null: not in the graph), the
 * trace so far, and whether to weigh the graph's evidence (`--uncertainty on`: countEvidence.ts).
 */
interface ProgramInput {
  g: SceneGraph;
  /** the views the graph was built from: phase, action and camera (the bundle's record); absent: a graph alone */
  views?: readonly ViewRecord[];
  q: Query;
  refs: Array<GraphNode | null>;
  trace: string[];
  uncertainty: boolean;
}

/** How the programs read the graph: every node at face value (off, the default) or weighed by its evidence (on). */
interface DecideOptions {
  uncertainty?: boolean;
  views?: readonly ViewRecord[];
}
type Program = (p: ProgramInput) => Decision;

/** The name of the question's i-th referent, or what stands for it when the question names fewer objects in words the detector knows. */
const referentName = (q: Query, i: number) => q.referents[i]?.name ?? `object ${i + 1} (the question names ${q.referents.length} in the detector's vocabulary)`;

/** The first `n` referents as nodes, or the name of the first one the graph lacks. */
function referents({ q, refs }: ProgramInput, n: number): GraphNode[] | string {
  for (let i = 0; i < n; i++) if (!refs[i]) return referentName(q, i);
  return refs.slice(0, n) as GraphNode[];
}

const triangle: Program = (p) => {
  const ns = referents(p, 3);
  if (typeof ns === "string") return declined(`${ns} is not in the graph`, p.trace);
  const [a, b, c] = ns as [GraphNode, GraphNode, GraphNode];
  const sides: [number, number, number] = [xyDist(b, c), xyDist(c, a), xyDist(a, b)];
  // three nodes at one place (a collapsed reconstruction) make no triangle: the class would be a guess
  if (Math.max(...sides) < MIN_TRIANGLE_SIDE_M)
    return declined(`the three objects' centres lie within ${MIN_TRIANGLE_SIDE_M} m of each other (sides ${sides.map(r3).join(", ")} m): no triangle`, p.trace);
  const kind = classifyTriangle(sides);
  p.trace.push(`sides ${sides.map(r3).join(", ")} m -> ${kind}`);
  return { answer: kind, confidence: marginConfidence(triangleMargin(sides), CONFIDENCE_SCALE.triangleRelative), trace: p.trace };
};

const alignment: Program = (p) => {
  const ns = referents(p, p.q.referents.length);
  if (typeof ns === "string") return declined(`${ns} is not in the graph`, p.trace);
  const res = collinearityResidual(ns.map((n) => n.centroid));
  p.trace.push(`collinearity residual ${r3(res)} m (tolerance ${COLLINEAR_TOL_M})`);
  return {
    answer: res <= COLLINEAR_TOL_M ? "yes" : "no",
    confidence: marginConfidence(Math.abs(res - COLLINEAR_TOL_M), CONFIDENCE_SCALE.collinearM),
    trace: p.trace,
  };
};

const contact: Program = (p) => {
  const ns = referents(p, 2);
  if (typeof ns === "string") return declined(`${ns} is not in the graph`, p.trace);
  const d = closest(p.g, ns[0]!, ns[1]!);
  p.trace.push(`closest distance ${r3(d)} m (touching <= ${TOUCHING_GAP_M})`);
  return { answer: d <= TOUCHING_GAP_M ? "yes" : "no", confidence: marginConfidence(Math.abs(d - TOUCHING_GAP_M), CONFIDENCE_SCALE.touchingM), trace: p.trace };
};

const transparency: Program = (p) => {
  const container = p.refs[0];
  if (!container) return declined(`${referentName(p.q, 0)} is not in the graph`, p.trace);
  // a question whose object is in no word the detector knows: nothing to look for inside, so no evidence of absence
  if (!p.q.referents[1]) return declined(`${referentName(p.q, 1)}: no object to look for inside ${container.label}`, p.trace);
  const obj = p.refs[1];
  if (!obj) {
    // the container is there and nothing of the object: the graph's evidence is that nothing is inside
    p.trace.push(`${referentName(p.q, 1)} not in the graph: nothing is seen inside`);
    return { answer: "no", confidence: 0.5, trace: p.trace };
  }
  const rel = p.g.relations.find((r) => r.predicate === "inside" && r.subject === obj.id && r.object === container.id);
  p.trace.push(rel ? `inside, margin ${rel.margin_m} m` : "no inside relation");
  return { answer: rel ? "yes" : "no", confidence: rel ? marginConfidence(rel.margin_m, CONFIDENCE_SCALE.insideM) : 0.75, trace: p.trace };
};

const distance: Program = (p) => {
  const [ref, ...objs] = p.refs;
  if (!ref) return declined(`${referentName(p.q, 0)} is not in the graph`, p.trace);
  const scored = p.q.referents.slice(1).map((r, i) => ({ name: r.name, d: objs[i] ? boxDistance(objs[i]!.box, ref.box) : Infinity }));
  scored.sort((x, y) => x.d - y.d);
  scored.forEach((s) => p.trace.push(`${s.name}: ${Number.isFinite(s.d) ? r3(s.d) + " m" : "not found"} from ${ref.id}`));
  const [near, far] = scored;
  if (!near || !Number.isFinite(near.d)) return declined("none of the objects to compare is in the graph", p.trace);
  const answer = optionNaming(p.q.options, near.name);
  if (!answer) return declined(`no option names ${near.name}`, p.trace);
  const ratio = far && Number.isFinite(far.d) && near.d > 0 ? far.d / near.d - 1 : 1;
  return { answer, confidence: marginConfidence(ratio, CONFIDENCE_SCALE.distanceRelative), trace: p.trace };
};

const size: Program = (p) => {
  // the two copies of the task's category, and the references (the options) next to them
  const refCats = p.q.referents.filter((r) => r.role === "reference");
  const objCat = p.q.referents.find((r) => r.role === "target")!.category;
  const copies = p.g.nodes
    .filter((n) => n.label === objCat)
    .sort((a, b) => b.raw_point_count - a.raw_point_count)
    .slice(0, 2);
  if (copies.length < 2) return declined(`the graph has fewer than two ${spaced(objCat)}s`, p.trace);
  const bigger = !/smaller/.test(p.q.question);
  const [big, small] = [...copies].sort((a, b) => b.volume_m3 - a.volume_m3) as [GraphNode, GraphNode];
  const target = bigger ? big : small;
  const dists = resolve(p.g, refCats).map((n) => (n ? boxDistance(n.box, target.box) : Infinity));
  const k = dists.indexOf(Math.min(...dists));
  p.trace.push(
    `volumes ${copies.map((c) => `${c.id} ${c.volume_m3}`).join(", ")} m3; asked ${bigger ? "bigger" : "smaller"} -> ${target.id}; nearest reference ${refCats[k]!.name}`,
  );
  const answer = optionNaming(p.q.options, refCats[k]!.category);
  if (!answer) return declined(`no option names ${refCats[k]!.category}`, p.trace);
  const ratio = small.volume_m3 > 0 ? big.volume_m3 / small.volume_m3 - 1 : 1;
  return { answer, confidence: marginConfidence(ratio, CONFIDENCE_SCALE.volumeRelative), trace: p.trace };
};

const occlusion: Program = (p) => {
  const occ = p.refs[0];
  if (!occ) return declined(`${referentName(p.q, 0)} is not in the graph`, p.trace);
  const supports = supportNodes(p.g);
  const others = p.g.nodes
    .filter((n) => n.id !== occ.id && !supports.has(n.id))
    .map((n) => ({ n, d: boxDistance(n.box, occ.box) }))
    .sort((a, b) => a.d - b.d);
  if (!others[0]) return declined("the graph has no object next to the occluder", p.trace);
  const hidden = others[0].n;
  p.trace.push(`nearest object to ${occ.id}: ${hidden.id} (${hidden.label}, ${r3(others[0].d)} m)`);
  const answer = optionNaming(p.q.options, hidden.label);
  if (!answer) return declined(`no option names the label ${hidden.label}`, p.trace);
  return { answer, confidence: labelConfidence(hidden), trace: p.trace };
};

const hallucination: Program = (p) => {
  const n = lookedAt(p.g, p.q);
  if (!n) return declined("the graph has no object in front of the viewer", p.trace);
  p.trace.push(`object on the optical axis: ${n.id} (${n.label})`);
  const answer = optionNaming(p.q.options, n.label);
  if (!answer) return declined(`no option names the label ${n.label}`, p.trace);
  return { answer, confidence: labelConfidence(n), trace: p.trace };
};

const counting: Program = (p) => {
  const cat = p.q.countCategory;
  if (!cat) return declined("the question names no category to count", p.trace);
  const counted = p.g.nodes.filter((n) => n.label === cat);
  const doubtful = counted.filter((n) => n.flags.possible_duplicate_of.length || n.flags.low_support || n.flags.fragment).length;
  if (!p.uncertainty) {
    const answer = nearestOption(p.q.options, counted.length);
    p.trace.push(`${counted.length} node(s) labelled ${cat} (${doubtful} flagged) -> option ${answer}`);
    const confidence = Math.round((counted.length === Number(answer) ? 1 : 0.5) * (1 - 0.5 * (doubtful / Math.max(1, counted.length))) * 1000) / 1000;
    return { answer, confidence, trace: p.trace };
  }
  const res = resolveDuplicates(counted);
  p.trace.push(...res.merges);
  const answer = nearestOption(p.q.options, res.estimate);
  p.trace.push(
    `${counted.length} node(s) labelled ${cat}, ${res.count} object(s) after resolving duplicates, ${res.weak} seen only weakly, at most ${res.seenTogether} in one view (count ${res.estimate}) -> option ${answer}`,
  );
  // each merge is a judgement that could be wrong: confidence falls with the share of nodes merged away
  const merged = counted.length - res.count;
  const confidence = Math.round((res.count === Number(answer) ? 1 : 0.5) * (1 - 0.5 * (merged / Math.max(1, counted.length))) * 1000) / 1000;
  return { answer, confidence, trace: p.trace };
};

/**
 * Structural Enclosure: the target nodes the graph has, plus the fill prior's expected value over the closed boxes
 * (a lid node resting on them, a microwave) with no target node inside (enclosurePrograms.ts). With no closed box
 * the count is the answer, as in counting.
 */
const enclosure: Program = (p) => {
  const cat = p.q.countCategory;
  if (!cat) return declined("the question names no category to count", p.trace);
  const g = graphEnclosureCount(p.g.nodes, cat);
  const d = enclosureAnswer(p.q.options, g.seen, g.unseen);
  p.trace.push(g.trace, d.trace);
  return { answer: d.answer, confidence: d.confidence, trace: p.trace };
};

/** How an option names a referent: ESI's options drop the article ("medium packing box"). */
const optionOf = (q: Query, name: string) => optionNaming(q.options, name) ?? optionNaming(q.options, name.replace(/^the /, ""));

/**
 * Rigid Containment: the containee's box against each container node's interior (the graph's estimate from the
 * box and the label's wall model); the answer is the smallest interior it fits, by the generator's rule.
 */
const containment: Program = (p) => {
  const ns = referents(p, p.q.referents.length);
  if (typeof ns === "string") return declined(`${ns} is not in the graph`, p.trace);
  const [obj, ...boxes] = ns as [GraphNode, ...GraphNode[]];
  const noInterior = boxes.find((n) => !n.interior);
  if (noInterior) return declined(`node ${noInterior.id} (${noInterior.label}) carries no interior: its label is no open container`, p.trace);
  const margins = boxes.map((n) => fitMargin(obj.box.extent, n.interior!.extent));
  boxes.forEach((n, k) =>
    p.trace.push(
      `${referentName(p.q, k + 1)}: interior ${n.interior!.extent.map(r3).join(" x ")} m (${r3(n.interior!.volume_m3 * 1000)} L), clearance ${r3(margins[k]!)} m`,
    ),
  );
  const best = bestFit(
    obj.box.extent,
    boxes.map((n, k) => ({ item: k, interior: n.interior! })),
  );
  if (best === null) return declined(`${referentName(p.q, 0)} (${obj.box.extent.map(r3).join(" x ")} m) fits none of the containers`, p.trace);
  const answer = optionOf(p.q, referentName(p.q, best + 1));
  if (!answer) return declined(`no option names ${referentName(p.q, best + 1)}`, p.trace);
  // how far from flipping: the chosen one's clearance, and the nearest smaller container's shortfall
  const smaller = boxes
    .map((n, k) => ({ n, k }))
    .filter(({ n }) => n.interior!.volume_m3 < boxes[best]!.interior!.volume_m3)
    .map(({ k }) => -margins[k]!);
  return { answer, confidence: marginConfidence(Math.min(margins[best]!, ...smaller), CONFIDENCE_SCALE.fitM), trace: p.trace };
};

/** Liquid Volume: the two vessel nodes' interior volumes (the graph's estimate); the larger holds more. */
const liquid: Program = (p) => {
  const ns = referents(p, 2);
  if (typeof ns === "string") return declined(`${ns} is not in the graph`, p.trace);
  const noInterior = ns.find((n) => !n.interior);
  if (noInterior) return declined(`node ${noInterior.id} (${noInterior.label}) carries no interior: its label is no open container`, p.trace);
  const [a, b] = ns as [GraphNode, GraphNode];
  const va = a.interior!.volume_m3,
    vb = b.interior!.volume_m3;
  p.trace.push(`interiors ${r3(va * 1000)} L vs ${r3(vb * 1000)} L (boxes ${r3(a.volume_m3 * 1000)} L vs ${r3(b.volume_m3 * 1000)} L)`);
  const k = va >= vb ? 0 : 1;
  const answer = optionOf(p.q, referentName(p.q, k));
  if (!answer) return declined(`no option names ${referentName(p.q, k)}`, p.trace);
  const lo = Math.min(va, vb);
  return { answer, confidence: marginConfidence(lo > 0 ? Math.max(va, vb) / lo - 1 : 1, CONFIDENCE_SCALE.liquidRelative), trace: p.trace };
};

/**
 * Inclined Plane: the board's tilt as its node's fitted top plane shows it; then shape (slopePrior.ts): an object
 * without a flat bottom rolls, one whose node is narrower than tall for the tilt tips; friction, unseen, from the
 * named prior. Declines where the graph has no board, no tilt for it, or no object.
 */
const inclinedPlane: Program = (p) => {
  const k = p.q.referents.findIndex((r) => r.category === BOARD_CATEGORY);
  const board = k >= 0 ? p.refs[k] : null;
  if (!board) return declined(`the ${BOARD_CATEGORY} is not in the graph`, p.trace);
  const tilt = board.physics?.top_tilt_deg ?? null;
  if (tilt === null)
    return declined(
      board.physics
        ? `too few points on top of ${board.id} (${board.label}) to fit its tilt`
        : `node ${board.id} (${board.label}) carries no physical attributes (a graph written before they were recorded)`,
      p.trace,
    );
  const j = p.q.referents.findIndex((r) => r.category !== BOARD_CATEGORY);
  const object = j >= 0 ? p.refs[j] : null;
  if (!object) return declined(`${j >= 0 ? referentName(p.q, j) : "the object"} is not in the graph`, p.trace);
  p.trace.push(`${board.id}: top tilted ${tilt} deg (fit RMS ${board.physics!.top_fit_rms_m} m)`);
  if (rollsByShape(object.label)) {
    p.trace.push(`${object.id} (${object.label}): no flat bottom, it rolls`);
    return { ...slopeAnswer(0), trace: p.trace };
  }
  // it tips over its lower edge the soonest across its narrower side
  const width = Math.min(object.box.extent[0], object.box.extent[1]);
  const height = object.physics?.height_m ?? object.box.extent[2];
  const tips = tippingTiltDeg(width, height);
  if (tilt > tips) {
    p.trace.push(`${object.id} (${object.label}): ${r3(width)} m wide, ${r3(height)} m tall, tips past ${r3(tips)} deg`);
    return { ...slopeAnswer(0), trace: p.trace };
  }
  const chance = stayChance(tilt);
  p.trace.push(
    `${object.id} (${object.label}) stands (tips past ${r3(tips)} deg); friction unseen, prior U[0.3, 3.0]: P(stays) = P(friction > tan ${tilt} deg) = ${r3(chance)} ` +
      `(median ${MEDIAN_STATIC_FRICTION}: critical tilt ${r3(CRITICAL_TILT_DEG)} deg)`,
  );
  return { ...slopeAnswer(chance), trace: p.trace };
};

/**
 * Stacking & Stability: each item (the question's options) is the largest node with its label; the order follows
 * its label's flat faces, then its box's footprint (stackingPrograms.ts). Where each object lands and what it
 * weighs are in no graph.
 */
const stacking: Program = (p) => {
  const evidence = [];
  for (const item of p.q.options) {
    const node = p.g.nodes.filter((n) => n.label === item).sort((a, b) => b.raw_point_count - a.raw_point_count)[0];
    if (!node) return declined(`${item} is not in the graph`, p.trace);
    evidence.push({ item, label: node.label, footprint: node.box.extent[0] * node.box.extent[1] });
  }
  return stackOrder(evidence, p.trace);
};

/**
 * Deformable (deformablePrograms.ts): an option's object in the graph (the cloth was lifted) is the answer; else the
 * drape's node's top above the floor (the graph's world frame has the floor at z = 0) against each option's typical
 * height.
 */
const deformable: Program = (p) => {
  const largest = (ns: GraphNode[]) => ns.sort((a, b) => b.raw_point_count - a.raw_point_count)[0];
  const seen = largest(p.g.nodes.filter((n) => p.q.options.some((o) => optionCategory(o) === n.label)));
  if (seen) {
    p.trace.push(`${seen.id} (${seen.label}) is in the graph: the object the cloth covered, seen`);
    return { answer: optionNaming(p.q.options, seen.label) ?? spaced(seen.label), confidence: labelConfidence(seen), trace: p.trace };
  }
  const cloth = largest(p.g.nodes.filter((n) => n.label === CLOTH_LABEL));
  if (!cloth) return declined(`neither the ${CLOTH_LABEL} nor any option's object is in the graph`, p.trace);
  return byDrapeHeight(p.q.options, cloth.aabb.max[2], p.trace, `${cloth.id} (${CLOTH_LABEL})`);
};

/**
 * Unobserved Change (changePrograms.ts): each box node's contents in each phase (the graph's time record), counted
 * from the views of that phase after the views' own act opened it. Without the views' record a graph shows no box
 * opened (the change is unknown), except a truth graph, which holds every box's contents.
 */
const unobservedChange: Program = (p) => changeDecision(p.q.options, graphBoxPhases(p.g, p.q.options, p.views ?? null), p.trace);

/** The program of each built-in subcategory. */
const PROGRAMS: Record<BuiltinSubcategory, Program> = {
  geometric_configuration: triangle,
  linear_alignment: alignment,
  physical_contact: contact,
  material_transparency: transparency,
  spatial_distance: distance,
  dimensional_size: size,
  partial_occlusion: occlusion,
  view_hallucination: hallucination,
  counting_with_occlusion: counting,
  spatial_segmentation: counting,
  merged_observation: counting,
  category_ambiguity: counting,
  illumination_variability: counting,
  rigid_containment: containment,
  liquid_volume: liquid,
  connectivity: (p) => connectivityProgram(p),
  traversable_passage: (p) => traversableProgram(p),
  regional_boundary: (p) => regionalProgram(p),
  long_term_navigation: (p) => navigationProgram(p),
  inclined_plane: inclinedPlane,
  stacking_stability: stacking,
  structural_enclosure: enclosure,
  deformable,
  reflection_authoring: (p) => reflectionAuthoringProgram(p.g, p.q, p.trace),
  mirror_spatial_relations: (p) => mirrorSpatialProgram(p.g, p.q, p.trace),
  mirror_correspondence: (p) => mirrorCorrespondenceProgram(p.g, p.q, p.trace),
  unobserved_change: unobservedChange,
  agent_observation: (p) => agentObservationProgram(p.g, p.q, p.trace),
  action_order_inference: (p) => actionOrderProgram(p.g, p.q, p.trace),
};

/**
 * Runs the subcategory's program over the graph (a subcategory without one is unanswerable here).
 * @internal Tests call it directly too: they pose hand-built queries on label-only graphs, which the reasoner,
 * building its query from a task, cannot be given.
 */
export function decide(g: SceneGraph, q: Query, opts: DecideOptions = {}): Decision {
  const refs = resolve(g, q.referents);
  const trace = q.referents.map((r, i) => `${r.name} -> ${refs[i]?.id ?? "not found"}`);
  const program = PROGRAMS[q.subcategory as BuiltinSubcategory] as Program | undefined;
  if (!program) return declined(`no program for ${q.subcategory} (no graph program answers it)`, trace);
  const d = program({ g, q, refs, trace, uncertainty: opts.uncertainty === true, ...(opts.views ? { views: opts.views } : {}) });
  if (!opts.uncertainty || "unanswerable" in d) return d;
  // near-margin relations already read as less sure (marginConfidence); a referent seen weakly makes them less sure still
  const weak = refs.filter((n) => n?.flags.low_support).length;
  if (weak === 0) return d;
  const confidence = weighedConfidence(d.confidence, weak);
  return { ...d, confidence, trace: [...d.trace, `${weak} referent node(s) low-support: confidence ${d.confidence} -> ${confidence}`] };
}

export function createSymbolicReasoner(): Reasoner {
  return programReasoner("symbolic", "graph", "program", (input, q) => {
    if (!input.graph) throw new Error("the symbolic reasoner needs a scene graph");
    const views = input.bundle ? viewRecords(input.bundle.manifest) : undefined;
    return decide(input.graph, q, { uncertainty: input.uncertainty === true, ...(views ? { views } : {}) });
  });
}
