/**
 * Cognitive Mapping for the 2D baseline (symbolic-2d): rooms as photos show them. A room is known by its
 * signature furniture (ROOM_SIGNATURES, the same world knowledge the 3D region layer names rooms with). A
 * doorway lets one photo show two rooms (the next one seen through it), and a wall hides a room behind it,
 * so the programs read co-visibility: which labels share a view. No depth, no poses, no identity across
 * views (design.md "Evidence modes"); the question's text is read as every reasoner reads it
 * (src/reason/pathQuestions.ts).
 */
import { ROOM_SIGNATURES, roomTypeOfId } from "../../core/task/layout.js";
import { declined, type Decision } from "./decision.js";
import { openOptions, parsePathQuestion } from "./pathQuestions.js";
import type { Query } from "./query.js";

/** Per view: the mask area (px) of each label the view shows. */
export type ViewLabels = ReadonlyArray<ReadonlyMap<string, number>>;
/**
 * Per view: where each label's largest mask stands on the floor in the camera's frame (x right, z forward; m),
 * from size constancy (symbolic2d.ts `floorPoint`), for the labels with a nominal size.
 */
export type ViewPlaces = ReadonlyArray<ReadonlyMap<string, readonly [number, number]>>;

/**
 * Confidences of co-visibility answers (ours): a shared view is direct evidence of a doorway, its absence
 * weaker (the trajectory may have missed the doorway); Connectivity over rooms never both seen declines, and
 * an object's room read from a sighting far along the walk is weaker still.
 */
const COVISIBLE_CONFIDENCE = 0.7;
const NOT_COVISIBLE_CONFIDENCE = 0.6;
export const UNSEEN_CONFIDENCE = 0.5;
/**
 * An object's room is direct evidence (NOT_COVISIBLE_CONFIDENCE) when that room's furniture is seen within
 * this many frames of the object's nearest sighting (ours: a walk's step moves 0.25 m or turns 15 degrees,
 * ESI's steps, so 3 frames stay in one stretch of it); farther, the walk may have left the room, and the
 * answer is a weaker guess (UNSEEN_CONFIDENCE).
 */
const ROOM_SIGHTING_MAX_FRAMES = 3;

const signatureOf = (room: string): string | null => ROOM_SIGNATURES[roomTypeOfId(room)] ?? null;
const ALL_SIGNATURES = new Set(Object.values(ROOM_SIGNATURES));
const seen = (views: ViewLabels, label: string) => views.some((v) => v.has(label));

/**
 * How directly the views link two rooms' furniture: `shared` views show both (one seen through a doorway
 * from the other); a `passage` is the walk from a view of one to a view of the other that sees no third
 * room's furniture on the way (the frames are a continuous walk, in order, as a video shows them).
 */
function linked(views: ViewLabels, a: string, b: string): { shared: number; passages: number } {
  let shared = 0,
    passages = 0,
    last: string | null = null;
  for (const v of views) {
    if (v.has(a) && v.has(b)) shared++;
    const here = [...v.keys()].filter((l) => ALL_SIGNATURES.has(l));
    if (here.length === 0) continue;
    const mine = here.filter((l) => l === a || l === b);
    if (mine.length < here.length)
      last = null; // a third room's furniture breaks the walk
    else if (mine.length === 1) {
      if (last !== null && last !== mine[0]) passages++;
      last = mine[0]!;
    }
  }
  return { shared, passages };
}
const isLinked = (l: { shared: number; passages: number }) => l.shared + l.passages > 0;

/**
 * Frames between the view that shows a label largest (its nearest sighting: an object seen through a
 * doorway from the next room looks small) and the nearest view of another label (0: that view shows both),
 * or Infinity.
 */
