/**
 * What the 3D memory does when the agent moves an object (issue 46): the manipulation as the active loop
 * reports it (ManipulationEvent), which node it moved, and what the memory should expect of that node in the
 * next views (a NodeClaim, instances/fusion.ts). Only the agent's own references, its pose and the graph so
 * far are read: never the environment's instance ids or true poses, so it works for every cloud source.
 */
import type { AgentPose } from "../core/math/camera.js";
import type { ManipulationAction } from "../core/task/actions.js";
import type { Vec3 } from "../core/math/vec.js";
import type { GraphNode } from "./types.js";
import type { NodeClaim } from "./instances/fusion.js";
import { COLORS, colorRgb, colourDistance } from "../core/task/palette.js";

/** A successful manipulation, reported by the active loop before it adds the view that shows the result. */
export interface ManipulationEvent {
  action: ManipulationAction;
  /** per reference: the node id of this memory's graph the agent named (or null: named by text) */
  nodes: Array<string | null>;
  /** the references as the agent wrote them */
  refs: string[];
  /** the camera pose when the action ran (a held object travels with it) */
  pose: AgentPose;
  /** view index of the view that will show the result (the next addView) */
  view: number;
}

/**
 * A held object is within arm's reach of the camera: its detection is the one of its label nearest the
 * camera within this distance (m). Ours: ESI-Bench's agent holds what it picked up in front of its camera,
 * well inside a metre.
 */
const HELD_REACH_M = 1.0;
/**
 * A placed object's next detection of its label has its centre within this distance (m) of the placement:
 * the target node's box for put_on and put_inside (anywhere on a table's top), where the object was picked up
 * for put_back. Ours: an object's centre rests at most half its height (0.3 m for the library's largest
 * tabletop objects) above its support's box.
 */
const PLACEMENT_REACH_M = 0.3;
/**
 * A lid is the lid-labelled node whose centre lies within this distance (m) of its box's top centre, closed or
 * opened (swung 100 degrees about the far rim, it stands behind the box: its centre moves by about the box's
 * depth). Ours, for the library's boxes (at most 0.6 m deep).
 */
const LID_REACH_M = 0.6;

/** A node label as words ("packing_box" reads "packing box"). */
const words = (label: string) => label.toLowerCase().replace(/_/g, " ");

/** A lid by its label: the lidded boxes' lids are category box_lid (and any other "... lid"). */
const isLidLabel = (label: string): boolean => /(^|\s)lid$/.test(words(label));

/**
 * The node a reference names. A node id of the graph is taken as it is. A text reference ("red mug", "the
 * packing box", "n3" of an older graph, "#57") is resolved by this rule: the nodes whose label, as words,
 * occurs in the text, the longest such label only ("box lid" over "box"); when the text names a palette
 * colour, the one whose mean colour is nearest it (palette.ts colourDistance: a white box under the room's
 * light reads grey, yet is nearer white than a brown box is); otherwise the one nearest the camera. An
 * instance id (#57) names nothing the memory knows: null.
 */
function resolveReference(nodes: readonly GraphNode[], node: string | null, ref: string, camera: Vec3): GraphNode | null {
  const byId = node === null ? undefined : nodes.find((n) => n.id === node);
  if (byId) return byId;
  const text = ` ${ref
    .toLowerCase()
    .replace(/[_\s]+/g, " ")
    .trim()} `;
  const named = nodes.filter((n) => text.includes(` ${words(n.label)} `));
  const longest = Math.max(0, ...named.map((n) => words(n.label).length));
  const candidates = named.filter((n) => words(n.label).length === longest);
  const colour = Object.keys(COLORS).find((c) => text.includes(` ${c} `));
  if (colour === undefined || candidates.length === 0) return nearest(candidates, camera);
  const rgb = colorRgb(colour);
  return candidates.reduce((a, b) => (colourDistance(b.color, rgb) < colourDistance(a.color, rgb) ? b : a));
}

function nearest(nodes: readonly GraphNode[], p: Vec3): GraphNode | null {
  let best: GraphNode | null = null,
    bestD = Infinity;
  for (const n of nodes) {
    const d = Math.hypot(n.box.centre[0] - p[0], n.box.centre[1] - p[1], n.box.centre[2] - p[2]);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

/** The centre of a node's top face: where a closed lid rests. */
const topCentre = (n: GraphNode): Vec3 => [n.box.centre[0], n.box.centre[1], n.aabb.max[2]];

/** A point as a region (a box of no size). */
const at = (p: Vec3): NodeClaim["near"] => ({ min: [...p], max: [...p] });

/** A box's lid: the lid-labelled node nearest its top centre, within LID_REACH_M. */
export function lidOf(nodes: readonly GraphNode[], box: GraphNode): GraphNode | null {
  const top = topCentre(box);
  const lid = nearest(
    nodes.filter((n) => n.id !== box.id && isLidLabel(n.label)),
    top,
  );
  return lid && Math.hypot(lid.box.centre[0] - top[0], lid.box.centre[1] - top[1], lid.box.centre[2] - top[2]) <= LID_REACH_M ? lid : null;
}

/** What the memory does with one manipulation: a node whose evidence is dropped and claimed anew, or a placement of the held node. */
export type ManipulationPlan =
  | { kind: "claim"; node: GraphNode; claim: NodeClaim; container?: GraphNode }
  | { kind: "place"; claim: Omit<NodeClaim, "label">; fallback: GraphNode | null }
  | { kind: "none"; why: string };

/**
 * The plan for one event over the graph so far. pick_up: the object's node is held. put_on / put_inside /
 * put_back: the held node is placed (on the target's top, in its interior, where it was picked up:
 * `pickedAt`). open / close: the box's lid node moves (its next detection near the box's top); the box's
 * node stays.
 */
export function planManipulation(nodes: readonly GraphNode[], e: ManipulationEvent, pickedAt: Vec3 | null): ManipulationPlan {
  const camera = e.pose.position;
  const ref = (k: number) => resolveReference(nodes, e.nodes[k] ?? null, e.refs[k] ?? "", camera);
  const object = ref(0);
  switch (e.action) {
    case "pick_up":
      if (!object) return { kind: "none", why: `pick_up: "${e.refs[0]}" names no node of the graph` };
      return { kind: "claim", node: object, claim: { label: object.label, held: true, near: at(object.box.centre), reachM: HELD_REACH_M } };
    case "put_on":
    case "put_inside": {
      const target = ref(1);
      if (!target) return { kind: "none", why: `${e.action}: "${e.refs[1]}" names no node of the graph` };
      return {
        kind: "place",
        claim: { held: false, near: { min: [...target.aabb.min], max: [...target.aabb.max] }, reachM: PLACEMENT_REACH_M },
        fallback: object,
      };
    }
    case "put_back":
      if (!pickedAt) return { kind: "none", why: `put_back: the memory saw no pick_up to put "${e.refs[0]}" back from` };
      return { kind: "place", claim: { held: false, near: at(pickedAt), reachM: PLACEMENT_REACH_M }, fallback: object };
    case "open":
    case "close": {
      if (!object) return { kind: "none", why: `${e.action}: "${e.refs[0]}" names no node of the graph` };
      const lid = lidOf(nodes, object);
      if (!lid) return { kind: "none", why: `${e.action}: the graph has no lid node on ${object.id} (${object.label})` };
      return {
        kind: "claim",
        node: lid,
        claim: { label: lid.label, held: false, near: at(topCentre(object)), reachM: LID_REACH_M },
        container: object,
      };
    }
  }
}
