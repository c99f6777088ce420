/**
 * A generated room made to change between two looks, for the time tests: in phase 2 the object view 0 shows most
 * is gone, the second is moved across the floor, and a new object of the third's category stands where the
 * first view saw floor.
 */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { captureBundle, renderBundle } from "../../bridge/sim/capture.js";
import { TaskSchema, type Task, type TaskObject } from "../../core/task/schema.js";
import { idCounts } from "../../core/idTally.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import type { FrameBundle } from "../../core/bundle/io.js";

export interface ChangingWorld {
  task: Task;
  removed: TaskObject;
  moved: { before: TaskObject; after: TaskObject };
  added: TaskObject;
}

export function changingWorld(seed = "time"): ChangingWorld {
  const base = generateTask("spatial_distance", seed, 0);
  const seen = idCounts(captureBundle(base, "single").payloads[0]!.ids);
  const bySight = base.objects.filter((o) => o.support === "floor" || o.support === undefined).sort((a, b) => (seen.get(b.id) ?? 0) - (seen.get(a.id) ?? 0));
  const [removed, mover, template] = bySight as [TaskObject, TaskObject, TaskObject];
  // moved towards the room centre's other side, and a new object placed between the camera and the room centre
  const after: TaskObject = { ...mover, position: [-mover.position[0] * 0.5, -mover.position[1] * 0.5, mover.position[2]] };
  const cam = base.agent_initial.position;
  const added: TaskObject = {
    ...template,
    id: Math.max(...base.objects.map((o) => o.id)) + 1,
    name: `the other ${template.category}`,
    position: [cam[0] * 0.5, cam[1] * 0.5, template.position[2]],
  };
  const later = [...base.objects.filter((o) => o.id !== removed.id && o.id !== mover.id), after, added];
  const task = TaskSchema.parse({
    ...base,
    phases: [
      { label: "Phase 1", objects: base.objects },
      { label: "Phase 2", objects: later },
    ],
  });
  return { task, removed, moved: { before: mover, after }, added };
}

export const bundleOf = (w: ChangingWorld, paradigm: Paradigm): FrameBundle => renderBundle(w.task, paradigm);

/** The same room where, in phase 2, the smallest object view 0 sees has slid `shiftM` metres along x, towards the room's centre. */
export function nudgedWorld(shiftM: number, seed = "time"): { task: Task; nudged: TaskObject } {
  const base = generateTask("spatial_distance", seed, 0);
  const seen = idCounts(captureBundle(base, "single").payloads[0]!.ids);
  const small = base.objects
    .filter((o) => (seen.get(o.id) ?? 0) > 0)
    .sort((a, b) => a.extent[0] * a.extent[1] * a.extent[2] - b.extent[0] * b.extent[1] * b.extent[2])[0]!;
  const nudged: TaskObject = { ...small, position: [small.position[0] - Math.sign(small.position[0]) * shiftM, small.position[1], small.position[2]] };
  const task = TaskSchema.parse({
    ...base,
    phases: [
      { label: "Phase 1", objects: base.objects },
      { label: "Phase 2", objects: base.objects.map((o) => (o.id === small.id ? nudged : o)) },
    ],
  });
  return { task, nudged };
}