function frameGap(views: ViewLabels, a: string, b: string): number {
  let at = -1;
  views.forEach((v, i) => {
    if ((v.get(a) ?? 0) > (at < 0 ? 0 : views[at]!.get(a)!)) at = i;
  });
  if (at < 0) return Infinity;
  let best = Infinity;
  views.forEach((w, j) => {
    if (w.has(b)) best = Math.min(best, Math.abs(at - j));
  });
  return best;
}

function signatures(rooms: readonly string[], trace: string[]): string[] | string {
  const sigs = rooms.map(signatureOf);
  const k = sigs.findIndex((s) => s === null);
  if (k >= 0) return `no signature furniture names the room type of ${rooms[k]}`;
  trace.push(`rooms by their furniture: ${rooms.map((r, i) => `${r} = ${sigs[i]}`).join(", ")}`);
  return sigs as string[];
}

function connectivity(views: ViewLabels, q: Query, trace: string[]): Decision {
  const m = /Are (\S+) and (\S+) adjacent/.exec(q.question);
  if (!m) return declined("the question names no two rooms", trace);
  const sigs = signatures([m[1]!, m[2]!], trace);
  if (typeof sigs === "string") return declined(sigs, trace);
  const [a, b] = sigs as [string, string];
  const l = linked(views, a, b);
  trace.push(`${a} and ${b}: ${l.shared} shared view(s), ${l.passages} direct passage(s)`);
  if (isLinked(l)) return { answer: "Yes", confidence: COVISIBLE_CONFIDENCE, trace };
  // "No" from rooms the views never both showed would be a guess (the suite balances yes and no): a decline,
  // credited at chance, is the honest form of it, as the 3D arms' region layer declines rooms it never saw
  const unseen = [a, b].filter((s) => !seen(views, s));
  if (unseen.length) return declined(`no view shows ${unseen.join(" or ")}, so nothing says whether the rooms meet`, trace);
  return { answer: "No", confidence: NOT_COVISIBLE_CONFIDENCE, trace };
}

/**
 * Nearest floor distance (m) between two labels over the views that place both, from their apparent sizes:
 * an object and its room's furniture stand a few metres apart at most, the next room's furniture seen
 * through a doorway farther. Infinity when no view places both.
 */
function floorGap(places: ViewPlaces, a: string, b: string): number {
  let best = Infinity;
  for (const v of places) {
    const p = v.get(a),
      q = v.get(b);
    if (p && q) best = Math.min(best, Math.hypot(p[0] - q[0], p[1] - q[1]));
  }
  return best;
}

/**
 * The room an object is seen in. First by floor distance: the room whose furniture stands nearest the
 * object on the floor, in a view that shows both (direct evidence). Otherwise by frames: the room whose
 * furniture the walk shows nearest the object's largest sighting; within ROOM_SIGHTING_MAX_FRAMES that is
 * direct evidence too, farther a weaker guess (the walk may have left the room). Null on a tie or when no
 * option's furniture is seen at all.
 */
function roomOfLabel(views: ViewLabels, places: ViewPlaces, label: string, rooms: readonly string[], trace: string[]): { room: string; near: boolean } | null {
  const own = rooms.find((r) => signatureOf(r) === label);
  if (own) return { room: own, near: true };
  const byFloor = rooms
    .map((r) => ({ r, d: floorGap(places, label, signatureOf(r) ?? "") }))
    .filter((s) => Number.isFinite(s.d))
    .sort((x, y) => x.d - y.d);
  if (byFloor[0]) {
    trace.push(`${label}: ${byFloor.map((s) => `${s.r} furniture ${s.d.toFixed(2)} m away on the floor`).join(", ")}`);
    return { room: byFloor[0].r, near: true };
  }
  const scored = rooms
    .map((r) => ({ r, gap: frameGap(views, label, signatureOf(r) ?? "") }))
    .filter((s) => Number.isFinite(s.gap))
    .sort((x, y) => x.gap - y.gap);
  trace.push(`${label}: ${scored.map((s) => `${s.r} furniture ${s.gap} frame(s) away`).join(", ") || "no room's furniture seen"}`);
  if (!scored[0] || (scored[1] && scored[1].gap === scored[0].gap)) return null;
  return { room: scored[0].r, near: scored[0].gap <= ROOM_SIGHTING_MAX_FRAMES };
}

