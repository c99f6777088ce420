/**
 * Agent Observation's programs (ESI's multi-agent task): how many objects of a category did the robot pass within
 * 1.0 m during its walk? The views are the static observer's frames, each of the world at one moment of the walk (one
 * phase each, in time order), each turned towards the robot.
 *
 * - 3D (the graph): the robot's places in time order are its walk: a diff graph lists its moves (from, to, the phase
 *   that saw it moved), a fused graph keeps a node per place (each with the phases that saw it); the answer is the
 *   nodes of the category within 1.0 m of that polyline (ESI-Bench's spec: "objects within 1.0 m of a polyline").
 * - 2D (the masks): no depth, no pose, no identity across views. In each view, the robot's mask and the category's
 *   masks stand on the floor where size constancy puts them (the camera's frame); a mask within 1.0 m of the robot's
 *   in the same view is an object passed. An object seen from the fixed observer keeps its distance from it while the
 *   observer turns, so sightings of the same range (within RANGE_SAME_OBJECT_FRACTION) are taken for one object; only
 *   the views from the observer's spot (each phase's first, which no action led to) are read.
 * Neither reads the task's objects, its metadata or its answer.
 */
import { polylineDistance } from "../../core/math/polyline.js";
import { ROBOT_CATEGORY } from "../../core/objects/library.js";
import type { GraphNode, SceneGraph } from "../../scenegraph/types.js";
import { declined, marginConfidence, nearestOption, type Decision } from "./decision.js";
import type { Query } from "./query.js";

/** ESI `PROXIMITY_THRESH` (batch_multi_agent.py): passed means within this distance (m) of the robot. */
const PASS_DISTANCE_M = 1.0;
/** A distance this far (m) from the threshold makes a passed / not passed call certain. Ours: the gt source's robot centroid sits ~0.1 m off its base. */
const PASS_MARGIN_SCALE_M = 0.3;
/** Nodes of the category closer than this (m) are one object seen twice. Ours: the generator keeps objects 0.2 m apart plus their sizes. */
const SAME_OBJECT_M = 0.2;
/** Robot places closer than this (m) are one stop of its walk (a move's end and the node it left there). Ours: a tenth of ESI's 0.385 m between frames. */
const SAME_PLACE_M = 0.04;
/** 2D: sightings whose ranges from the observer differ by less than this fraction are one object. Ours. */
const RANGE_SAME_OBJECT_FRACTION = 0.2;
/** 2D decisions from size constancy alone are never surer than this. Ours, as Specular Reflection's mask programs. */
const MASK_MAX_CONFIDENCE = 0.6;

type XY = readonly [number, number];

/** The answer from each object's least distance to the robot (m): the count within PASS_DISTANCE_M, sure as its closest call. */
function passAnswer(options: string[], distances: readonly number[], trace: string[], cap = 1): Decision {
  const passed = distances.filter((d) => d < PASS_DISTANCE_M).length;
  const answer = nearestOption(options, passed);
  const margin = Math.min(PASS_MARGIN_SCALE_M, ...distances.map((d) => Math.abs(d - PASS_DISTANCE_M)));
  trace.push(`${passed} of ${distances.length} within ${PASS_DISTANCE_M} m of the robot -> option ${answer}`);
  return { answer, confidence: Math.min(cap, marginConfidence(margin, PASS_MARGIN_SCALE_M)), trace };
}

/** One node per object: a node within SAME_OBJECT_M of a larger one of the same label is that one again. */
function distinct(nodes: readonly GraphNode[]): GraphNode[] {
  const kept: GraphNode[] = [];
  for (const n of [...nodes].sort((a, b) => b.raw_point_count - a.raw_point_count))
    if (kept.every((k) => Math.hypot(k.centroid[0] - n.centroid[0], k.centroid[1] - n.centroid[1]) >= SAME_OBJECT_M)) kept.push(n);
  return kept;
}

/**
 * When the graph saw a node where it is: the last phase that saw it (graphs of a changing world: a node a diff
 * followed through moves stands where that phase saw it), else its first view (views come in phase order).
 */
const seenThere = (n: GraphNode) => n.time?.last_seen ?? Math.min(...n.views);

