/**
 * The built-in task suite: draws each subcategory's scenes, validates every task before it is written
 * (objects don't intersect, the answer follows from the placed geometry, the initial view sees what the
 * rule says, the ground-truth trajectory reveals what the question needs) and re-samples a task that
 * fails, never writing it.
 */
import { Rng } from "../../../core/math/rng.js";
import { poseQuaternion, type AgentPose } from "../../../core/math/camera.js";
import { SUBCATEGORY_CATEGORY, type GeneratedSubcategory } from "../../../core/task/taxonomy.js";
import { TaskSchema, type CameraSpec, type Task } from "../../../core/task/schema.js";
import { buildScene } from "../scene.js";
import { worldOf, isFree } from "../agent.js";
import { assignNames, Resample } from "./common.js";
import type { Draft, Generator, InitialViewProbe } from "./draft.js";
import { placementProblems } from "../../../core/objects/placement.js";
import { buildGtTrajectory } from "./gtTrajectory.js";
import { buildActingGtTrajectory, replayActingGt } from "./gtReveal.js";
import { visibleCounts, visibleFraction, VISIBLE_MIN_PX } from "./visibility.js";
import { geometricConfiguration, linearAlignment, physicalContact } from "./spatial.js";
import { dimensionalSize, spatialDistance } from "./metric.js";
import { materialTransparency, partialOcclusion, viewHallucination } from "./perceptual.js";
import { connectivity, longTermNavigation, regionalBoundary, traversablePassage } from "./mapping.js";
import { categoryAmbiguity, countingWithOcclusion, illuminationVariability, mergedObservation, spatialSegmentation } from "./counting.js";
import { liquidVolume, rigidContainment } from "./physical.js";
import { inclinedPlane } from "./dynamics.js";
import { stackingStability } from "./stacking.js";
import { structuralEnclosure } from "./enclosure.js";
import { deformable } from "./deformable.js";
import { mirrorCorrespondence, mirrorSpatialRelations, reflectionAuthoring } from "./mirror.js";
import { unobservedChange } from "./unobservedChange.js";
import { actionOrderInference } from "./actionOrder.js";
import { loadPhysics } from "../physics/world.js";
import { generatorContext, GeneratorOptionsSchema, type GeneratorContext } from "./options.js";
import { answerPlan, type AnswerPlan } from "./answerPlan.js";
import { agentObservation } from "./agentObservation.js";

const GENERATORS: Record<GeneratedSubcategory, Generator> = {
  geometric_configuration: geometricConfiguration,
  linear_alignment: linearAlignment,
  spatial_distance: spatialDistance,
  dimensional_size: dimensionalSize,
  physical_contact: physicalContact,
  material_transparency: materialTransparency,
  partial_occlusion: partialOcclusion,
  view_hallucination: viewHallucination,
  counting_with_occlusion: countingWithOcclusion,
  spatial_segmentation: spatialSegmentation,
  merged_observation: mergedObservation,
  category_ambiguity: categoryAmbiguity,
  illumination_variability: illuminationVariability,
  rigid_containment: rigidContainment,
  liquid_volume: liquidVolume,
  connectivity,
  traversable_passage: traversablePassage,
  regional_boundary: regionalBoundary,
  long_term_navigation: longTermNavigation,
  inclined_plane: inclinedPlane,
  stacking_stability: stackingStability,
  structural_enclosure: structuralEnclosure,
  deformable,
  reflection_authoring: reflectionAuthoring,
  mirror_spatial_relations: mirrorSpatialRelations,
  mirror_correspondence: mirrorCorrespondence,
  unobserved_change: unobservedChange,
  agent_observation: agentObservation,
  action_order_inference: actionOrderInference,
};

/** Draws per task before giving up (each failed draw is re-sampled with a fresh stream). */
const MAX_ATTEMPTS = 80;
const SIMULATOR_ID = "esi3d-builtin/1";

class GenerationError extends Error {}

