/**
 * Cognitive Mapping programs of the offline symbolic reasoner: they read only the graph's region layer
 * (rooms, doorways, pairs of rooms apart, objects in rooms; scenegraph/regions.ts), the graph's viewpoint and the
 * question text (room names, object categories), never the task's layout. Templates:
 * bridge/sim/generate/mapping.ts (ESI's records).
 *
 * The layer may be partial (one view, a few): two rooms are joined (a doorway seen), not joined (separated: a
 * wall seen closed between them, or no unseen space where they could meet) or unknown; a room the layer does not
 * hold is not joined to an enclosed room. A room the question names is the layer's room of that name; a name the
 * layer lacks may be any room no furniture named, or a room the views never mapped. The programs weigh every
 * such reading and answer only what holds in all of them (or, for a path, the one option a path of doorways seen
 * between the rooms the graph names runs through); otherwise they decline. */
import type { GraphNode, RegionLayer, SceneGraph } from "../../scenegraph/types.js";
import { declined, type Decision } from "./decision.js";
import { parsePathQuestion, type PathQuestion } from "./pathQuestions.js";
import type { Query } from "./query.js";

/**
 * Confidence of an answer read off the region layer: it carries no per-room evidence score yet, so every answer
 * that holds in every reading gets this one value (ours; below 1 because segmentation can miss a wall or a doorway).
 */
const REGION_CONFIDENCE = 0.8;
/** An answer left when the other options are ruled out, with no path of seen doorways through it (ours). */
const ELIMINATION_CONFIDENCE = 0.7;
/** A path option all of whose steps were seen as doorways while another option was not ruled out (ours). */
const SEEN_PATH_CONFIDENCE = 0.7;
/**
 * A path option more of whose steps the views show as doorways than any other option's, the others not ruled
 * out (ours): the 2D baseline's "seen with the rooms it must join" (regionPrograms2d.ts NOT_COVISIBLE_CONFIDENCE),
 * read off doorways instead of shared views.
 */
const PARTIAL_PATH_CONFIDENCE = 0.6;
/** At most this many readings of the question's room names are weighed (ours: four names over a few unnamed rooms stay far below). */
const MAX_READINGS = 20_000;

interface RegionInput {
  g: SceneGraph;
  q: Query;
  trace: string[];
}
export type RegionProgram = (p: RegionInput) => Decision;

type Adj = "yes" | "no" | "unknown";
/**
 * A room of a reading: a room of the layer (index >= 0), a room the layer does not hold (negative, one per name),
 * or, at ANY_ROOM and below, a room not placed at all (any of the others: nothing is known of it).
 */
type Slot = number;
const ANY_ROOM = -1_000_000;

/** What the layer says of pairs of rooms. */
class RoomMap {
  readonly ids: string[];
  private readonly enclosed: boolean[];
  private readonly door = new Set<string>();
  private readonly apart = new Set<string>();

  constructor(readonly layer: RegionLayer) {
    this.ids = layer.rooms.map((r) => r.id);
    this.enclosed = layer.rooms.map((r) => r.enclosed === true);
    const index = new Map(this.ids.map((id, k) => [id, k]));
    const key = (a: number, b: number) => `${Math.min(a, b)}:${Math.max(a, b)}`;
    for (const d of layer.doorways) this.door.add(key(index.get(d.rooms[0])!, index.get(d.rooms[1])!));
    for (const w of layer.separations ?? []) this.apart.add(key(index.get(w.rooms[0])!, index.get(w.rooms[1])!));
    this.key = key;
  }
  private readonly key: (a: number, b: number) => string;

  adj(a: Slot, b: Slot): Adj {
    if (a <= ANY_ROOM || b <= ANY_ROOM) return "unknown";
    if (a === b) return "no";
    if (a >= 0 && b >= 0) {
      if (this.door.has(this.key(a, b))) return "yes";
      return this.apart.has(this.key(a, b)) ? "no" : "unknown";
    }
    // a room the layer does not hold is behind none of an enclosed room's doorways
    if ((a >= 0 && this.enclosed[a]) || (b >= 0 && this.enclosed[b])) return "no";
    return "unknown";
  }

  /** The layer's rooms no furniture named. */
  unnamed(): number[] {
    return this.layer.rooms.flatMap((r, k) => (r.type === "unknown" ? [k] : []));
  }

