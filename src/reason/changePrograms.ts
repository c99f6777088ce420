/**
 * Unobserved Change's programs (ESI Q.13): what each box held in Phase 1 and in Phase 2, as the views of each phase
 * showed it, then ESI's three questions (did any box change; what happened to the box; which coloured box changed).
 * A box's contents count as seen in a phase only from the views after the views' own `open` act on it in that phase
 * (the action each view records); a box never opened in a phase leaves that phase unknown, and a question that needs it is
 * declined (decision.ts): closed boxes are no evidence of what is inside. Neither arm reads the task's label.
 */
import { inFootprint } from "../../core/geometry.js";
import { colourDistance, namedColorRgb } from "../../core/task/palette.js";
import type { GraphNode } from "../../scenegraph/types.js";
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
const insideBox = (n: GraphNode, box: GraphNode) =>
  inFootprint(box.box, n.box.centre[0], n.box.centre[1]) && n.box.centre[2] >= bottom(box) && n.box.centre[2] <= top(box);

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
 * The 3D arm: each box node's contents per phase, from the graph and the views' own record. A lid node resting on a
 * box cannot be told from a noisy one beside it, so a phase saw into a box only after the views' own `open` act in
 * that phase: the box opened is the nearest box node the view of the act shows that was not opened yet in that phase. Its contents in that phase are the nodes inside its box seen in the views from the act on.
 */
export function graphBoxPhases(nodes: readonly GraphNode[], options: readonly string[], views: readonly ViewRecord[]): BoxPhases[] {
  const phases = Math.max(2, ...views.map((v) => v.phase + 1));
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
  views.forEach((v, i) => {
    if (!v.action?.startsWith("open(")) return;
    const d = (n: GraphNode) => Math.hypot(n.centroid[0] - v.centre[0]!, n.centroid[1] - v.centre[1]!);
    const candidates = boxes.filter((n) => n.views.includes(i) && !openedFrom.has(`${n.id}@${v.phase}`)).sort((a, b) => d(a) - d(b));
    if (candidates[0]) openedFrom.set(`${candidates[0].id}@${v.phase}`, i);
  });
  return named.map(({ name, box }) => {
    const contents = nodes.filter((n) => n !== box && !isBoxLabel(n.label) && !isLidLabel(n.label) && insideBox(n, box));
    return {
      name,
      phases: Array.from({ length: phases }, (_, p) => {
        const from = openedFrom.get(`${box.id}@${p}`);
        if (from === undefined) return null;
        const into = (i: number) => i >= from && views[i]?.phase === p;
        return [...new Set(contents.filter((n) => n.views.some(into)).map((n) => n.label))];
      }),
    };
  });
}
