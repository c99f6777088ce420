/**
 * Enumerative Perception (the ESI-Bench paper, Appendix Q): Counting w Occlusion, Spatial
 * Segmentation, Merged Observation, Category Ambiguity, Illumination Variability.
 * Shared rules (ESI Q.19): objects from the counting pool (every box edge <= 0.25 m, not all < 0.05 m);
 * the initial camera 1.25 m above the floor aimed at a point 0.9 m above the room centre, as ESI-Bench's
 * generator (batch_counting_merge.py); four integer options.
 */
import { rad } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { CameraSpec, Lighting, TaskObject } from "../../../core/task/schema.js";
import { categoryDef, LIBRARY } from "../../../core/objects/library.js";
import {
  assignNames,
  cameraLookingAt,
  COUNTING_CAMERA_AIM_HEIGHT_M,
  COUNTING_CAMERA_HEIGHT_M,
  defaultLighting,
  integerOptions,
  makeRoom,
  pluralName,
  require,
  round3,
  round4,
  SceneBuilder,
} from "./common.js";
import type { Draft, InitialViewProbe } from "./draft.js";
import { orbitPoses, type ViewGoal } from "./gtTrajectory.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boxesIntersect } from "../../../core/geometry.js";
import { lookAt } from "../agent.js";
import { isVisible, VISIBLE_MIN_PX } from "./visibility.js";
import type { Rng } from "../../../core/math/rng.js";
import type { GeneratorContext } from "./options.js";
import type { AnswerPlan } from "./answerPlan.js";

/** ESI Q.19 counting pool, from the library flags (checked against the edge rule by a test). */
export const COUNT_CATEGORIES = [...LIBRARY.values()].filter((c) => c.flags.countable).map((c) => c.category);
/** Counts of the built-in suite; the paper does not give them; our choice. */
const COUNT_RANGE: [number, number] = [2, 6];
/** Tall furniture that hides a small object behind it (ESI Q.19: cabinets, shelves, sofas, counters...). */
const OCCLUDER_CATEGORIES = ["cabinet", "bookshelf", "wardrobe", "sofa", "counter", "piano"];
/** Chair-like dividers (ESI Q.20) and the free space under their seats: leg gap and height (m), from the models. */
const DIVIDER_CLEARANCE: Record<string, { gapM: number; underM: number }> = {
  chair: { gapM: 0.33, underM: 0.41 },
  stool: { gapM: 0.13, underM: 0.47 },
  armchair: { gapM: 0.6, underM: 0.33 },
};
/**
 * Merged Observation (ESI `_generate_observation_merged`, batch_counting_merge.py):
 * copies on the floor in one cluster, centres at least max(MERGED_MIN_SPACING_M, MERGED_SPACING_SCALE × size)
 * apart, size = the longest box edge clamped to MERGED_SIZE_M. ESI's released copies all touch or overlap
 * (nearest AABB gap 0 for all 265 targets), so each of ours also overlaps a copy it stands next to.
 */
/** ESI's least centre spacing (m): 2 × BALL_RADIUS + 0.01 (batch_counting_merge.py). */
const MERGED_MIN_SPACING_M = 0.08;
/** ESI `OBSERVATION_MERGED_MIN_SEPARATION_SCALE`: centre spacing ≥ 0.92 × size (batch_counting_merge.py). */
const MERGED_SPACING_SCALE = 0.92;
/** ESI's clamp of the size the spacing scales (m): [2 × BALL_RADIUS, 0.28] (batch_counting_merge.py `object_span`). */
const MERGED_SIZE_M: [number, number] = [0.07, 0.28];
/** ESI's cluster radius clamp (m): every copy within it of the first (batch_counting_merge.py). */
const MERGED_CLUSTER_RADIUS_M: [number, number] = [0.35, 1.25];
/** ESI `OBSERVATION_MERGED_CLUSTER_MARGIN_M`, added to the cluster radius (m; batch_counting_merge.py). */
const MERGED_CLUSTER_MARGIN_M = 0.1;
/** A copy overlaps the copy it is placed next to by at least this much along the placing direction (m). Ours: positions are rounded to 0.1 mm, and a bare touch could round to a gap. */
const MERGED_CONTACT_DEPTH_M = 0.001;