  name(s: Slot): string {
    return s >= 0 ? this.ids[s]! : "a room not in the graph";
  }
}

function layer(p: RegionInput): RoomMap | string {
  const r = p.g.regions;
  if (!r || r.rooms.length === 0) return "the graph has no region layer (rooms)";
  const apart = r.separations ?? [];
  p.trace.push(
    `region layer: ${r.rooms.map((x) => `${x.id}${x.enclosed ? " (enclosed)" : ""}`).join(", ")}; doorways ${r.doorways.map((d) => d.rooms.join("--")).join(", ") || "none"}; apart ${apart.map((w) => `${w.rooms.join("|")} (${w.by})`).join(", ") || "none"}`,
  );
  return new RoomMap(r);
}

/** The layer's room holding the graph's viewpoint (the initial view's camera), or null. */
function viewpointRoom(m: RoomMap, g: SceneGraph): number | null {
  const [x, y] = g.viewpoint.position;
  const hits = m.layer.rooms.flatMap((r, k) => (x >= r.min[0] && x <= r.max[0] && y >= r.min[1] && y <= r.max[1] ? [k] : []));
  return hits.length === 1 ? hits[0]! : null;
}

/**
 * Every reading of the question's room names: each name is the layer's room of that name, or else one of the
 * rooms no furniture named or a room the layer does not hold (one per name); two names are never one room.
 * `hint` pins a name to a room the question itself places (the start room holds the initial view).
 */
function readings(m: RoomMap, names: readonly string[], hint: Map<string, number>, trace: string[]): Array<Map<string, Slot>> | string {
  const unnamed = m.unnamed();
  const choices = names.map((n, k) => {
    const at = m.ids.indexOf(n);
    if (at >= 0) return [at];
    const h = hint.get(n);
    if (h !== undefined && m.layer.rooms[h]!.type === "unknown") return [h];
    return [...unnamed, -1 - k];
  });
  const open = names.filter((_, k) => choices[k]!.length > 1);
  if (open.length)
    trace.push(
      `not named in the graph: ${open.join(", ")} (each may be ${unnamed.map((u) => m.ids[u]).join(", ") || "no unnamed room"} or a room not in the graph)`,
    );
  const total = choices.reduce((t, c) => t * c.length, 1);
  if (total > MAX_READINGS) return `${total} readings of the question's rooms, more than ${MAX_READINGS}`;
  const out: Array<Map<string, Slot>> = [];
  const walk = (k: number, used: Set<number>, acc: Map<string, Slot>) => {
    if (k === names.length) return void out.push(new Map(acc));
    for (const s of choices[k]!) {
      if (s >= 0 && used.has(s)) continue;
      acc.set(names[k]!, s);
      if (s >= 0) used.add(s);
      walk(k + 1, used, acc);
      if (s >= 0) used.delete(s);
    }
    acc.delete(names[k]!);
  };
  walk(0, new Set(), new Map());
  return out;
}

/** The node of a category the question names: the one with the most points. */
function nodeOf(g: SceneGraph, category: string): GraphNode | null {
  return g.nodes.filter((n) => n.label === category).sort((a, b) => b.point_count - a.point_count)[0] ?? null;
}
const roomOfNode = (m: RoomMap, n: GraphNode) => m.layer.rooms.findIndex((x) => x.objects.includes(n.id));

export const connectivityProgram: RegionProgram = (p) => {
  const m = layer(p);
  if (typeof m === "string") return declined(m, p.trace);
  const q = /Are (\S+) and (\S+) adjacent/.exec(p.q.question);
  if (!q) return declined("the question names no two rooms", p.trace);
  const [a, b] = [q[1]!, q[2]!];
  const all = readings(m, [a, b], new Map(), p.trace);
  if (typeof all === "string") return declined(all, p.trace);
  const seen = new Map<Adj, string>();
  for (const r of all) {
    const v = m.adj(r.get(a)!, r.get(b)!);
    if (!seen.has(v))
      seen.set(
        v,
        `${m.name(r.get(a)!)} and ${m.name(r.get(b)!)}: ${v === "yes" ? "a doorway joins them" : v === "no" ? "the views show them apart (a wall seen closed, or no unseen space where they could meet)" : "not seen"}`,
      );
  }
  p.trace.push(...seen.values());
  if (seen.size !== 1 || seen.has("unknown")) return declined(`the views do not show whether ${a} and ${b} are joined`, p.trace);
  return { answer: seen.has("yes") ? "Yes" : "No", confidence: REGION_CONFIDENCE, trace: p.trace };
};

