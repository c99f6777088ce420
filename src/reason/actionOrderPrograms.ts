/**
 * Action Order Inference's programs (ESI-Bench's batch_action.py; the generator bridge/sim/generate/actionOrder.ts).
 * The question names a base category A, a fixed object B and (with 3 roles) a top category C, and offers for each
 * role the two relations its candidates have to B in the question's image. A program measures each candidate's
 * footprint and B's, applies ESI's fit rule (core/task/rules.ts footprintFitMargin: the upper's spans within the
 * lower's; B is the upper on an A, a C the upper on B), takes the candidate with the larger margin, and names it by
 * where it lies from B (viewRelation). The arms differ in what they measure:
 * - 3D (the graph): each node's world AABB spans and its centroid, the relation in the question's camera frame;
 * - 2D (view 0's masks): each mask's width in pixels (no depth: as Dimensional Size's 2D program compares areas,
 *   a nearer candidate looks larger) and its image offset from B's mask.
 * Neither reads the task's objects, its answer or label_metadata.
 */
import { sub } from "../../core/math/vec.js";
import { footprintFitMargin, viewRelation } from "../../core/task/rules.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { declined, marginConfidence, type Decision } from "./decision.js";
import type { MirrorMask } from "./mirrorPrograms2d.js";
import type { Query } from "./query.js";

/** One role of the question: its part key, its category (a graph label) and the two relations offered. */
interface RolePart {
  key: string;
  category: string;
  options: [string, string];
}

export interface ActionOrderQuestion {
  /** B's label */
  fixed: string;
  /** the base role (A), then the top role (C) when the question has one */
  parts: RolePart[];
}

const label = (words: string) => words.trim().replace(/ /g, "_");

// ESI's two templates (batch_action.py qa_per_view), with the categories written with spaces or underscores
const THREE_ROLES =
  /Which (.+?) should go under the (.+?) as its base, and which (.+?) should go on top of the \2\? The \1 to the (\w+) or (\w+) of the \2\? The \3 to the (\w+) or (\w+) of the \2\?/i;
const TWO_ROLES = /Which (.+?) should you place under the (.+?) as its base\W+the one to the (\w+) or the one to the (\w+) of the \2\?/i;

/** The roles and relation pairs of an Action Order question (ESI's or the built-in one), or null when it is neither. */
export function parseActionOrderQuestion(question: string): ActionOrderQuestion | null {
  const three = THREE_ROLES.exec(question);
  if (three)
    return {
      fixed: label(three[2]!),
      parts: [
        { key: "A", category: label(three[1]!), options: [three[4]!, three[5]!] },
        { key: "C", category: label(three[3]!), options: [three[6]!, three[7]!] },
      ],
    };
  const two = TWO_ROLES.exec(question);
  if (two) return { fixed: label(two[2]!), parts: [{ key: "A", category: label(two[1]!), options: [two[3]!, two[4]!] }] };
  return null;
}

/** What an arm measured of one candidate: its footprint clearance against its target and its relation to B. */
interface Candidate {
  name: string;
  /** footprintFitMargin with this candidate in its role (m or px) */
  margin: number;
  relation: string;
}

/** A margin gap of this share of B's side makes the choice certain (marginConfidence's scale). Ours: ESI's pairs differ by 0.37-0.62 of it. */
const MARGIN_GAP_CERTAIN = 0.3;

/**
 * The part's answer: the candidate with the larger fit margin, named by its relation; when that relation is not one
 * the question offers (a noisy centroid across a diagonal), the offered one the other candidate does not take.
 */
function choosePart(part: RolePart, candidates: [Candidate, Candidate], scale: number, trace: string[]): { answer: string; confidence: number } | string {
  const [best, other] = candidates[0].margin >= candidates[1].margin ? candidates : [candidates[1], candidates[0]];
  for (const c of candidates) trace.push(`${part.key} ${c.name}: fit margin ${c.margin.toPrecision(3)}, ${c.relation} of B`);
  let answer = part.options.find((o) => o === best.relation);
  if (!answer) answer = part.options.find((o) => o !== other.relation && part.options.includes(other.relation));
  if (!answer) return `neither ${part.key} candidate lies ${part.options.join(" or ")} of B`;
  return { answer, confidence: marginConfidence((best.margin - other.margin) / scale, MARGIN_GAP_CERTAIN) };
}