/** ESI's least centre spacing of merged copies of a box `e` (m). */
function mergedMinSpacing(e: readonly [number, number, number]): number {
  const size = Math.min(MERGED_SIZE_M[1], Math.max(MERGED_SIZE_M[0], Math.max(...e)));
  return Math.max(MERGED_MIN_SPACING_M, MERGED_SPACING_SCALE * size);
}

/**
 * Categories whose unrotated copies can both keep ESI's spacing and overlap: the footprint diagonal exceeds the
 * spacing. Tall ones (bottle, vase, candle: spacing from the height, > the diagonal) would always stand apart.
 */
const MERGED_CATEGORIES = COUNT_CATEGORIES.filter((c) => {
  const e = SceneBuilder.scaledExtent(categoryDef(c).models[0]!.id, 1);
  return Math.hypot(e[0], e[1]) - MERGED_CONTACT_DEPTH_M > mergedMinSpacing(e);
});
/**
 * Category Ambiguity: a confuser's centre sits this far from its target's, on a room axis or diagonally at
 * (±0.36, ±0.36) m = 0.509 m (ESI `SEMANTIC_FAULT_CONFUSER_MIN_SEPARATION_M` and `_find_neighbor_position`,
 * batch_counting_merge.py; measured centre distance median 0.50).
 */
const CONFUSER_SEPARATION_M = 0.5;
/** ESI's diagonal confuser offset on each axis (m), 0.509 m from the target (`_find_neighbor_position`, batch_counting_merge.py). */
const CONFUSER_DIAGONAL_OFFSET_M = 0.36;
/** ESI's last confuser offsets, on a room axis, when the 0.5 m ones are blocked (m; `_find_neighbor_position`, batch_counting_merge.py). */
const CONFUSER_FALLBACK_SEPARATION_M = 0.6;
/** Illumination Variability lights; [U] in the paper, our choice: a dim room with pools of light. */
const DIM_AMBIENT: [number, number] = [0.05, 0.12];
const SPOT_INTENSITY: [number, number] = [1.0, 1.8];
const SPOT_RANGE_M: [number, number] = [0.5, 0.9];
/** A target counts as clearly seen in a ground-truth view with this many pixels at the check resolution (~100 px full size). */
export const COUNT_CLEAR_VIEW_PX = 6;
/** The ground-truth trajectory of a counting task includes a view at least this far from the start (m). */
export const SECOND_VANTAGE_M = 1.0;
/** Objects are placed where the initial view can see the floor: within this angle of the view axis. */
const VIEW_HALF_ANGLE = rad(24);
/** Counted objects stand at least this far from the agent (ESI `MIN_BALL_DISTANCE_FROM_AGENT`, batch_counting_merge.py). */
const COUNT_TARGET_MIN_AGENT_DISTANCE_M = 1.5;
/** Floor spots keep this angle (rad) above the initial view's bottom edge, so an object there is in the frame. Ours. */
const VIEW_BOTTOM_MARGIN = rad(3);

export interface CountingScene {
  b: SceneBuilder;
  agent: AgentPose;
  /** the nearest floor distance (m) the initial view shows, with VIEW_BOTTOM_MARGIN */
  nearestFloorM: number;
}

/**
 * A room and the agent near one wall, camera 1.25 m high aimed at 0.9 m above the room centre (ESI's primary
 * view, `_sample_primary_view_pose`: it looks down only 0.35 m over the distance to the centre, ≈13° at 1.5 m).
 */