function regionalBoundary(views: ViewLabels, q: Query, trace: string[], places: ViewPlaces): Decision {
  const belong = /Which room does (\S+) belong to/.exec(q.question);
  if (belong) {
    const label = belong[1]!;
    if (!seen(views, label)) return declined(`no view shows a ${label}`, trace);
    const room = roomOfLabel(views, places, label, q.options, trace);
    return room
      ? { answer: room.room, confidence: room.near ? NOT_COVISIBLE_CONFIDENCE : UNSEEN_CONFIDENCE, trace }
      : declined(`no one option's furniture is seen nearest the ${label}`, trace);
  }
  const same = /Are (\S+) and (\S+) in the same region/.exec(q.question);
  if (!same) return declined("no Regional Boundary template matches the question", trace);
  // any room type of the vocabulary, as "room type" names: the question names no rooms here
  const types = Object.keys(ROOM_SIGNATURES).map((t) => `${t}_0`);
  const rooms = [same[1]!, same[2]!].map((l) => (seen(views, l) ? roomOfLabel(views, places, l, types, trace) : null));
  if (!rooms[0] || !rooms[1]) return declined("an object is seen near no one room's furniture", trace);
  return {
    answer: rooms[0].room === rooms[1].room ? "Yes" : "No",
    confidence: rooms[0].near && rooms[1].near ? NOT_COVISIBLE_CONFIDENCE : UNSEEN_CONFIDENCE,
    trace,
  };
}

/** Path questions: the text's open options, then the one seen with both rooms it lies between. */
function pathStep(views: ViewLabels, q: Query, trace: string[]): Decision {
  const p = parsePathQuestion(q.question);
  if (!p) return declined("the question is not a path question the 2D programs read", trace);
  const open = openOptions(p, q.options);
  trace.push(`open options after the text: ${open.join(", ")}`);
  if (open.length === 1) return { answer: open[0]!, confidence: COVISIBLE_CONFIDENCE, trace };
  // the rooms the text puts next to the blank (an unwritten neighbour is left out: one known side still decides)
  const ends = [p.before, p.lastStep ? p.goal : p.after].filter((r): r is string => r !== null);
  const sigs = signatures([...ends, ...open], trace);
  if (typeof sigs === "string") return declined(sigs, trace);
  const scored = open
    .map((o, i) => {
      const s = sigs[i + ends.length]!;
      const links = ends.map((_, e) => linked(views, s, sigs[e]!));
      return { o, linked: links.filter(isLinked).length, views: links.reduce((t, x) => t + x.shared + x.passages, 0) };
    })
    .sort((a, b) => b.linked - a.linked || b.views - a.views);
  trace.push(scored.map((s) => `${s.o}: seen with ${s.linked} of ${ends.join(", ")} (${s.views} views)`).join("; "));
  const [best, next] = scored;
  if (!best || best.linked === 0 || (next && next.linked === best.linked && next.views === best.views))
    return declined("no open option is seen with the rooms it must join, or two tie", trace);
  return { answer: best.o, confidence: best.linked === 2 ? COVISIBLE_CONFIDENCE : NOT_COVISIBLE_CONFIDENCE, trace };
}

const PROGRAMS: Partial<Record<Query["subcategory"], (views: ViewLabels, q: Query, trace: string[], places: ViewPlaces) => Decision>> = {
  connectivity,
  regional_boundary: regionalBoundary,
  traversable_passage: pathStep,
  long_term_navigation: pathStep,
};

/** The 2D Cognitive Mapping program of a subcategory, or null for the others. */
export const regionProgram2d = (sub: Query["subcategory"]) => PROGRAMS[sub] ?? null;
