/**
 * The ground-truth scene graph: one node per task object, from its true box and points sampled on its
 * mesh, with relations computed by the same code as predicted graphs. Node ids are "o<objectId>".
 */
import type { Task, TaskObject } from "../core/task/schema.js";
import { PHASE_MOVED_M, taskPhases, worldAtLastPhase } from "../core/task/phases.js";
import { surfaceSamples, uprightEnclosingBox } from "../core/objects/geometry.js";
import { computeRelations, type RelNode } from "./relations.js";
import { GRAPH_FORMAT, GRAPH_FRAME, type GraphMirror, type GraphNode, type NodeChange, type Relation, type SceneGraph, type TimeChange } from "./types.js";
import { MIRROR_CATEGORY, mirrorPlane } from "../core/objects/mirror.js";
import type { YawBox } from "../core/geometry.js";
import { colorRgb, namedColorRgb } from "../core/task/palette.js";
import { dist, type Vec3 } from "../core/math/vec.js";
import { nodeInterior } from "./nodes.js";
import { nodePhysics, trueUpAxis } from "./physicalAttributes.js";
import { truthRegions } from "./regions.js";
import { Lru } from "../core/lru.js";
import { sha256Hex } from "../core/hash.js";

/** The palette colour of a true node whose task records no colour. */
const UNKNOWN_COLOUR = "grey";

/**
 * Mesh sampling spacing for true objects' points (m). Samples lie exactly on the surfaces, so closest
 * distances (touching: 2.5 cm) are measured to within this spacing; not downsampled.
 */
const TRUE_SURFACE_SPACING_M = 0.01;

export interface TrueNode extends RelNode {
  objectId: number;
  label: string;
  name: string;
}

export function trueNodes(task: Task): TrueNode[] {
  // a changing world's truth is its last phase
  return worldAtLastPhase(task).objects.map((o) => {
    // a tilted object's node holds all of it: its height is how far it rises, not its own thickness
    const box: YawBox = uprightEnclosingBox(o);
    const xyz = surfaceSamples(o, TRUE_SURFACE_SPACING_M);
    return { id: `o${o.id}`, objectId: o.id, label: o.category, name: o.name, box, xyz };
  });
}

export function trueRelations(task: Task, nodes = trueNodes(task)): Relation[] {
  return computeRelations(nodes, { position: task.agent_initial.position, yaw: task.agent_initial.yaw });
}

/**
 * Tasks whose true relations a thread keeps: a runner's units of one task (one per paradigm) run close
 * together on a thread, so a few tasks cover them; each entry is a few kB of relations.
 */
const TRUE_RELATIONS_CACHE_TASKS = 16;
const relationsCache = new Lru<string, readonly Relation[]>(TRUE_RELATIONS_CACHE_TASKS);

/**
 * trueRelations of a task, computed once per thread for every unit of it (single, multi, gt): keyed by the
 * task id and a hash of exactly what the relations read (the objects and the initial viewpoint), so an
 * edited task with the same id is computed afresh. The array is shared: callers must not change it.
 */
export function cachedTrueRelations(task: Task): readonly Relation[] {
  const key = `${task.task_id}\u0000${sha256Hex(JSON.stringify([task.objects, task.phases ?? null, task.agent_initial.position, task.agent_initial.yaw]))}`;
  const hit = relationsCache.get(key);
  if (hit) return hit;
  const rel = trueRelations(task);
  relationsCache.set(key, rel);
  return rel;
}

/**
 * The ground-truth scene graph as an esi3d-graph/1 document: one node per task object with its true box,
 * category and colour, and relations from the same code as predicted graphs. What a perfect
 * reconstruction with perfect instance association would give.
 * The reasoners' programs are checked on it (tests, and the measurement scripts of the physics subcategories),
 * built here beside trueNodes and trueRelations so that it cannot drift from the truth the diagnosis uses.
 */
