/**
 * Unobserved Change's programs (ESI Q.13): what each box held in Phase 1 and in Phase 2, as the views of each phase
 * showed it, then ESI's three questions (did any box change; what happened to the box; which coloured box changed).
 * A box's contents count as seen in a phase only from the views after the views' own `open` act on it in that phase
 * (the action each view records); a box never opened in a phase leaves that phase unknown, and a question that needs it is
 * declined (decision.ts): closed boxes are no evidence of what is inside. Neither arm reads the task's label.
 */
import { inFootprint } from "../../core/geometry.js";
import { colourDistance, namedColorRgb } from "../../core/task/palette.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { declined, type Decision } from "./decision.js";
import { isLidLabel, isBoxLabel } from "./enclosurePrograms.js";
import { cameraCentre } from "../../core/math/camera.js";
import type { Mat34 } from "../../core/math/vec.js";

/** ESI's change types (batch_unobserved_changes.py CHANGE_TYPES), the identification question's options. */
const CHANGE_OPTIONS = ["replace", "remove", "add", "no_change"];
/** Confidence of an answer read from both phases' views of every box the question needs. Ours: a label can be wrong. */
const SEEN_CONFIDENCE = 0.9;

/** What one box held in each phase: the labels seen inside it, or null when no view of that phase saw into it. */
export interface BoxPhases {
  name: string;
  phases: Array<string[] | null>;
}

/** A box's change from what each phase showed (null: a phase unseen). */
function changeOf(b: BoxPhases): string | null {
  const [before, after] = [b.phases[0], b.phases[1]];
  if (!before || !after) return null;
  if (before.length === 0 && after.length === 0) return "no_change";
  if (before.length === 0) return "add";
  if (after.length === 0) return "remove";
  return before.some((l) => after.includes(l)) ? "no_change" : "replace";
}

const describe = (b: BoxPhases) =>
  `${b.name}: ${b.phases.map((p, k) => `phase ${k + 1} ${p === null ? "not seen into" : p.length ? p.join(", ") : "empty"}`).join("; ")}`;

/** The question's form from its options alone: yes/no, the change types, or coloured boxes. */
export function changeQuestionForm(options: readonly string[]): "detection" | "identification" | "which_box" {
  if (options.length === 2 && options.includes("yes")) return "detection";
  if (CHANGE_OPTIONS.every((o) => options.includes(o))) return "identification";
  return "which_box";
}

/** ESI's answer from the boxes' phases; declines where a box the answer needs was not seen into in a phase. */
export function changeDecision(options: readonly string[], boxes: readonly BoxPhases[], trace: string[]): Decision {
  if (boxes.length === 0) return declined("no box is in the evidence", trace);
  trace.push(...boxes.map(describe));
  const changes = boxes.map(changeOf);
  const form = changeQuestionForm(options);
  if (form === "which_box") {
    const changed = boxes.filter((_, i) => changes[i] !== null && changes[i] !== "no_change");
    const unknown = boxes.filter((_, i) => changes[i] === null);
    if (changed.length === 1 && unknown.length === 0) return { answer: changed[0]!.name, confidence: SEEN_CONFIDENCE, trace };
    if (changed.length === 1)
      return { answer: changed[0]!.name, confidence: SEEN_CONFIDENCE / 2, trace: [...trace, `${unknown.length} box(es) not seen in both phases`] };
    return declined(
      changed.length
        ? `${changed.length} boxes look changed`
        : `no box seen in both phases changed (${unknown.map((b) => b.name).join(", ") || "none"} unseen)`,
      trace,
    );
  }
  const box = boxes[0]!;
  const change = changes[0] ?? null;
  if (change === null) return declined(`${box.name} was not seen into in both phases`, trace);
  if (form === "detection") return { answer: change === "no_change" ? "no" : "yes", confidence: SEEN_CONFIDENCE, trace };
  return { answer: change, confidence: SEEN_CONFIDENCE, trace };
}

/** The box a coloured-box option names: the box whose colour is nearest the option's colour word. */
export function optionColour(option: string): string {
  return option.replace(/ box$/, "");
}

/** Of items with a mean colour, the one nearest a colour name (null: an unknown name or no item). */
export function nearestColoured<T>(items: readonly T[], rgb: (t: T) => readonly number[], name: string): T | null {
  const want = namedColorRgb(name);
  if (!want) return null;
  return [...items].sort((a, b) => colourDistance(rgb(a), want) - colourDistance(rgb(b), want))[0] ?? null;
}

/** Of coloured-box options, the one whose colour is nearest a mean colour. */
export function nearestNamed(options: readonly string[], rgb: readonly number[]): string {
  return [...options].sort(
    (a, b) => colourDistance(rgb, namedColorRgb(optionColour(a)) ?? [0, 0, 0]) - colourDistance(rgb, namedColorRgb(optionColour(b)) ?? [0, 0, 0]),
  )[0]!;
}