export function countingScene(rng: Rng, roomType: string, camera: CameraSpec): CountingScene {
  const room = makeRoom(rng, roomType);
  const b = new SceneBuilder(rng, room);
  const wall = rng.int(0, 3);
  const [sx, sy] = room.size;
  const off = rng.uniform(0.5, 0.8);
  const along = rng.uniform(-0.25, 0.25);
  const pos: [number, number] =
    wall === 0 ? [along * sx, -sy / 2 + off] : wall === 1 ? [sx / 2 - off, along * sy] : wall === 2 ? [along * sx, sy / 2 - off] : [-sx / 2 + off, along * sy];
  // rooms are centred on the origin (makeRoom)
  const { yaw, pitch } = lookAt([pos[0], pos[1], COUNTING_CAMERA_HEIGHT_M], [0, 0, COUNTING_CAMERA_AIM_HEIGHT_M]);
  // at this shallow pitch the frame's bottom edge meets the floor 1.5-2.5 m out: place the objects beyond it
  const vHalf = Math.atan((Math.tan(rad(camera.hfov_deg) / 2) * camera.height) / camera.width);
  const nearestFloorM = COUNTING_CAMERA_HEIGHT_M / Math.tan(-pitch + vHalf - VIEW_BOTTOM_MARGIN);
  return { b, agent: { position: [round4(pos[0]), round4(pos[1]), COUNTING_CAMERA_HEIGHT_M], yaw: round4(yaw), pitch: round4(pitch) }, nearestFloorM };
}

/**
 * A floor spot in front of the agent (within the view) at a distance in `dist`, clear of other objects. The
 * range starts no nearer than ESI's 1.5 m nor than the floor the initial view shows, keeping at least half its width.
 */
export function spotInView(s: CountingScene, half: [number, number], dist: [number, number], yaw: number, margin = 0.05): [number, number] | null {
  const { b, agent } = s;
  const lo = Math.max(dist[0], COUNT_TARGET_MIN_AGENT_DISTANCE_M, s.nearestFloorM);
  const hi = Math.max(dist[1], lo + (dist[1] - dist[0]) / 2);
  for (let i = 0; i < 300; i++) {
    const a = agent.yaw + b.rng.uniform(-VIEW_HALF_ANGLE, VIEW_HALF_ANGLE);
    const d = b.rng.uniform(lo, hi);
    const x = agent.position[0] + d * Math.cos(a),
      y = agent.position[1] + d * Math.sin(a);
    if (b.isClear({ centre: [x, y, 0.5], extent: [2 * half[0], 2 * half[1], 1], yaw }, margin)) return [x, y];
  }
  return null;
}

export function agentClear(b: SceneBuilder, agent: AgentPose): AgentPose {
  const p = cameraLookingAt(b, agent.position, [
    agent.position[0] + Math.cos(agent.yaw),
    agent.position[1] + Math.sin(agent.yaw),
    agent.position[2] + Math.tan(agent.pitch),
  ]);
  require(p, "agent position blocked");
  return agent;
}

