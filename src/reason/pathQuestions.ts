/**
 * The text of Cognitive Mapping's path questions, read once for every reasoner: the start and goal rooms,
 * the numbered steps of a navigation question, and the rooms the question itself fixes. Templates:
 * bridge/sim/generate/mapping.ts, after ESI's records (ESI-Bench's released sample, Cognitive Mapping).
 *
 * Why "fixed" rooms matter: ESI's options for a path question repeat rooms the text already names.
 * Traversable Passage offers the path's endpoints (q_000 offers its goal living_room_1, q_004 its start
 * living_room_0, grocery_store q_000 both), and an intermediate room is neither; a navigation step is not
 * the start nor a step already written (a shortest path visits no room twice). A reader of the text alone
 * can drop them, so the shortcut baseline does, and every reasoner may.
 */
import { NAV_BLANK, NAV_HIDDEN, NAV_STEP } from "../../core/task/layout.js";

/** A question's room names as written ("kitchen_0"), in order. */
const ROOM_NAME = /\b([a-z]+(?:_[a-z]+)*_\d+)\b/g;
const roomNamesIn = (text: string): string[] => [...text.matchAll(ROOM_NAME)].map((m) => m[1]!);
/** "the kitchen 0", as navigation questions write a room -> "kitchen_0". */
const unspokenRoom = (s: string): string => s.trim().replace(/\s+/g, "_");

export interface PathQuestion {
  /** `intermediate`: a room on the shortest path between start and goal; `next-step`: the room of a blank step. */
  kind: "intermediate" | "next-step";
  start: string;
  goal: string;
  /** next-step: each numbered step's room, null for the blank and for a step the text leaves unwritten; empty for intermediate. */
  steps: Array<string | null>;
  /** next-step: the blank's index in `steps`; -1 for intermediate. */
  blank: number;
  /** Rooms the text fixes, none of which is the answer. */
  fixed: string[];
  /**
   * The rooms the answer lies between, where the text says them: the path's endpoints, or the step before the
   * blank (the start for the first) and the one after it; null for a step the text leaves unwritten.
   */
  before: string | null;
  /** null when the step after the blank is unwritten, or when there is none (see `lastStep`). */
  after: string | null;
  /** next-step: the blank is the last step, which the text says reaches the goal, so the answer is the goal. */
  lastStep: boolean;
}

const INTERMEDIATE = /shortest path from (\S+) to (\S+?),/;
const NAVIGATION = /beginning in the (.+?)\. You want to navigate to the (.+?)\./;
const NAV_STEP_SPLIT = new RegExp(`\\d+\\. ${NAV_STEP.replace(/\./g, "\\.")}`);

/** The path question a text asks, or null when it is not one. */
export function parsePathQuestion(question: string): PathQuestion | null {
  const m = INTERMEDIATE.exec(question);
  if (m) {
    const [start, goal] = [m[1]!, m[2]!];
    return { kind: "intermediate", start, goal, steps: [], blank: -1, fixed: [start, goal], before: start, after: goal, lastStep: false };
  }
  const n = NAVIGATION.exec(question);
  if (!n) return null;
  const [start, goal] = [unspokenRoom(n[1]!), unspokenRoom(n[2]!)];
  const texts = question
    .split(NAV_STEP_SPLIT)
    .slice(1)
    .map((s) => s.replace(/You have reached the final destination\./, "").trim());
  const blank = texts.findIndex((s) => s.startsWith(NAV_BLANK));
  if (blank < 0) return null;
  const steps = texts.map((s, i) => (i === blank || s.startsWith(NAV_HIDDEN) ? null : (roomNamesIn(s)[0] ?? null)));
  const written = steps.filter((s): s is string => s !== null);
  const lastStep = blank === steps.length - 1;
  return {
    kind: "next-step",
    start,
    goal,
    steps,
    blank,
    fixed: [start, ...written],
    before: blank === 0 ? start : (steps[blank - 1] ?? null),
    after: lastStep ? null : (steps[blank + 1] ?? null),
    lastStep,
  };
}

/** The options a path question leaves open: those it does not fix, or only the goal when the blank is the last step. */
export function openOptions(p: PathQuestion, options: readonly string[]): string[] {
  if (p.kind === "next-step" && p.lastStep && options.includes(p.goal)) return [p.goal];
  const open = options.filter((o) => !p.fixed.includes(o));
  return open.length > 0 ? open : [...options];
}
