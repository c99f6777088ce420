/**
 * Unobserved Change (the ESI-Bench paper, Q.13; ESI's batch_unobserved_changes.py): closed boxes on the floor, each
 * holding one small object or nothing; the world is seen in Phase 1, then, while no one looks, a box's contents are
 * kept, replaced, removed or added, and it is seen in Phase 2. Three question types, ESI's templates and options:
 * change detection (1 box, yes/no), change identification (1 box, replace/remove/add/no_change) and current-state
 * reasoning (3 boxes, brown/red/yellow: which one changed). The boxes, their lids and the opening ground-truth
 * trajectory are Structural Enclosure's (enclosure.ts): ESI keeps the boxes closed in its phase renders
 * (`container_state.open` false) and opens them for its ground-truth close-ups.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { Rng } from "../../../core/math/rng.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { inFootprint } from "../../../core/geometry.js";
import { isFree, lookAt, worldOf } from "../agent.js";
import { buildScene } from "../scene.js";
import { assignNames, defaultLighting, require, round4, SceneBuilder, type Room } from "./common.js";
import { countingScene, spotInView } from "./counting.js";
import {
  BOX_DISTANCE_M,
  BOX_GAP_M,
  BOX_SCALE,
  closedBox,
  FITTING_CATEGORIES,
  GT_OPEN_AZIMUTHS,
  GT_OPEN_HEIGHTS_M,
  GT_OPEN_RADII_M,
  innerFloor,
  looksInto,
  nearestFirst,
  targetInside,
} from "./enclosure.js";
import { categoryDef } from "../../../core/objects/library.js";
import type { Draft } from "./draft.js";
import { orbitPoses, type ViewGoal } from "./gtTrajectory.js";
import { visibleCounts, VISIBLE_MIN_PX } from "./visibility.js";
import type { CameraSpec } from "../../../core/task/schema.js";
import type { GeneratorContext } from "./options.js";
import type { AnswerPlan } from "./answerPlan.js";

/** ESI's question types (TASK_TYPES), in the order the answer plan's forms name them (UNOBSERVED_FORMS). */
const QUESTION_TYPES = ["change_detection", "change_identification", "current_state_reasoning"] as const;
type QuestionType = (typeof QUESTION_TYPES)[number];
/**
 * The answer plan's forms, as ESI's released records mix the types (dataset/json, Temporal Understanding/Unobserved
 * Change: 60 detection, 42 identification, 46 current-state of 148, i.e. 41/28/31 %): each block of ten tasks holds
 * four detection, three identification and three current-state questions (40/30/30 %).
 */
const UNOBSERVED_FORMS: readonly QuestionType[] = [
  "change_detection",
  "change_detection",
  "change_detection",
  "change_detection",
  "change_identification",
  "change_identification",
  "change_identification",
  "current_state_reasoning",
  "current_state_reasoning",
  "current_state_reasoning",
];
/** ESI's CHANGE_TYPES, in its option order. */
const CHANGE_TYPES = ["replace", "remove", "add", "no_change"] as const;
type ChangeType = (typeof CHANGE_TYPES)[number];
/** ESI's current-state boxes (CURRENT_STATE_BOX_SPECS: a brown and a red cedar chest, a yellow carton) as library boxes of those colours. */
const CURRENT_STATE_BOXES = [
  { category: "packing_box", color: "brown" },
  { category: "toy_box", color: "red" },
  { category: "toy_box", color: "yellow" },
] as const;
/** ESI's single box (HIDDEN_BOX_FIXED_ASSETS[0], a carton) as the library's packing box, its colour drawn. */
const SINGLE_BOX_CATEGORY = "packing_box";
/** Boxes per question type (ESI `_sample_box_count`: 1, 1, 3; released records: 60/42 single-box, 46 three-box). */
const BOX_COUNT: Record<QuestionType, number> = { change_detection: 1, change_identification: 1, current_state_reasoning: 3 };
/** Share of unchanged boxes left empty in both phases (ESI `_sample_question_states`: 0.3 for identification, 0.25 otherwise). */
const EMPTY_UNCHANGED_SHARE: Record<QuestionType, number> = { change_detection: 0.25, change_identification: 0.3, current_state_reasoning: 0.25 };
/**
 * Contents: ESI's pool keeps categories whose every bbox edge is within 25 cm and not all under 5 cm
 * (batch_counting_merge.py `_build_count_target_candidates`); ours, the count categories that fit every box as well.
 */
