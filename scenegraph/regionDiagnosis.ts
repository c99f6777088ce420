/**
 * Scores a graph's region layer against the task's true layout: rooms matched to the true room their floor
 * rectangle lies in (greedy, one to one, by the share of the predicted rectangle inside the true one: a room the
 * views show in part is that room, not a false one; HOV-SG's evaluation matches regions by overlap,
 * over whole maps), room names, doorways (an edge is right when its rooms
 * match two true rooms a true doorway joins), pairs shown apart (right when no true doorway joins their rooms)
 * and the room each matched node is assigned to.
 */
import type { Layout } from "../core/task/schema.js";
import { doorwayEdges, roomAt } from "../core/task/layout.js";
import type { RegionLayer } from "./types.js";
import type { NodeDiagnosis, RegionDiagnosis } from "./diagnosisSchema.js";

/** A predicted room matches a true one when at least this share of its floor rectangle lies inside it (a majority, as HOV-SG's 0.5 overlap). */
const ROOM_MATCH_SHARE = 0.5;

type Rect = { min: readonly [number, number] | number[]; max: readonly [number, number] | number[] };
const area = (r: Rect) => (r.max[0]! - r.min[0]!) * (r.max[1]! - r.min[1]!);
function intersection(a: Rect, b: Rect): number {
  const ix = Math.max(0, Math.min(a.max[0]!, b.max[0]!) - Math.max(a.min[0]!, b.min[0]!));
  const iy = Math.max(0, Math.min(a.max[1]!, b.max[1]!) - Math.max(a.min[1]!, b.min[1]!));
  return ix * iy;
}
function rectIou(a: Rect, b: Rect): number {
  const inter = intersection(a, b);
  return inter > 0 ? inter / (area(a) + area(b) - inter) : 0;
}
/** Share of `a`'s rectangle inside `b`'s. */
const inside = (a: Rect, b: Rect) => (area(a) > 0 ? intersection(a, b) / area(a) : 0);
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : null);
const pairKey = (a: string, b: string) => [a, b].sort().join("\u0000");

export function diagnoseRegions(
  regions: RegionLayer | undefined,
  layout: Layout,
  nodes: readonly NodeDiagnosis[],
  objects: ReadonlyArray<{ id: number; position: readonly number[] }>,
): RegionDiagnosis {
  const predicted = regions?.rooms ?? [];
  const pairs: Array<{ p: number; t: number; share: number; iou: number }> = [];
  predicted.forEach((r, p) =>
    layout.rooms.forEach((t, ti) => {
      const share = inside(r, t);
      if (share >= ROOM_MATCH_SHARE) pairs.push({ p, t: ti, share, iou: rectIou(r, t) });
    }),
  );
  pairs.sort((a, b) => b.share - a.share || b.iou - a.iou);
  const truthOf = new Map<number, { t: number; iou: number }>();
  const usedT = new Set<number>();
  for (const x of pairs) if (!truthOf.has(x.p) && !usedT.has(x.t)) truthOf.set(x.p, x), usedT.add(x.t);
  const rooms = predicted.map((r, p) => {
    const m = truthOf.get(p);
    const truth = m ? layout.rooms[m.t]!.id : null;
    return {
      room: r.id,
      truth,
      iou: Math.round((m?.iou ?? Math.max(0, ...layout.rooms.map((t) => rectIou(r, t)))) * 1000) / 1000,
      name_correct: truth !== null && truth === r.id,
    };
  });
  const trueOfPredicted = new Map(rooms.filter((r) => r.truth).map((r) => [r.room, r.truth!]));
  const trueDoors = new Set(doorwayEdges(layout).map((d) => pairKey(...d.rooms)));
  const found = new Set<string>();
  const doorways = (regions?.doorways ?? []).map((d) => {
    const a = trueOfPredicted.get(d.rooms[0]),
      b = trueOfPredicted.get(d.rooms[1]);
    const correct = a !== undefined && b !== undefined && trueDoors.has(pairKey(a, b));
    if (correct) found.add(pairKey(a!, b!));
    return { rooms: d.rooms, correct };
  });
  const missed_doorways = doorwayEdges(layout)
    .filter((d) => !found.has(pairKey(...d.rooms)))
    .map((d) => d.rooms);
  const separations = (regions?.separations ?? []).map((d) => {
    const a = trueOfPredicted.get(d.rooms[0]),
      b = trueOfPredicted.get(d.rooms[1]);
    return { rooms: d.rooms, correct: a !== undefined && b !== undefined && a !== b && !trueDoors.has(pairKey(a, b)) };
  });
  // object -> room: matched nodes only
  let assigned = 0,
    right = 0;
  for (const n of nodes) {
    if (n.status !== "matched" || n.object_id === null) continue;
    const o = objects.find((x) => x.id === n.object_id);
    if (!o) continue;
    assigned++;
    const room = predicted.find((r) => r.objects.includes(n.node));
    if (room && trueOfPredicted.get(room.id) === roomAt(layout.rooms, o.position[0]!, o.position[1]!)) right++;
  }
  const matched = rooms.filter((r) => r.truth).length;
  return {
    rooms,
    missed_rooms: layout.rooms.filter((_, t) => !usedT.has(t)).map((t) => t.id),
    doorways,
    missed_doorways,
    separations,
    metrics: {
      room_precision: ratio(matched, predicted.length) ?? 0,
      room_recall: ratio(matched, layout.rooms.length) ?? 0,
      room_name_accuracy: ratio(rooms.filter((r) => r.name_correct).length, matched),
      doorway_precision: ratio(doorways.filter((d) => d.correct).length, doorways.length),
      doorway_recall: ratio(found.size, trueDoors.size),
      separation_precision: ratio(separations.filter((d) => d.correct).length, separations.length),
      object_room_accuracy: ratio(right, assigned),
    },
  };
}