/** Validates a draft and turns it into a task record, or throws Resample with the reason. */
function finalizeDraft(d: Draft, subcategory: GeneratedSubcategory, taskId: string, seed: string, camera: CameraSpec, plan: AnswerPlan): Task {
  assignNames(d.objects);
  // objects inside the room and not intersecting (touching, nesting and stacking pairs are declared): the
  // same checks as a task read from a file gets (core/objects/placement.ts)
  const problem = placementProblems(d.room, d.objects, { allowedOverlaps: d.allowedOverlaps })[0];
  if (problem) throw new Resample(problem.message);
  // the answer follows from the placed geometry
  // a world that changes: each later phase's objects pass the same checks
  const later = d.phases?.slice(1) ?? [];
  for (const ph of later) {
    const problem = placementProblems(d.room, ph.objects, { allowedOverlaps: d.allowedOverlaps })[0];
    if (problem) throw new Resample(`${ph.label}: ${problem.message}`);
  }
  const derived = d.phases
    ? d.derive(
        d.objects,
        d.phases.map((ph) => ph.objects),
      )
    : d.derive(d.objects);
  if (derived !== d.answer) throw new Resample(`answer "${d.answer}" does not follow from the geometry ("${derived}")`);
  const world = worldOf({ room: d.room, objects: d.objects, ...(d.agentLimits ? { agent_limits: d.agentLimits } : {}) });
  if (!isFree(world, d.agent.position)) throw new Resample("initial pose is not a free agent position");
  const scene = buildScene({ room: d.room, objects: d.objects, lighting: d.lighting });
  const counts = visibleCounts(scene, camera, d.agent);
  const fractions = new Map<number, number>();
  const probe: InitialViewProbe = {
    scene,
    camera,
    pose: d.agent,
    counts,
    fraction: (id) => {
      if (!fractions.has(id)) fractions.set(id, visibleFraction(scene, camera, d.agent, id).fraction);
      return fractions.get(id)!;
    },
  };
  const failure = d.checkInitialView(probe);
  if (failure) throw new Resample(`initial view: ${failure}`);
  for (const ph of later) {
    const phaseFailure = laterPhaseViewProblem(d, ph, camera);
    if (phaseFailure) throw new Resample(`${ph.label}'s primary view: ${phaseFailure}`);
  }
  const options = d.finalizeOptions ? d.finalizeOptions(probe) : d.options;
  // the planned answer position (answerPlan.ts): a wrong count is the generator's bug, a wrong slot a draw to redo
  if (options.length !== plan.options)
    throw new Error(`${taskId}: the ${subcategory} generator offered ${options.length} options where its form ${plan.form} has ${plan.options}`);
  // an ordering's answer is no option: its plan fixes the item count only
  if (!d.answerSpec && options.indexOf(d.answer) !== plan.slot) throw new Resample(`answer at option ${options.indexOf(d.answer)}, planned at ${plan.slot}`);
  const gt = d.gtActs?.length
    ? buildActingGtTrajectory(
        { room: d.room, objects: d.objects, lighting: d.lighting, label_metadata: d.metadata },
        camera,
        d.agent,
        d.gtActs,
        d.gtGoals,
        d.gtKeyPoses,
      )
    : buildGtTrajectory(scene, camera, world, d.agent, d.gtGoals, d.gtKeyPoses);
  // a phased task's ground-truth views: the trajectory replayed in each later phase's world from its own viewpoint
  // (paradigmViews), after phase 0's
  const gtViews = [
    ...gt.views,
    ...later.flatMap((ph) =>
      replayActingGt({ room: d.room, objects: ph.objects, lighting: d.lighting, label_metadata: d.metadata }, camera, ph.agent, gt.actions),
    ),
  ];
  const objectIds = new Set([...d.objects, ...later.flatMap((ph) => ph.objects)].map((o) => o.id));
  const task: Task = {
    schema: "esi3d-task/1",
    task_id: taskId,
    seed,
    category: SUBCATEGORY_CATEGORY[subcategory],
    subcategory,
    simulator: SIMULATOR_ID,
    scene: `builtin-${d.roomType}-${taskId}`,
    room: d.room,
    floor: 0,
    objects: d.objects,
    lighting: d.lighting,
    camera,
    agent_initial: agentRecord(d.agent),
    action_trajectory: gt.actions,
    view_object_existence: gtViews.map((v, i) => ({
      view: i,
      visible: [...v.counts.entries()]
        .filter(([id, n]) => objectIds.has(id) && n >= VISIBLE_MIN_PX)
        .map(([id]) => id)
        .sort((a, b) => a - b),
    })),
    question: d.question,
    answer: d.answer,
    answer_format: d.answerFormat,
    options,
    ...(d.answerSpec ? { answer_spec: d.answerSpec } : {}),
    relevant_object_ids: d.relevant,
    label_metadata: d.metadata,
    ...(d.agentLimits ? { agent_limits: d.agentLimits } : {}),
    ...(d.phases ? { phases: d.phases.map((ph) => ({ label: ph.label, objects: ph.objects, agent: agentRecord(ph.agent) })) } : {}),
  };
  // ESI-Bench's construction (Appendix Q): discard an instance whose task-relevant object is invisible in every rendered view
  for (const id of d.relevant) {
    if (!task.view_object_existence.some((v) => v.visible.includes(id))) throw new Resample(`relevant object ${id} never visible`);
  }
  return TaskSchema.parse(task);
}