const CONTENT_MAX_EDGE_M = 0.25;
const CONTENT_MIN_LONGEST_EDGE_M = 0.05;
/**
 * The boxes of a task stand within this (m) of each other. Ours: ESI's released three-box records spread them wider
 * (median 2.44 m over 138 pairs), but its close-ups are rendered, not walked; ours opens all three in one 30-step
 * budget: measured on two three-box tasks, 15 and 52 draws each at 2.4 m, 3 and 2 at 1.5 m.
 */
const BOX_CLUSTER_M = 1.5;
/** Floor spots drawn for a box before the draw is redone. */
const CLUSTER_TRIES = 30;
/** ESI's viewpoint candidates along each side of the room (PRIMARY_VIEW_CANDIDATE_RATIOS). */
const PRIMARY_VIEW_RATIOS = [0.2, 0.35, 0.5, 0.65, 0.8];
/** Candidates stand this far in from the walls: ESI's inset, min(max(0.45, 0.1 x shorter side), max(0.35 x shorter side, 0.45)) (m). */
const primaryViewInset = (w: number, h: number) => Math.min(Math.max(0.45, Math.min(w, h) * 0.1), Math.max(Math.min(w, h) * 0.35, 0.45));
/** ESI looks at each box's bottom plus min(0.12 m, half its height) (`_collect_primary_view_targets`). */
const LOOK_TARGET_RISE_M = 0.12;

const QUESTIONS: Record<QuestionType, string> = {
  change_detection: "Comparing Phase 1 and Phase 2, did the contents of any box change?",
  change_identification: "What happened to the contents of the box from Phase 1 to Phase 2?",
  current_state_reasoning: "Which box changed from Phase 1 to Phase 2: the brown box, the red box, or the yellow box?",
};
const OPTIONS: Record<QuestionType, readonly string[]> = {
  change_detection: ["yes", "no"],
  change_identification: CHANGE_TYPES,
  current_state_reasoning: CURRENT_STATE_BOXES.map((b) => `${b.color} box`),
};
/** ESI's phase labels. */
const PHASE_LABELS = ["Phase 1", "Phase 2"] as const;

/** The question type of a task's answer-plan form. */
const questionTypeOf = (form: number): QuestionType => UNOBSERVED_FORMS[form]!;

/** Content categories: count categories of ESI's size that fit every box (enclosure.ts FITTING_CATEGORIES). */
const CONTENT_CATEGORIES = FITTING_CATEGORIES.filter((c) => {
  const e = SceneBuilder.scaledExtent(categoryDef(c).models[0]!.id, 1);
  return Math.max(...e) <= CONTENT_MAX_EDGE_M && Math.max(...e) >= CONTENT_MIN_LONGEST_EDGE_M;
});

/** What a box holds in each phase (null: empty). */
interface BoxState {
  change: ChangeType;
  phase1: string | null;
  phase2: string | null;
}

/** ESI's per-box states: the changed box gets its change type, the others none (a share of them empty). */
function boxStates(rng: Rng, type: QuestionType, changes: readonly ChangeType[]): BoxState[] {
  const used = new Set<string>();
  const draw = (exclude?: string) => {
    const c = rng.pick(CONTENT_CATEGORIES.filter((x) => !used.has(x) && x !== exclude));
    require(c, "no content category left");
    used.add(c);
    return c;
  };
  return changes.map((change) => {
    switch (change) {
      case "add":
        return { change, phase1: null, phase2: draw() };
      case "remove":
        return { change, phase1: draw(), phase2: null };
      case "replace": {
        const a = draw();
        return { change, phase1: a, phase2: draw(a) };
      }
      case "no_change": {
        if (rng.bool(EMPTY_UNCHANGED_SHARE[type])) return { change, phase1: null, phase2: null };
        const a = draw();
        return { change, phase1: a, phase2: a };
      }
    }
  });
}

/** The change of each box, from the plan: the answer sits at the planned option (answerPlan.ts). */
function plannedChanges(rng: Rng, type: QuestionType, slot: number): ChangeType[] {
  const changed = () => rng.pick(["replace", "remove", "add"] as const);
  switch (type) {
    case "change_detection":
      return [OPTIONS.change_detection[slot] === "yes" ? changed() : "no_change"];
    case "change_identification":
      return [CHANGE_TYPES[slot]!];
    case "current_state_reasoning": {
      const c = changed();
      return CURRENT_STATE_BOXES.map((_, i) => (i === slot ? c : "no_change"));
    }
  }
}