/**
 * The robot's walk in time order: the places of its moves a diff graph lists (each from where it was to where a
 * later phase saw it) and its nodes (a fused graph keeps one per place, a diff graph the last and any it could not
 * follow), each at the phase that saw it there.
 */
function robotWalk(g: SceneGraph): XY[] {
  const stops: Array<{ when: number; at: XY }> = [];
  for (const c of g.time?.changes ?? [])
    if (c.label === ROBOT_CATEGORY && c.change === "moved") {
      // the place it left was seen before the phase that shows it gone
      if (c.from) stops.push({ when: c.phase - 0.5, at: [c.from[0], c.from[1]] });
      stops.push({ when: c.phase, at: [c.at[0], c.at[1]] });
    }
  for (const n of g.nodes) if (n.label === ROBOT_CATEGORY && n.views.length > 0) stops.push({ when: seenThere(n), at: [n.centroid[0], n.centroid[1]] });
  stops.sort((a, b) => a.when - b.when);
  const walk: XY[] = [];
  for (const s of stops) if (!walk.some((p) => Math.hypot(p[0] - s.at[0], p[1] - s.at[1]) < SAME_PLACE_M)) walk.push(s.at);
  return walk;
}

/** 3D: the robot's places in time order are its walk; the category's nodes within 1.0 m of it are the objects passed. */
export function agentObservationProgram(g: SceneGraph, q: Query, trace: string[]): Decision {
  const cat = q.countCategory;
  if (!cat) return declined("the question names no category to count", trace);
  const walk = robotWalk(g);
  if (walk.length === 0) return declined("the graph has no robot", trace);
  trace.push(`robot walk (${g.time ? `${g.time.mode} graph` : "one world"}): ${walk.map((p) => `(${p[0].toFixed(2)}, ${p[1].toFixed(2)})`).join(" ")}`);
  const objects = distinct(g.nodes.filter((n) => n.label === cat));
  const distances = objects.map((n) => polylineDistance([n.centroid[0], n.centroid[1]], walk));
  objects.forEach((n, i) => trace.push(`${n.id} (${cat}) ${distances[i]!.toFixed(2)} m from the walk`));
  return passAnswer(q.options, distances, trace);
}

/** What the 2D program reads of one view: its phase (time order) and its masks' floor places in the camera's frame (x right, z forward; m). */
export interface PlacedView {
  phase: number;
  /** the view follows no action: a phase's first view, from where the observer stands */
  fromStart: boolean;
  masks: ReadonlyArray<{ label: string; place: XY | null }>;
}

/** 2D: per view, the category's masks near the robot's mask on the floor; sightings of one range are one object. */
export function agentObservation2d(views: readonly PlacedView[], q: Query, trace: string[]): Decision {
  const cat = q.countCategory;
  if (!cat) return declined("the question names no category to count", trace);
  // per object (by its range from the observer): the least distance to the robot any view showed
  const objects: Array<{ range: number; least: number }> = [];
  let robotSeen = 0;
  // the observer's own frames (each phase's first view): a walk away from its spot would change every range
  const frames = views.some((v) => v.fromStart) ? views.filter((v) => v.fromStart) : views;
  for (const v of [...frames].sort((a, b) => a.phase - b.phase)) {
    const robot = v.masks.find((m) => m.label === ROBOT_CATEGORY && m.place)?.place;
    if (!robot) continue;
    robotSeen++;
    for (const m of v.masks) {
      if (m.label !== cat || !m.place) continue;
      const range = Math.hypot(m.place[0], m.place[1]);
      const d = Math.hypot(m.place[0] - robot[0], m.place[1] - robot[1]);
      const same = objects.find((o) => Math.abs(o.range - range) < RANGE_SAME_OBJECT_FRACTION * Math.max(o.range, range));
      if (same) same.least = Math.min(same.least, d);
      else objects.push({ range, least: d });
    }
  }
  if (robotSeen === 0) return declined("no view shows the robot at a place size constancy gives", trace);
  trace.push(
    `${robotSeen} view(s) show the robot; ${objects.length} ${cat}(s) by range: ${objects.map((o) => `${o.range.toFixed(2)} m away, ${o.least.toFixed(2)} m from the robot`).join("; ")}`,
  );
  return passAnswer(
    q.options,
    objects.map((o) => o.least),
    trace,
    MASK_MAX_CONFIDENCE,
  );
}