/** A pose as a task records it. */
const agentRecord = (p: AgentPose) => ({ position: p.position, orientation: poseQuaternion(p), yaw: p.yaw, pitch: p.pitch });

/** What a later phase's primary view breaks of the draft's initial-view rule (null: nothing); its pose must be free. */
function laterPhaseViewProblem(d: Draft, ph: NonNullable<Draft["phases"]>[number], camera: CameraSpec): string | null {
  const world = worldOf({ room: d.room, objects: ph.objects, ...(d.agentLimits ? { agent_limits: d.agentLimits } : {}) });
  if (!isFree(world, ph.agent.position)) return "not a free agent position";
  const scene = buildScene({ room: d.room, objects: ph.objects, lighting: d.lighting });
  return d.checkInitialView({
    scene,
    camera,
    pose: ph.agent,
    counts: visibleCounts(scene, camera, ph.agent),
    fraction: (id) => visibleFraction(scene, camera, ph.agent, id).fraction,
  });
}

export interface GenerateStats {
  attempts: number;
  reasons: Map<string, number>;
}

/** The id of the built-in suite's task `index` of a subcategory: its seed stream and its file name. */
export const builtinTaskId = (subcategory: string, index: number): string => `${subcategory}-${String(index).padStart(3, "0")}`;

/** Subcategories whose generator runs the physics world. */
const SIMULATING: ReadonlySet<GeneratedSubcategory> = new Set(["inclined_plane", "stacking_stability", "action_order_inference"]);

/**
 * Loads what generateTask needs to draw these subcategories: the physics engine (once per thread, a few hundred
 * milliseconds of WebAssembly) when one of them simulates, nothing otherwise.
 */
export async function prepareGenerators(subcategories: readonly GeneratedSubcategory[]): Promise<void> {
  if (subcategories.some((s) => SIMULATING.has(s))) await loadPhysics();
}

/**
 * One task: draws until a draft validates (deterministic for a given seed, task id and generator options). A
 * subcategory that simulates needs `prepareGenerators` awaited first.
 */
export function generateTask(
  subcategory: GeneratedSubcategory,
  seed: string,
  index: number,
  ctx: GeneratorContext = generatorContext(GeneratorOptionsSchema.parse({})),
  stats?: GenerateStats,
): Task {
  const taskId = builtinTaskId(subcategory, index);
  const base = new Rng(seed).fork(taskId);
  const plan = answerPlan(seed, subcategory, index);
  let lastReason = "";
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rng = base.fork(attempt);
    if (stats) stats.attempts++;
    try {
      const draft = GENERATORS[subcategory](rng, ctx, plan);
      return finalizeDraft(draft, subcategory, taskId, seed, ctx.camera, plan);
    } catch (e) {
      if (!(e instanceof Resample)) throw e;
      lastReason = e.message;
      if (stats) stats.reasons.set(e.message.replace(/\d+/g, "N"), (stats.reasons.get(e.message.replace(/\d+/g, "N")) ?? 0) + 1);
    }
  }
  throw new GenerationError(`${taskId}: no valid scene in ${MAX_ATTEMPTS} draws (last: ${lastReason})`);
}