/** The object inside a box in a world: the one whose centre lies within the box's footprint and height. */
function contentOf(objects: readonly TaskObject[], box: TaskObject): TaskObject | null {
  const b = objectBox(box);
  return (
    objects.find(
      (o) => o.id !== box.id && o.role === "target" && inFootprint(b, o.position[0], o.position[1]) && Math.abs(o.position[2] - b.centre[2]) <= b.extent[2] / 2,
    ) ?? null
  );
}

/** A box's change between two worlds, read from what lies inside it (the category, as ESI's replace draws another). */
function changeBetween(before: TaskObject | null, after: TaskObject | null): ChangeType {
  if (!before && !after) return "no_change";
  if (!before) return "add";
  if (!after) return "remove";
  return before.category === after.category ? "no_change" : "replace";
}

/** The answer from the placed boxes and both phases' objects: the derivation the suite checks. */
function deriveAnswer(type: QuestionType, boxes: readonly TaskObject[], phase1: readonly TaskObject[], phase2: readonly TaskObject[]): string {
  const changes = boxes.map((box) => changeBetween(contentOf(phase1, box), contentOf(phase2, box)));
  switch (type) {
    case "change_detection":
      return changes.some((c) => c !== "no_change") ? "yes" : "no";
    case "change_identification":
      return changes[0]!;
    case "current_state_reasoning": {
      const changed = boxes.filter((_, i) => changes[i] !== "no_change");
      return changed.length === 1 ? `${changed[0]!.color} box` : `${changed.length} boxes changed`;
    }
  }
}

/**
 * ESI's primary viewpoint of a phase (`_capture_primary_view`): candidates at the fallback pose and along each wall,
 * inset from it, at the agent's eye height, each looking at the boxes' mean look target; the one that sees the most
 * boxes, then the most box pixels, wins (ESI's third key, how centred they are, is not ours to measure). Null when no
 * candidate is a free agent position.
 */
function primaryViewpoint(room: Room, objects: TaskObject[], boxes: readonly TaskObject[], fallback: AgentPose, camera: CameraSpec): AgentPose | null {
  const targets = boxes.map((b): Vec3 => [b.position[0], b.position[1], b.position[2] - b.extent[2] / 2 + Math.min(LOOK_TARGET_RISE_M, b.extent[2] / 2)]);
  const look: Vec3 = [0, 1, 2].map((k) => targets.reduce((s, t) => s + t[k]!, 0) / targets.length) as Vec3;
  const [w, h] = room.size;
  const inset = primaryViewInset(w, h);
  const eye = fallback.position[2];
  const spots: Array<[number, number]> = [[fallback.position[0], fallback.position[1]]];
  for (const r of PRIMARY_VIEW_RATIOS) {
    const x = -w / 2 + w * r,
      y = -h / 2 + h * r;
    spots.push([-w / 2 + inset, y], [w / 2 - inset, y], [x, -h / 2 + inset], [x, h / 2 - inset]);
  }
  const world = worldOf({ room, objects });
  const scene = buildScene({ room, objects, lighting: { ambient: 0.4, sun: null, lights: [] } });
  let best: { pose: AgentPose; score: [number, number] } | null = null;
  for (const [x, y] of spots) {
    const position: Vec3 = [round4(x), round4(y), eye];
    if (!isFree(world, position)) continue;
    const { yaw, pitch } = lookAt(position, look);
    const pose: AgentPose = { position, yaw: round4(yaw), pitch: round4(pitch) };
    const counts = visibleCounts(scene, camera, pose);
    const seen = boxes.filter((b) => (counts.get(b.id) ?? 0) >= VISIBLE_MIN_PX);
    const score: [number, number] = [seen.length, seen.reduce((s, b) => s + counts.get(b.id)!, 0)];
    if (!best || score[0] > best.score[0] || (score[0] === best.score[0] && score[1] > best.score[1])) best = { pose, score };
  }
  return best?.pose ?? null;
}