const top = (n: GraphNode) => n.box.centre[2] + n.box.extent[2] / 2;
const bottom = (n: GraphNode) => n.box.centre[2] - n.box.extent[2] / 2;
const pointInBox = (p: readonly number[], box: GraphNode) => inFootprint(box.box, p[0]!, p[1]!) && p[2]! >= bottom(box) && p[2]! <= top(box);
/** The paradigm a truth graph names (scenegraph/truth.ts): the oracle, built from the task's objects, not from views. */
const TRUTH_PARADIGM = "truth";

/** What a program knows of each view of the evidence: its phase, the action that led to it, where the camera was. */
export interface ViewRecord {
  phase: number;
  action: string | null;
  centre: readonly number[];
}

/** The views of a bundle as the programs read them (a view without a phase: the world does not change, phase 0). */
export const viewRecords = (manifest: { views: ReadonlyArray<{ phase?: number; action: string | null; extrinsic: Mat34 }> }): ViewRecord[] =>
  manifest.views.map((v) => ({ phase: v.phase ?? 0, action: v.action, centre: cameraCentre(v.extrinsic) }));

/**
 * The 3D arm: each box node's contents per phase, from the graph. What each phase held comes from the graph's time
 * record (scenegraph/time.ts): the nodes inside a box seen in that phase (`time.seen_in`), and the diff's removals and
 * replacements there, which name what stood inside before (a graph without a time record: the nodes seen in that
 * phase's views). Whether a phase saw into a box at all comes from the views' own record: a lid node resting on a box
 * cannot be told from a noisy one beside it, so only the views after the views' own `open` act on it in that phase
 * count, the box opened being the nearest box node the act's view shows that was not opened yet in that phase. A
 * truth graph (the oracle, no views) holds every box's contents as they are: it sees into every box in every phase.
 */
export function graphBoxPhases(g: SceneGraph, options: readonly string[], views: readonly ViewRecord[] | null): BoxPhases[] {
  const nodes = g.nodes;
  const phases = g.time?.phases.length ?? Math.max(2, ...(views ?? []).map((v) => v.phase + 1));
  const boxes = nodes.filter((n) => isBoxLabel(n.label));
  const named: Array<{ name: string; box: GraphNode }> = [];
  if (changeQuestionForm(options) === "which_box") {
    for (const o of options) {
      const box = nearestColoured(boxes, (n) => n.color, optionColour(o));
      if (box) named.push({ name: o, box });
    }
  } else {
    const box = [...boxes].sort((a, b) => b.raw_point_count - a.raw_point_count)[0];
    if (box) named.push({ name: "the box", box });
  }
  // the first view after each box node's opening, per phase: the act took the nearest box the view showed that was not
  // opened yet in that phase (the hands reach only what is near, and an open box does not open again)
  const openedFrom = new Map<string, number>();
  (views ?? []).forEach((v, i) => {
    if (!v.action?.startsWith("open(")) return;
    const d = (n: GraphNode) => Math.hypot(n.centroid[0] - v.centre[0]!, n.centroid[1] - v.centre[1]!);
    const candidates = boxes.filter((n) => n.views.includes(i) && !openedFrom.has(`${n.id}@${v.phase}`)).sort((a, b) => d(a) - d(b));
    if (candidates[0]) openedFrom.set(`${candidates[0].id}@${v.phase}`, i);
  });
  const oracle = views === null && g.paradigm === TRUTH_PARADIGM;
  return named.map(({ name, box }) => {
    const contents = nodes.filter((n) => n !== box && !isBoxLabel(n.label) && !isLidLabel(n.label) && pointInBox(n.box.centre, box));
    // what the diff says stood inside before a change in phase p: there in phase p - 1
    const before = (p: number) =>
      (g.time?.changes ?? [])
        .filter((c) => c.phase === p + 1 && (c.change === "removed" || c.change === "replaced") && pointInBox(c.at, box))
        .map((c) => (c.change === "replaced" ? c.was! : c.label));
    const seenIn = (n: GraphNode, p: number, from: number) =>
      n.time ? n.time.seen_in.includes(p) : n.views.some((i) => i >= from && (views?.[i]?.phase ?? 0) === p);
    return {
      name,
      phases: Array.from({ length: phases }, (_, p) => {
        const from = oracle ? 0 : openedFrom.get(`${box.id}@${p}`);
        if (from === undefined) return null;
        return [...new Set([...contents.filter((n) => seenIn(n, p, from)).map((n) => n.label), ...before(p)])];
      }),
    };
  });
}
