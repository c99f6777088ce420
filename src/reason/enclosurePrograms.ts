/**
 * Structural Enclosure's programs (ESI Q.23): count the targets, where a closed box may hide one no camera saw.
 * A box is closed while a lid rests on it (or it is a microwave, whose door ESI keeps shut); the seen targets
 * count as they are, and each closed box with no target seen inside adds the fill prior's expected value. Such
 * an answer is a guess over unseen contents, so its confidence is the prior's probability of exactly that count.
 * Neither program reads the task's label.
 */
import { footprintsOverlap, inFootprint } from "../../core/geometry.js";
import { LIBRARY } from "../../core/objects/library.js";
import type { GraphNode } from "../../scenegraph/types.js";
import { nearestOption } from "./decision.js";

/**
 * Chance that a closed box holds a target: ESI draws "a random subset of containers" (Q.23), every subset alike, so
 * each box holds one with probability 1/2; ESI-Bench's released sample has 8 of its 15 boxes filled (`contains_ball`).
 */
const ENCLOSURE_FILL_PRIOR = 0.5;
/** Library categories that close with a lid (flag `lid`). */
const LID_LABELS: ReadonlySet<string> = new Set([...LIBRARY.values()].filter((c) => c.flags.lid).map((c) => c.category));
/** Enclosures whose door is part of their model: ESI's released records keep every microwave closed (`open_state` false). */
const DOOR_LABELS: ReadonlySet<string> = new Set(["microwave"]);
/** What may enclose a target: the library's box containers and ESI's microwaves. */
const ENCLOSURE_LABELS: ReadonlySet<string> = new Set([
  ...[...LIBRARY.values()].filter((c) => c.flags.rigidContainer && c.flags.interior?.shape === "box").map((c) => c.category),
  ...DOOR_LABELS,
]);
/**
 * A lid node rests on a box node when it lies flat (its height under half its narrower side: a lid swung open
 * stands up), its bottom is within this (m) of the box's top, and their footprints overlap (a closed box's node
 * is often one wall, the rest hidden under the lid). Ours: a few centimetres, a reconstructed box's error at a few metres.
 */
const LID_REST_GAP_M = 0.04;

/** Probability that `k` of `n` closed boxes hold a target under the fill prior. */
function binomial(n: number, k: number, p = ENCLOSURE_FILL_PRIOR): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c * p ** k * (1 - p) ** (n - k);
}

export interface EnclosureAnswer {
  answer: string;
  confidence: number;
  trace: string;
}

/**
 * The answer from `seen` targets and `unseen` closed boxes no target was seen in: the option nearest the expected
 * count seen + prior x unseen; confidence 1 (0.5 off the options) with nothing unseen, else the prior's probability of it.
 */
export function enclosureAnswer(options: string[], seen: number, unseen: number): EnclosureAnswer {
  const expected = seen + ENCLOSURE_FILL_PRIOR * unseen;
  const answer = nearestOption(options, expected);
  const confidence = unseen === 0 ? (Number(answer) === seen ? 1 : 0.5) : binomial(unseen, Number(answer) - seen);
  return {
    answer,
    confidence: Math.round(confidence * 1000) / 1000,
    trace:
      unseen === 0
        ? `${seen} seen, no closed box -> option ${answer}`
        : `${seen} seen, ${unseen} closed box(es) never seen open, each holding one with prior ${ENCLOSURE_FILL_PRIOR} (ESI's random subset): expected ${expected} -> option ${answer}`,
  };
}

const top = (n: GraphNode) => n.box.centre[2] + n.box.extent[2] / 2;
const bottom = (n: GraphNode) => n.box.centre[2] - n.box.extent[2] / 2;
const liesFlat = (n: GraphNode) => n.box.extent[2] < Math.min(n.box.extent[0], n.box.extent[1]) / 2;
const restsOn = (lid: GraphNode, box: GraphNode) =>
  liesFlat(lid) && Math.abs(bottom(lid) - top(box)) <= LID_REST_GAP_M && footprintsOverlap(lid.box, box.box, LID_REST_GAP_M / 2);
const inside = (n: GraphNode, box: GraphNode) =>
  inFootprint(box.box, n.box.centre[0], n.box.centre[1]) && n.box.centre[2] >= bottom(box) && n.box.centre[2] <= top(box);

/** The box nodes a lid node rests on: boxes closed by a lid, which `open(X)` can open (a swung-open lid stands up, off them). */
export function lidClosedBoxes(nodes: readonly GraphNode[]): GraphNode[] {
  const lids = nodes.filter((n) => LID_LABELS.has(n.label));
  return nodes.filter((b) => ENCLOSURE_LABELS.has(b.label) && !DOOR_LABELS.has(b.label) && lids.some((l) => restsOn(l, b)));
}

/**
 * The graph's count of `category`: its nodes (the trace says how many lie inside a box node), and its closed boxes
 * (a lid node resting on them, or a door) with no such node inside.
 */
export function graphEnclosureCount(nodes: readonly GraphNode[], category: string): { seen: number; unseen: number; trace: string } {
  const targets = nodes.filter((n) => n.label === category);
  const boxes = nodes.filter((n) => ENCLOSURE_LABELS.has(n.label));
  const lidded = new Set(lidClosedBoxes(nodes));
  const closed = boxes.filter((b) => DOOR_LABELS.has(b.label) || lidded.has(b));
  const unseen = closed.filter((b) => !targets.some((t) => inside(t, b)));
  const within = targets.filter((t) => boxes.some((b) => inside(t, b))).length;
  return {
    seen: targets.length,
    unseen: unseen.length,
    trace: `${targets.length} node(s) labelled ${category} (${within} inside a box node); ${boxes.length} box node(s), ${closed.length} closed (${unseen.map((b) => b.id).join(", ") || "none"} with nothing seen inside)`,
  };
}

/** The labels a 2D program reads as a closed box: a lid's mask (each lid closes one box). */
export const isLidLabel = (label: string): boolean => LID_LABELS.has(label);
/** The labels a 2D program reads as an enclosure that is always closed (a microwave). */
export const isDoorLabel = (label: string): boolean => DOOR_LABELS.has(label);

/** The labels a program reads as a box that a lid closes (the library's box containers). */
export const isBoxLabel = (label: string): boolean => ENCLOSURE_LABELS.has(label) && !DOOR_LABELS.has(label);