/** A path's steps: a fixed room name, the blank, or a step the question leaves unwritten. */
type Step = { name: string } | "blank" | "hidden";

/**
 * The options a path can put in the blank, in one reading: `feasible` where no step is known not joined and no
 * two rooms of the path are known joined out of turn (a shortest path has no shortcut); `confirmed` where every
 * step is a doorway seen. Unwritten steps range over the question's rooms, the layer's and one room not in it.
 */
function blankOptions(
  m: RoomMap,
  steps: readonly Step[],
  options: readonly string[],
  reading: ReadonlyMap<string, Slot>,
): { feasible: Set<string>; confirmed: Set<string>; doorways: Map<string, number> } {
  const feasible = new Set<string>(),
    confirmed = new Set<string>();
  const doorways = new Map<string, number>();
  const pool = [...new Set([...reading.values(), ...m.ids.map((_, k) => k)])];
  const unmapped = -2 - reading.size; // a room the layer does not hold, no name's
  const hidden = steps.filter((s) => s === "hidden").length;
  const fills = hidden <= 2 ? [...pool, unmapped] : [unmapped];
  const slots: Slot[] = new Array(steps.length);
  const check = (option: string) => {
    let ok = true,
      seen = 0;
    for (let i = 0; i < slots.length && ok; i++)
      for (let j = i + 1; j < slots.length && ok; j++) {
        // an unwritten step's room not in the graph is a fresh room each time: distinct from every other
        if (slots[i] === slots[j] && !(slots[i] === unmapped)) ok = false;
        const v = slots[i] === unmapped && slots[j] === unmapped ? "unknown" : m.adj(slots[i]!, slots[j]!);
        if (j === i + 1) (ok = v !== "no"), (seen += v === "yes" ? 1 : 0);
        else if (v === "yes") ok = false;
      }
    if (!ok) return;
    feasible.add(option);
    if (seen === slots.length - 1) confirmed.add(option);
    doorways.set(option, Math.max(doorways.get(option) ?? 0, seen));
  };
  const fill = (k: number, option: string) => {
    if (k === steps.length) return check(option);
    const s = steps[k]!;
    if (s === "hidden") {
      for (const f of fills) (slots[k] = f), fill(k + 1, option);
      return;
    }
    slots[k] = s === "blank" ? reading.get(option)! : reading.get(s.name)!;
    fill(k + 1, option);
  };
  for (const o of options) fill(0, o);
  return { feasible, confirmed, doorways };
}

/** The rooms of a path question from start to goal, step by step. */
function pathSteps(pq: PathQuestion): Step[] {
  if (pq.kind === "intermediate") return [{ name: pq.start }, "blank", { name: pq.goal }];
  return [
    { name: pq.start },
    ...pq.steps.map((s, i): Step => (i === pq.blank ? "blank" : i === pq.steps.length - 1 ? { name: pq.goal } : s === null ? "hidden" : { name: s })),
  ];
}