function countDraft(
  rng: Rng,
  plan: AnswerPlan,
  s: CountingScene,
  roomType: string,
  category: string,
  targets: TaskObject[],
  extra: {
    lighting?: Lighting;
    question?: string;
    metadata?: Record<string, unknown>;
    allowedOverlaps?: Array<[number, number]>;
    checkInitialView?: (p: InitialViewProbe) => string | null;
    alsoSee?: number[];
  },
): Draft {
  const n = targets.length;
  require(n >= COUNT_RANGE[0] && n <= COUNT_RANGE[1], "count out of range");
  assignNames(s.b.objects);
  const ids = targets.map((t) => t.id);
  const seeIds = [...ids, ...(extra.alsoSee ?? [])];
  // every object clearly seen somewhere, plus a second vantage point well away from the first, which
  // separates touching copies and gives multi-view geometry (a view 0 alone rarely settles a count)
  const start = s.agent.position;
  const goals: ViewGoal[] = [
    ...seeIds.map((id) => (v: Parameters<ViewGoal>[0]) => isVisible(v, id, COUNT_CLEAR_VIEW_PX)),
    (v) =>
      Math.hypot(v.pose.position[0] - start[0], v.pose.position[1] - start[1]) >= SECOND_VANTAGE_M &&
      ids.filter((id) => isVisible(v, id)).length >= Math.ceil(ids.length / 2),
  ];
  const keyPoses = seeIds.flatMap((id) => {
    const o = s.b.objects.find((x) => x.id === id)!;
    return orbitPoses([o.position[0], o.position[1], o.position[2]], [0.9, 1.3, 1.8], [0.8, 1.25], 8, rng.uniform(0, Math.PI));
  });
  return {
    roomType,
    room: s.b.room,
    objects: s.b.objects,
    lighting: extra.lighting ?? defaultLighting(rng),
    agent: agentClear(s.b, s.agent),
    question: extra.question ?? `How many ${pluralName(category)} are there in the room?`,
    answer: String(n),
    answerFormat: "integer",
    options: integerOptions(plan, n),
    relevant: ids,
    metadata: { count: n, category, ...(extra.metadata ?? {}) },
    allowedOverlaps: extra.allowedOverlaps,
    derive: (objects) => String(objects.filter((o) => o.category === category && o.role === "target").length),
    checkInitialView: (p) => (extra.checkInitialView ? extra.checkInitialView(p) : null),
    gtGoals: goals,
    gtKeyPoses: keyPoses,
  };
}

function distractors(s: CountingScene, exclude: string[], count: number): void {
  const { b } = s;
  for (let i = 0; i < count; i++) {
    const cat = b.rng.pick(COUNT_CATEGORIES.filter((c) => !exclude.includes(c)));
    const e = SceneBuilder.scaledExtent(`${cat}/0`, 1);
    const spot = spotInView(s, [e[0] / 2, e[1] / 2], [1.2, 3.2], 0, 0.15);
    if (spot) b.add(cat, { x: spot[0], y: spot[1], yaw: b.rng.uniform(-Math.PI, Math.PI), role: "distractor" });
  }
}