/** Runs every part and writes the parts' answer (the canonical text: keys in the question's order). */
function decideParts(
  q: ActionOrderQuestion,
  measure: (part: RolePart) => { candidates: [Candidate, Candidate]; scale: number } | string,
  trace: string[],
): Decision {
  const out: Record<string, string> = {};
  let confidence = 1;
  for (const part of q.parts) {
    const m = measure(part);
    if (typeof m === "string") return declined(m, trace);
    const c = choosePart(part, m.candidates, m.scale, trace);
    if (typeof c === "string") return declined(c, trace);
    out[part.key] = c.answer;
    confidence = Math.min(confidence, c.confidence);
  }
  return { answer: JSON.stringify(out), confidence, trace };
}

const spans = (n: GraphNode): [number, number] => [n.aabb.max[0] - n.aabb.min[0], n.aabb.max[1] - n.aabb.min[1]];

/** The 3D arm: the graph's nodes of each label (the most-supported ones), their AABB spans and centroids. */
export function actionOrderProgram(g: SceneGraph, q: Query, trace: string[]): Decision {
  const parsed = parseActionOrderQuestion(q.question);
  if (!parsed) return declined("the question is not an Action Order question", trace);
  const nodes = (l: string) => g.nodes.filter((n) => n.label === l).sort((a, b) => b.raw_point_count - a.raw_point_count);
  const fixed = nodes(parsed.fixed)[0];
  if (!fixed) return declined(`no ${parsed.fixed} node`, trace);
  const bSpan = spans(fixed);
  trace.push(`B ${fixed.id} (${fixed.label}): spans ${bSpan.map((s) => s.toFixed(3)).join(" x ")} m`);
  const { yaw, pitch } = q.viewpoint;
  return decideParts(
    parsed,
    (part) => {
      const found = nodes(part.category).slice(0, 2);
      if (found.length < 2) return `${found.length} ${part.category} node(s), two candidates needed`;
      const candidates = found.map((n) => ({
        name: `${n.id}`,
        // B on a base: B is the upper; a top on B: the top is the upper
        margin: part.key === "A" ? footprintFitMargin(bSpan, spans(n)) : footprintFitMargin(spans(n), bSpan),
        relation: viewRelation(sub(n.centroid, fixed.centroid), yaw, pitch),
      })) as [Candidate, Candidate];
      return { candidates, scale: Math.min(...bSpan) };
    },
    trace,
  );
}

/** What the 2D arm reads of one mask: the fields the mirror programs read. */
type ActionMask = MirrorMask;

/** Image relation of a mask from B's: the larger of the horizontal and vertical offsets (image y grows down). */
function imageRelation(m: ActionMask, b: ActionMask): string {
  const dx = m.cx - b.cx,
    dy = b.cy - m.cy;
  if (Math.abs(dx) >= Math.abs(dy)) return dx > 0 ? "right" : "left";
  return dy > 0 ? "above" : "below";
}

const width = (m: ActionMask) => m.bbox[2] - m.bbox[0] + 1;
/** A mask's width on both axes: the only footprint side an image shows. */
const square = (m: ActionMask): [number, number] => [width(m), width(m)];

/** The 2D arm: the question's image (view 0), each label's largest masks, their widths and offsets from B's. */
export function actionOrder2d(masks: readonly ActionMask[], q: Query, trace: string[]): Decision {
  const parsed = parseActionOrderQuestion(q.question);
  if (!parsed) return declined("the question is not an Action Order question", trace);
  const of = (l: string) => masks.filter((m) => m.label === l).sort((a, b) => b.area - a.area);
  const fixed = of(parsed.fixed)[0];
  if (!fixed) return declined(`no ${parsed.fixed} mask in the question's image`, trace);
  trace.push(`B mask ${fixed.key} (${fixed.label}): ${width(fixed)} px wide`);
  return decideParts(
    parsed,
    (part) => {
      const found = of(part.category).slice(0, 2);
      if (found.length < 2) return `${found.length} ${part.category} mask(s) in the question's image, two candidates needed`;
      const candidates = found.map((m) => ({
        name: `mask ${m.key}`,
        margin: part.key === "A" ? footprintFitMargin(square(fixed), square(m)) : footprintFitMargin(square(m), square(fixed)),
        relation: imageRelation(m, fixed),
      })) as [Candidate, Candidate];
      return { candidates, scale: width(fixed) };
    },
    trace,
  );
}