/** Answers a path question from the layer: the one option every reading leaves, or the one a path of seen doorways runs through. */
function pathProgram(p: RegionInput, m: RoomMap, pq: PathQuestion): Decision {
  const steps = pathSteps(pq);
  const names = [...new Set([...steps.flatMap((s) => (typeof s === "object" ? [s.name] : [])), ...p.q.options])];
  // the question places the agent: "You are beginning in the X" (navigation) puts the initial view in the start room
  const hint = new Map<string, number>();
  const here = pq.kind === "next-step" ? viewpointRoom(m, p.g) : null;
  if (here !== null) hint.set(pq.start, here);
  const all = readings(m, names, hint, p.trace);
  if (typeof all === "string") return declined(all, p.trace);
  const feasible = new Set<string>();
  for (const r of all) blankOptions(m, steps, p.q.options, r).feasible.forEach((x) => feasible.add(x));
  p.trace.push(`options a path can take in some reading: ${[...feasible].join(", ") || "none"}`);
  if (feasible.size === 0) return declined("no option fits the doorways and separations seen", p.trace);
  // the doorways seen between the rooms the graph names (a name it lacks is placed nowhere: nothing is known of
  // it): a reading that gave names to unnamed rooms could join any option to anything
  const direct = new Map(names.map((n, k) => [n, m.ids.includes(n) ? m.ids.indexOf(n) : (hint.get(n) ?? ANY_ROOM - k)]));
  const seen = blankOptions(m, steps, [...feasible], direct);
  p.trace.push(
    `paths over the rooms the graph names: ${[...seen.feasible].map((x) => `${x} (${seen.doorways.get(x)} of ${steps.length - 1} steps seen as doorways)`).join(", ") || "none"}`,
  );
  if (feasible.size === 1) {
    const [answer] = feasible;
    return { answer: answer!, confidence: seen.confirmed.has(answer!) ? REGION_CONFIDENCE : ELIMINATION_CONFIDENCE, trace: p.trace };
  }
  if (seen.confirmed.size === 1) return { answer: [...seen.confirmed][0]!, confidence: SEEN_PATH_CONFIDENCE, trace: p.trace };
  const ranked = [...seen.feasible].sort((a, b) => seen.doorways.get(b)! - seen.doorways.get(a)!);
  const best = seen.doorways.get(ranked[0]!) ?? 0;
  if (best > 0 && best > (seen.doorways.get(ranked[1]!) ?? 0)) return { answer: ranked[0]!, confidence: PARTIAL_PATH_CONFIDENCE, trace: p.trace };
  return declined(`${feasible.size} options fit what the views show, none with more of its path seen`, p.trace);
}

export const traversableProgram: RegionProgram = (p) => {
  const m = layer(p);
  if (typeof m === "string") return declined(m, p.trace);
  const pq = parsePathQuestion(p.q.question);
  if (!pq || pq.kind !== "intermediate") return declined("the question names no start and goal room", p.trace);
  return pathProgram(p, m, pq);
};

export const navigationProgram: RegionProgram = (p) => {
  const m = layer(p);
  if (typeof m === "string") return declined(m, p.trace);
  const pq = parsePathQuestion(p.q.question);
  if (!pq || pq.kind !== "next-step") return declined("the question names no start and goal room, or has no blank step", p.trace);
  return pathProgram(p, m, pq);
};

export const regionalProgram: RegionProgram = (p) => {
  const m = layer(p);
  if (typeof m === "string") return declined(m, p.trace);
  const belong = /Which room does (\S+) belong to/.exec(p.q.question);
  if (belong) {
    const n = nodeOf(p.g, belong[1]!);
    if (!n) return declined(`no ${belong[1]} in the graph`, p.trace);
    const room = roomOfNode(m, n);
    p.trace.push(`${belong[1]} -> ${n.id} in ${room >= 0 ? m.ids[room] : "no room"}`);
    if (room < 0) return declined(`${belong[1]} lies in no room of the graph`, p.trace);
    // the question says one option is the room: the readings where exactly one option is this room
    const all = readings(m, p.q.options, new Map(), p.trace);
    if (typeof all === "string") return declined(all, p.trace);
    const answers = new Set(
      all.flatMap((r) => {
        const hit = p.q.options.filter((o) => r.get(o) === room);
        return hit.length === 1 ? hit : [];
      }),
    );
    if (answers.size !== 1) return declined(`${answers.size} options can be ${m.ids[room]}`, p.trace);
    const [answer] = answers;
    return { answer: answer!, confidence: m.ids[room] === answer ? REGION_CONFIDENCE : ELIMINATION_CONFIDENCE, trace: p.trace };
  }
  const same = /Are (\S+) and (\S+) in the same region/.exec(p.q.question);
  if (!same) return declined("no Regional Boundary template matches the question", p.trace);
  const nodes = [nodeOf(p.g, same[1]!), nodeOf(p.g, same[2]!)];
  const lacking = nodes.findIndex((n) => !n);
  if (lacking >= 0) return declined(`no ${same[lacking + 1]} in the graph`, p.trace);
  const rooms = nodes.map((n) => roomOfNode(m, n!));
  p.trace.push(`${same[1]} in ${rooms[0]! >= 0 ? m.ids[rooms[0]!] : "no room"}, ${same[2]} in ${rooms[1]! >= 0 ? m.ids[rooms[1]!] : "no room"}`);
  if (rooms[0]! < 0 || rooms[1]! < 0) return declined("an object lies in no room of the graph", p.trace);
  return { answer: rooms[0] === rooms[1] ? "Yes" : "No", confidence: REGION_CONFIDENCE, trace: p.trace };
};