export function countingWithOcclusion(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "living_room", ctx.camera);
  const { b, agent } = s;
  const cat = rng.pick(COUNT_CATEGORIES);
  const te = SceneBuilder.scaledExtent(`${cat}/0`, 1);
  const hidden: TaskObject[] = [];
  const nOcc = rng.int(2, 4);
  for (let k = 0; k < nOcc; k++) {
    const oc = rng.pick(OCCLUDER_CATEGORIES);
    const model = rng.pick(categoryDef(oc).models).id;
    const oe = SceneBuilder.scaledExtent(model, 1);
    const spot = spotInView(s, [Math.max(oe[0], oe[1]) / 2 + te[0] + 0.3, Math.max(oe[0], oe[1]) / 2 + te[0] + 0.3], [1.6, 3.0], 0, 0.1);
    if (!spot) continue;
    const u = [spot[0] - agent.position[0], spot[1] - agent.position[1]];
    const L = Math.hypot(u[0]!, u[1]!);
    const ux = u[0]! / L,
      uy = u[1]! / L;
    // furniture fronts face -y; turn the front towards the agent
    const yaw = Math.atan2(-ux, uy);
    const occ = b.add(oc, { model, x: spot[0], y: spot[1], yaw, role: "occluder" });
    // the target goes slightly beyond the occluder, on the agent -> occluder line (ESI Q.19)
    const d = oe[1] / 2 + Math.max(te[0], te[1]) / 2 + rng.uniform(0.08, 0.2);
    const t = b.add(cat, { x: spot[0] + ux * d, y: spot[1] + uy * d, yaw: rng.uniform(-Math.PI, Math.PI), role: "target" });
    if (!b.isClear(objectBox(t), 0.02, new Set([t.id])) || !b.isClear(objectBox(occ), 0, new Set([occ.id]))) {
      b.remove(t);
      b.remove(occ);
      continue;
    }
    hidden.push(t);
  }
  require(hidden.length >= 1, "no occluded target placed");
  const open: TaskObject[] = [];
  for (let k = rng.int(0, 2); k > 0; k--) {
    const spot = spotInView(s, [te[0] / 2, te[1] / 2], [1.2, 2.6], 0, 0.15);
    if (spot) open.push(b.add(cat, { x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" }));
  }
  distractors(s, [cat], rng.int(0, 2));
  const targets = [...hidden, ...open];
  return countDraft(rng, plan, s, "living_room", cat, targets, {
    metadata: { hidden_behind_furniture: hidden.length, in_the_open: open.length },
    checkInitialView: (p) => {
      for (const t of hidden) if ((p.counts.get(t.id) ?? 0) > 0) return `occluded target ${t.id} is visible in the initial view`;
      for (const t of open) if (p.fraction(t.id) < 0.5) return `open target ${t.id} hidden in the initial view`;
      return null;
    },
  });
}

export function spatialSegmentation(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "dining_room", ctx.camera);
  const { b } = s;
  const nDiv = rng.int(2, 4);
  const divCats = Array.from({ length: nDiv }, () => rng.pick(Object.keys(DIVIDER_CLEARANCE)));
  const gap = Math.min(...divCats.map((c) => DIVIDER_CLEARANCE[c]!.gapM)),
    under = Math.min(...divCats.map((c) => DIVIDER_CLEARANCE[c]!.underM));
  const fits = COUNT_CATEGORIES.filter((c) => {
    const e = SceneBuilder.scaledExtent(`${c}/0`, 1);
    return Math.hypot(e[0], e[1]) <= gap && e[2] <= under;
  });
  require(fits.length > 0, "no category fits under the dividers");
  const cat = rng.pick(fits);
  const targets: TaskObject[] = [];
  const allowed: Array<[number, number]> = [];
  for (const dc of divCats) {
    const model = rng.pick(categoryDef(dc).models).id;
    const de = SceneBuilder.scaledExtent(model, 1);
    const yaw = rng.uniform(-Math.PI, Math.PI);
    const spot = spotInView(s, [de[0] / 2 + 0.05, de[1] / 2 + 0.05], [1.5, 3.0], yaw, 0.15);
    if (!spot) continue;
    const div = b.add(dc, { model, x: spot[0], y: spot[1], yaw, role: "divider" });
    // the count object sits at the horizontal centre of the divider's box, on the floor under it (ESI Q.20)
    const t = b.add(cat, { x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" });
    targets.push(t);
    allowed.push([div.id, t.id]);
  }
  if (rng.bool(0.4)) {
    const spot = spotInView(s, [0.25, 0.25], [1.3, 2.8], 0, 0.15);
    if (spot) b.add(rng.pick(Object.keys(DIVIDER_CLEARANCE)), { x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "divider" });
  }
  const dividerIds = b.objects.filter((o) => o.role === "divider").map((o) => o.id);
  return countDraft(rng, plan, s, "dining_room", cat, targets, {
    metadata: { dividers: dividerIds.length },
    allowedOverlaps: allowed,
    checkInitialView: (p) => (targets.some((t) => (p.counts.get(t.id) ?? 0) >= VISIBLE_MIN_PX) ? null : "no target visible in the initial view"),
  });
}

export function mergedObservation(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "playroom", ctx.camera);
  const { b, agent } = s;
  const cat = rng.pick(MERGED_CATEGORIES);
  const md = categoryDef(cat).models[0]!;
  const color = rng.pick(md.palette);
  const e = SceneBuilder.scaledExtent(md.id, 1);
  const n = rng.int(...COUNT_RANGE);
  const minPair = mergedMinSpacing(e);
  // ESI's cluster radius: grows with the count, 0.35-1.25 m
  const radius = Math.min(
    MERGED_CLUSTER_RADIUS_M[1],
    Math.max(MERGED_CLUSTER_RADIUS_M[0], minPair * (0.65 + 0.36 * Math.max(1, n - 1)) + MERGED_CLUSTER_MARGIN_M),
  );
  const base = spotInView(s, [radius + e[0] / 2, radius + e[1] / 2], [1.6, 2.6], 0, 0.1);
  require(base, "no free floor for the group");
  // ESI places every copy unrotated on the floor ("same_plane")
  const copies: TaskObject[] = [b.add(cat, { model: md.id, color, x: base[0], y: base[1], yaw: 0, role: "target" })];
  const copyIds = new Set([copies[0]!.id]);
  for (let k = 1; k < n; k++) {
    let placed: TaskObject | null = null;
    for (let tries = 0; tries < 200 && !placed; tries++) {
      // next to a copy at a drawn angle, at ESI's spacing or more, but no farther than where the two boxes
      // (equal, unrotated) just touch less MERGED_CONTACT_DEPTH_M: the copies overlap or touch (ESI's measured gap 0)
      const anchor = rng.pick(copies);
      const a = rng.uniform(-Math.PI, Math.PI),
        c = Math.abs(Math.cos(a)),
        sn = Math.abs(Math.sin(a));
      const touch = Math.min(c > 1e-9 ? e[0] / c : Infinity, sn > 1e-9 ? e[1] / sn : Infinity) - MERGED_CONTACT_DEPTH_M;
      if (touch < minPair) continue;
      const d = rng.uniform(minPair, touch);
      const x = anchor.position[0] + d * Math.cos(a),
        y = anchor.position[1] + d * Math.sin(a);
      if (Math.hypot(x - base[0], y - base[1]) > radius) continue;
      if (Math.hypot(x - agent.position[0], y - agent.position[1]) < COUNT_TARGET_MIN_AGENT_DISTANCE_M) continue;
      if (copies.some((q) => Math.hypot(x - q.position[0], y - q.position[1]) < minPair)) continue;
      const o = b.add(cat, { model: md.id, color, x, y, yaw: 0, role: "target" });
      if (b.isClear(objectBox(o), 0, new Set([...copyIds, o.id]))) placed = o;
      else b.remove(o);
    }
    require(placed, "could not place a copy");
    copies.push(placed);
    copyIds.add(placed.id);
  }
  // the copies' boxes interpenetrate: declare exactly the pairs the placement check would otherwise reject
  const allowed: Array<[number, number]> = [];
  for (let i = 0; i < copies.length; i++) {
    for (let j = i + 1; j < copies.length; j++) if (boxesIntersect(objectBox(copies[i]!), objectBox(copies[j]!))) allowed.push([copies[i]!.id, copies[j]!.id]);
  }
  return countDraft(rng, plan, s, "playroom", cat, copies, {
    question: `How many ${pluralName(cat)} are there in the room?`,
    metadata: { identical_copies: true, min_spacing_m: round4(minPair), cluster_radius_m: round4(radius) },
    allowedOverlaps: allowed,
    checkInitialView: (p) => (copies.some((t) => (p.counts.get(t.id) ?? 0) >= VISIBLE_MIN_PX) ? null : "the group is not in the initial view"),
  });
}

export function categoryAmbiguity(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "kitchen", ctx.camera);
  const { b } = s;
  const withConfusers = COUNT_CATEGORIES.filter((c) =>
    categoryDef(c)
      .confusables.slice(0, 3)
      .some((x) => COUNT_CATEGORIES.includes(x)),
  );
  const cat = rng.pick(withConfusers);
  // ESI Q.22: each counting object gets one confuser drawn from its top-3 most similar categories
  const confusers = categoryDef(cat)
    .confusables.slice(0, 3)
    .filter((x) => COUNT_CATEGORIES.includes(x));
  const n = rng.int(COUNT_RANGE[0], 5);
  const targets: TaskObject[] = [];
  const confObjs: TaskObject[] = [];
  const pairs: Array<[number, number]> = [];
  const te = SceneBuilder.scaledExtent(`${cat}/0`, 1);
  for (let k = 0; k < n; k++) {
    const spot = spotInView(s, [te[0] / 2 + 0.3, te[1] / 2 + 0.3], [1.5, 3.2], 0, 0.15);
    if (!spot) continue;
    const t = b.add(cat, { x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" });
    targets.push(t);
    const cc = rng.pick(confusers);
    // ESI's offsets: 0.5 m on an axis or 0.509 m diagonally, then 0.6 m on an axis; the first free one wins.
    // ESI tries them in a fixed order (+x first); we draw the order within each ring (ours).
    const r = CONFUSER_SEPARATION_M,
      q = CONFUSER_DIAGONAL_OFFSET_M,
      f = CONFUSER_FALLBACK_SEPARATION_M;
    const offsets: Array<[number, number]> = [
      ...rng.sample<[number, number]>(
        [
          [r, 0],
          [-r, 0],
          [0, r],
          [0, -r],
          [q, q],
          [-q, q],
          [q, -q],
          [-q, -q],
        ],
        8,
      ),
      ...rng.sample<[number, number]>(
        [
          [f, 0],
          [-f, 0],
          [0, f],
          [0, -f],
        ],
        4,
      ),
    ];
    for (const [dx, dy] of offsets) {
      const x = spot[0] + dx,
        y = spot[1] + dy;
      if (Math.hypot(x - s.agent.position[0], y - s.agent.position[1]) < COUNT_TARGET_MIN_AGENT_DISTANCE_M) continue;
      const c = b.add(cc, { x, y, yaw: rng.uniform(-Math.PI, Math.PI), role: "confuser" });
      if (b.isClear(objectBox(c), 0.01, new Set([c.id]))) {
        confObjs.push(c);
        pairs.push([t.id, c.id]);
        break;
      }
      b.remove(c);
    }
  }
  require(confObjs.length >= 1, "no confuser placed");
  return countDraft(rng, plan, s, "kitchen", cat, targets, {
    metadata: { confusers: confObjs.map((c) => c.category), confuser_pairs: pairs },
    alsoSee: confObjs.map((c) => c.id),
  });
}

export function illuminationVariability(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "living_room", ctx.camera);
  const { b } = s;
  const cat = rng.pick(COUNT_CATEGORIES);
  const n = rng.int(...COUNT_RANGE);
  const te = SceneBuilder.scaledExtent(`${cat}/0`, 1);
  const targets: TaskObject[] = [];
  for (let k = 0; k < n; k++) {
    const spot = spotInView(s, [te[0] / 2 + 0.1, te[1] / 2 + 0.1], [1.2, 3.4], 0, 0.1);
    if (spot) targets.push(b.add(cat, { x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" }));
  }
  distractors(s, [cat], rng.int(0, 2));
  b.addWallFurniture(rng.int(0, 2), ["bookshelf", "cabinet", "sofa"]);
  // ESI Q.24: lower the ambient light and add lights on selected objects; positions stay fixed
  const lit = rng.sample(targets, Math.min(targets.length, rng.int(1, 2)));
  const lighting: Lighting = {
    ambient: round3(rng.uniform(...DIM_AMBIENT)),
    sun: rng.bool(0.5) ? { direction: [round3(rng.uniform(-0.5, 0.5)), round3(rng.uniform(-0.5, 0.5)), -1], intensity: round3(rng.uniform(0.0, 0.1)) } : null,
    lights: lit.map((t) => ({
      position: [round4(t.position[0] + rng.uniform(-0.2, 0.2)), round4(t.position[1] + rng.uniform(-0.2, 0.2)), round4(rng.uniform(0.6, 1.0))],
      intensity: round3(rng.uniform(...SPOT_INTENSITY)),
      range: round3(rng.uniform(...SPOT_RANGE_M)),
    })),
  };
  return countDraft(rng, plan, s, "living_room", cat, targets, {
    lighting,
    question: `The room is dimly lit. How many ${pluralName(cat)} are there?`,
    metadata: { ambient: lighting.ambient, lights: lighting.lights.length },
  });
}