export function unobservedChange(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const type = questionTypeOf(plan.form);
  const s = countingScene(rng, "living_room", ctx.camera);
  const { b } = s;
  const looks =
    type === "current_state_reasoning"
      ? CURRENT_STATE_BOXES.slice(0, BOX_COUNT[type]).map((x) => ({ ...x }))
      : Array.from({ length: BOX_COUNT[type] }, () => ({
          category: SINGLE_BOX_CATEGORY,
          color: rng.pick(categoryDef(SINGLE_BOX_CATEGORY).models[0]!.palette),
        }));
  // the largest box's footprint (with its lid's overhang) bounds every floor spot
  const half =
    Math.max(...looks.map((l) => Math.hypot(...SceneBuilder.scaledExtent(categoryDef(l.category).models[0]!.id, BOX_SCALE[1]).slice(0, 2)))) / 2 + 0.01;
  const boxes: Array<ReturnType<typeof closedBox>> = [];
  for (const look of looks) {
    const near = (p: [number, number] | null) => p && boxes.every((x) => Math.hypot(p[0] - x.box.position[0], p[1] - x.box.position[1]) <= BOX_CLUSTER_M);
    let spot: [number, number] | null = null;
    for (let i = 0; i < CLUSTER_TRIES && !near(spot); i++) spot = spotInView(s, [half, half], BOX_DISTANCE_M, 0, BOX_GAP_M);
    require(spot && near(spot), "no free floor in view for a box near the others");
    boxes.push(closedBox(b, spot[0], spot[1], 0, "floor", look));
  }
  const states = boxStates(rng, type, plannedChanges(rng, type, plan.slot));
  // phase 1's contents, then phase 2's new ones (a kept object stays the same object, its id in both phases)
  const first = states.map((st, i) => (st.phase1 ? targetInside(b, boxes[i]!.box, st.phase1) : null));
  const second = states.map((st, i) => (st.change === "no_change" ? first[i]! : st.phase2 ? targetInside(b, boxes[i]!.box, st.phase2) : null));
  assignNames(b.objects);
  const onlySecond = new Set(second.filter((o, i) => o && o !== first[i]).map((o) => o!.id));
  const onlyFirst = new Set(first.filter((o, i) => o && o !== second[i]).map((o) => o!.id));
  const phase1 = b.objects.filter((o) => !onlySecond.has(o.id));
  const phase2 = b.objects.filter((o) => !onlyFirst.has(o.id));
  const boxObjects = boxes.map((x) => x.box);
  const views = [phase1, phase2].map((objects) => primaryViewpoint(b.room, objects, boxObjects, s.agent, ctx.camera));
  require(views[0] && views[1], "no free viewpoint for a phase");
  const contents = [...new Set([...first, ...second].filter((o): o is TaskObject => o !== null))];
  const options = [...OPTIONS[type]];
  const answer = deriveAnswer(type, boxObjects, phase1, phase2);
  const start = views[0]!.position;
  // ESI's ground-truth close-ups open every box in each phase; here the trajectory walks to each box, opens it and
  // looks in, nearest first, and the suite replays it in each phase's world
  const gtActs = nearestFirst(boxObjects, start).map((box) => ({
    action: "open" as const,
    id: box.id,
    keyPoses: orbitPoses(innerFloor(box), GT_OPEN_RADII_M, GT_OPEN_HEIGHTS_M(start[2]), GT_OPEN_AZIMUTHS, rng.uniform(0, Math.PI)),
    after: [(v: Parameters<ViewGoal>[0]) => looksInto(v.pose, box)],
  }));
  return {
    roomType: "living_room",
    room: b.room,
    objects: phase1,
    lighting: defaultLighting(rng),
    agent: views[0]!,
    phases: [
      { label: PHASE_LABELS[0], objects: phase1, agent: views[0]! },
      { label: PHASE_LABELS[1], objects: phase2, agent: views[1]! },
    ],
    question: QUESTIONS[type],
    answer,
    answerFormat: type === "change_detection" ? "yes_no" : "choice",
    options,
    // the boxes and everything inside them in either phase: the question needs what each box holds in each
    relevant: [...boxObjects.map((o) => o.id), ...contents.map((o) => o.id)],
    metadata: {
      task_type: type,
      boxes: boxes.map((x, i) => ({
        box: x.box.id,
        lid: x.lid.id,
        position_label: type === "current_state_reasoning" ? looks[i]!.color : "the box",
        change_type: states[i]!.change,
        phase1_content: first[i]?.id ?? null,
        phase2_content: second[i]?.id ?? null,
      })),
    },
    derive: (objects, phases) => deriveAnswer(type, boxObjects, objects, phases?.[1] ?? objects),
    // every phase's primary view: the boxes seen, closed (nothing inside them visible)
    checkInitialView: (p) => {
      for (const o of contents) if ((p.counts.get(o.id) ?? 0) > 0) return `${o.name} inside a closed box is visible in a phase's primary view`;
      const unseen = boxObjects.filter((o) => (p.counts.get(o.id) ?? 0) < VISIBLE_MIN_PX);
      return unseen.length ? `box ${unseen.map((o) => o.id).join(", ")} not visible in a phase's primary view` : null;
    },
    gtActs,
    gtGoals: boxObjects.map((o) => (v: Parameters<ViewGoal>[0]) => (v.counts.get(o.id) ?? 0) >= VISIBLE_MIN_PX),
    gtKeyPoses: [],
  };
}