export function truthGraph(task: Task, paradigm: SceneGraph["paradigm"] = "truth"): SceneGraph {
  const nodes = trueNodes(task);
  const objects = worldAtLastPhase(task).objects;
  const time = task.phases ? truthTime(task) : null;
  const graphNodes: GraphNode[] = nodes.map((n) => {
    const o = objects.find((x) => x.id === n.objectId)!;
    const c = Math.cos(n.box.yaw),
      s = Math.sin(n.box.yaw);
    const [ex, ey, ez] = n.box.extent;
    const hx = (Math.abs(c) * ex + Math.abs(s) * ey) / 2,
      hy = (Math.abs(s) * ex + Math.abs(c) * ey) / 2;
    const centre = n.box.centre;
    const aabb = {
      min: [centre[0] - hx, centre[1] - hy, centre[2] - ez / 2] as Vec3,
      max: [centre[0] + hx, centre[1] + hy, centre[2] + ez / 2] as Vec3,
    };
    return {
      id: n.id,
      label: n.label,
      label_distribution: { [n.label]: 1 },
      centroid: centre,
      // an imported task records no colours: its true nodes are neutral grey
      color: namedColorRgb(o.color) ?? colorRgb(UNKNOWN_COLOUR),
      color_name: o.color,
      box: n.box,
      aabb,
      // the object's own volume and clear inside, whatever box holds it
      volume_m3: o.extent[0] * o.extent[1] * o.extent[2],
      ...nodeInterior(n.label, o.extent),
      point_count: n.xyz.length / 3,
      raw_point_count: n.xyz.length / 3,
      views: [],
      detections: 0,
      mean_confidence: 1,
      flags: { low_support: false, possible_duplicate_of: [], fragment: false },
      support: [],
      // upright from the recorded orientation, as ESI checks it; the rest from the mesh's points as for any node
      physics: nodePhysics(n.xyz, n.box, aabb, trueUpAxis(o.orientation)),
      ...(time ? { time: time.nodeTime(o.id) } : {}),
    };
  });
  const regions = truthRegions(task, graphNodes);
  const mirrors = truthMirrors(task);
  return {
    ...(regions ? { regions } : {}),
    format: GRAPH_FORMAT,
    task_id: task.task_id,
    paradigm,
    source: "truth",
    masks: "oracle",
    instances: "truth",
    frame: GRAPH_FRAME,
    viewpoint: { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch },
    params: { surface_spacing_m: TRUE_SURFACE_SPACING_M },
    nodes: graphNodes,
    relations: trueRelations(task, nodes),
    structure: { floor_points: 0, wall_points: 0 },
    // as a built graph: tasks with a mirror only, so every other truth graph stays as it was
    ...(mirrors.length ? { mirrors } : {}),
    ...(time ? { time: time.graph } : {}),
    timings_ms: {},
  };
}

/** The same place within this distance (m): the diff's own rule (scenegraph/time.ts), so truth and diff name changes alike. */
const TRUE_SAME_PLACE_M = 0.2;

/**
 * What truly changed between a task's phases, as a diff graph records it: per phase, objects moved (by id, their
 * centre shifted), removed, added, or added where a removed object of another category stood (replaced); each
 * object of the last phase seen in the phases that hold it, with the last change that touched it.
 */
function truthTime(task: Task): { graph: NonNullable<SceneGraph["time"]>; nodeTime: (id: number) => NonNullable<GraphNode["time"]> } {
  const phases = taskPhases(task);
  const changes: TimeChange[] = [];
  const lastChange = new Map<number, NodeChange>();
  const centre = (o: TaskObject): Vec3 => [...o.position] as Vec3;
  const apart = (a: TaskObject, b: TaskObject) => dist(a.position, b.position);
  for (let k = 1; k < phases.length; k++) {
    const before = new Map(phases[k - 1]!.objects.map((o) => [o.id, o]));
    const now = new Map(phases[k]!.objects.map((o) => [o.id, o]));
    const gone = [...before.values()].filter((o) => !now.has(o.id));
    for (const o of now.values()) {
      const b = before.get(o.id);
      if (b && apart(b, o) > PHASE_MOVED_M) {
        changes.push({ change: "moved", label: o.category, phase: k, at: centre(o), from: centre(b), node: `o${o.id}` });
        lastChange.set(o.id, "moved");
      } else if (!b) {
        const was = gone.find((g) => g.category !== o.category && apart(g, o) <= TRUE_SAME_PLACE_M);
        if (was) gone.splice(gone.indexOf(was), 1);
        changes.push({
          change: was ? "replaced" : "added",
          label: o.category,
          phase: k,
          at: centre(o),
          ...(was ? { was: was.category } : {}),
          node: `o${o.id}`,
        });
        lastChange.set(o.id, was ? "replaced" : "added");
      }
    }
    for (const g of gone) changes.push({ change: "removed", label: g.category, phase: k, at: centre(g) });
  }
  // removals name no node, and a node's entry names the object of the last phase
  const lastIds = new Set(phases.at(-1)!.objects.map((o) => o.id));
  for (const c of changes) if (c.node && !lastIds.has(Number(c.node.slice(1)))) delete c.node;
  return {
    graph: { mode: "diff", phases: phases.map((p) => p.label), changes },
    nodeTime: (id) => {
      const seen = phases.filter((p) => p.objects.some((o) => o.id === id)).map((p) => p.index);
      return { seen_in: seen, last_seen: seen.at(-1)!, change: lastChange.get(id) ?? "kept" };
    },
  };
}

/**
 * The task's mirrors as a graph's `mirrors` entries (scenegraph/mirrors.ts gives a built graph's from its nodes):
 * each mirror object's true reflective rectangle (core/objects/mirror.ts mirrorPlane), its normal towards the side
 * it reflects, on the mirror's node.
 */
function truthMirrors(task: Task): GraphMirror[] {
  return task.objects
    .filter((o) => o.category === MIRROR_CATEGORY)
    .map((o) => {
      const { id, ...plane } = mirrorPlane(o);
      return { node: `o${id}`, ...plane };
    });
}
