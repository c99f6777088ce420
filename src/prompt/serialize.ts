/**
 * Scene graph → prompt text, in four formats (the ESI-Bench paper leaves the serialization open;
 * these are ours, after the public systems):
 *
 * - `json`: ConceptGraphs' object list (its LLM prompt: id, tag, bbox centre and extent), one
 *   object per line, metres to 2 decimals (ali-dev/BBQ precision; CG `main`'s 1 dp is too coarse for small
 *   objects), plus yaw in **degrees**;
 * - `relations`: the same list plus the graph's relation triples, each with its closest-point and centre distance,
 *   labelled as such (VSI-Bench's findings);
 * - `text`: plain sentences, one per object, with its relations;
 * - `cogmap`: VSI-Bench's cognitive map (its paper, Thinking in Space): a size × size grid (10 by default) seen from
 *   above, `{"category": [[row, col], ...]}`, with the grid's mapping to metres and the agent's cell and heading.
 *
 * Every format opens with its conventions: axes, units, what yaw means, where the agent stands and faces
 * (`graph.viewpoint`), and what left/right/in front/behind are relative to (the agent's initial view).
 *
 * `uncertainty: true` adds the evidence the paper asks for and no published system serializes
 * (the ESI-Bench paper's 3D-augmented models, "uncertainty-aware scene-graph construction"): per object its
 * support (views, points, mean confidence), label votes when they disagree, and flags (possible duplicate of …, fragment, low support); per relation its margin;
 * and an explanation of how to weigh them. With `uncertainty: false` none of this appears.
 *
 * Output is a pure function of the graph and the options: nodes and relations keep the graph's order, numbers are
 * printed with fixed decimals, and nothing depends on time, locale or object key order.
 */
import { STACK_MIN_RISE_M, STACK_MIN_XY_IOU, TOUCHING_GAP_M, UPRIGHT_MIN_DOT } from "../../core/task/rules.js";
import { DUPLICATE_NEAR_M, FRAGMENT_MAX_SHARE, LOW_SUPPORT_MAX_POINTS } from "../../scenegraph/nodes.js";
import {
  ABOVE_MIN_GAP_M,
  CANDIDATE_RADIUS_M,
  EGO_DEAD_ZONE_M,
  INSIDE_Z_TOLERANCE_M,
  NEAR_M,
  ON_ABOVE_TOP_M,
  ON_BELOW_TOP_M,
  ON_MIN_IOM,
  STACK_CONTACT_M,
} from "../../scenegraph/relations.js";
import { MIN_TOP_CELLS, TOP_CELL_M, TOP_PLANE_MAX_RMS_M, UPRIGHT_MAX_TILT_DEG } from "../../scenegraph/physicalAttributes.js";
import { PREDICATES, type GraphNode, type NodeChange, type Predicate, type Relation, type SceneGraph } from "../../scenegraph/types.js";
import { GRAPH_FORMATS, type GraphFormat } from "./formats.js";

/** Decimals for metres in every format: 0.01 m (ali-dev and BBQ; CG `main`'s 0.1 m loses small objects). */
const METRE_DECIMALS = 2;
/** Decimals for confidences and label-vote fractions: two are enough to compare objects. Ours. */
const FRACTION_DECIMALS = 2;
/** Angles (yaw, pitch) are printed in whole degrees: box yaw from a few hundred points is not better than ~1°. Ours. */
const DEGREE_DECIMALS = 0;
/** Decimals for areas (m^2): metres to 0.01 m make areas to 0.0001 m^2, so a 1 cm square still shows. Ours. */
const AREA_DECIMALS = 4;
/** VSI-Bench's cognitive map is a 10 × 10 grid (its paper, Thinking in Space); its 20 × 20 ablation is allowed too. */
export const DEFAULT_COGMAP_SIZE = 10;
/** Smallest and largest grid accepted: 2 cells is the least that places anything; 50 × 50 already prints 2,500 cells' worth of range. Ours. */
const MIN_COGMAP_SIZE = 2;
const MAX_COGMAP_SIZE = 50;
/** The cognitive map covers at least this many metres per side, so that a graph of one small object still maps sensibly. Ours. */
const MIN_COGMAP_SIDE_M = 1;
/**
 * Relations with a margin under this (m) are called fragile in the uncertainty explanation: ESI-Bench's own contact
 * ground truth jitters objects by ±0.05 m (its released batch_touching.py drifts each object uniformly within it),
 * and it equals the duplicate gate DUPLICATE_NEAR_M. Ours.
 */
const SMALL_MARGIN_M = 0.05;

export interface SerializeOptions {
  format: GraphFormat;
  /** Add node support and flags, relation margins, and how to weigh them. */
  uncertainty: boolean;
  /** cogmap only: cells per side (default DEFAULT_COGMAP_SIZE). */
  cogmapSize?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// number formatting (fixed decimals, never "-0.00")

export function fmt(x: number, dp = METRE_DECIMALS): string {
  const s = x.toFixed(dp);
  return Number(s) === 0 ? (0).toFixed(dp) : s;
}

const fmtVec = (v: readonly number[], dp = METRE_DECIMALS) => `[${v.map((x) => fmt(x, dp)).join(", ")}]`;
const deg = (r: number) => (r * 180) / Math.PI;

/** Box yaw in degrees in [0, 180): a box turned by 180° is the same box. */
function boxYawDeg(yawRad: number): number {
  let d = Number(fmt(((deg(yawRad) % 180) + 180) % 180, DEGREE_DECIMALS));
  if (d >= 180) d -= 180;
  return d;
}

/** A heading in degrees in [0, 360), counter-clockwise from +X. */
function headingDeg(yawRad: number): number {
  let d = Number(fmt(((deg(yawRad) % 360) + 360) % 360, DEGREE_DECIMALS));
  if (d >= 360) d -= 360;
  return d;
}

// ---------------------------------------------------------------------------------------------------------------
// the viewpoint

interface ViewFrame {
  /** horizontal unit vector the agent faces: (cos yaw, sin yaw) */
  forward: [number, number];
  /** the agent's right: (sin yaw, −cos yaw), as scenegraph/relations.ts uses it */
  right: [number, number];
}

function viewFrame(yaw: number): ViewFrame {
  const forward: [number, number] = [Math.cos(yaw), Math.sin(yaw)];
  return { forward, right: [forward[1], -forward[0]] };
}

function pitchPhrase(pitch: number): string {
  const d = Number(fmt(Math.abs(deg(pitch)), DEGREE_DECIMALS));
  if (d === 0) return "camera level";
  return `camera pitched ${d}° ${pitch > 0 ? "up" : "down"}`;
}

function viewpointLines(g: SceneGraph): string[] {
  const vp = g.viewpoint;
  const { forward, right } = viewFrame(vp.yaw);
  return [
    `- You (the agent) stand at x ${fmt(vp.position[0])}, y ${fmt(vp.position[1])} with your camera ${fmt(vp.position[2])} m above the floor, ` +
      `facing yaw ${headingDeg(vp.yaw)}° (forward = ${fmtVec(forward)} in x, y; your right = ${fmtVec(right)}), ${pitchPhrase(vp.pitch)}. This is your initial view.`,
    `- Left, right, in front of and behind are meant as seen from this initial view: A is left of B when A lies further towards your left ` +
      `(−right) than B; A is in front of B when A is nearer to you along forward than B.`,
  ];
}

function axesLine(): string {
  return "- Coordinates: world frame, right-handed, Z up, metres; x and y are horizontal, z is height above the floor (z = 0).";
}

function boxLine(): string {
  return (
    "- Each object is a box: `centre` [x, y, z] is the box centre; `extent` [a, b, h] is the full size along the box's own horizontal axes a and b and vertically; " +
    "`yaw_deg` is the angle in degrees, counter-clockwise seen from above, from world +X to the box's a axis, in [0, 180) since a box turned by 180° is the same box."
  );
}

/** Centimetres with at most one decimal ("2.5 cm", "5 cm"). */
const cm = (m: number) => `${fmt(m * 100, 1).replace(/\.0$/, "")} cm`;

/** What each predicate means, with the thresholds scenegraph/relations.ts uses; `text` names them as the sentences do. */
function predicateLines(style: EvidenceStyle): string[] {
  const t = style === "text";
  const pct = `${fmt(ON_MIN_IOM * 100, 0)}%`;
  return [
    `- Relations were computed only between objects whose boxes come within ${fmt(CANDIDATE_RADIUS_M)} m of each other; a missing relation between two objects says nothing about them.`,
    `- ${t ? "on" : "`on`"}: A's bottom is between ${cm(ON_BELOW_TOP_M)} below and ${cm(ON_ABOVE_TOP_M)} above B's top and more than ${pct} of A's footprint lies over B; ` +
      `${t ? '"B is supporting A"' : '"B supports A"'} is the same fact.`,
    `- ${t ? "inside" : "`inside`"}: A's centre lies within B's footprint and A's height range within B's (${cm(INSIDE_Z_TOLERANCE_M)} tolerance); ` +
      `${t ? '"B is containing A"' : '"B contains A"'} is the same fact.`,
    `- ${t ? "above / below" : "`above` / `below`"}: A's bottom is at least ${cm(ABOVE_MIN_GAP_M)} over B's top and more than ${pct} of A's footprint lies over B.`,
    `- ${t ? "touching" : "`touching`"}: the closest points of A and B are at most ${cm(TOUCHING_GAP_M)} apart; ${t ? "near" : "`near`"}: closer than ${fmt(NEAR_M)} m but not touching. Both are symmetric.`,
    `- ${t ? "left of / right of / in front of / behind" : "`left_of` / `right_of` / `in_front_of` / `behind`"}: from your initial view (above), comparing box centres; ` +
      `given only when they differ by more than ${fmt(EGO_DEAD_ZONE_M)} m.`,
    `- ${t ? "stacked on" : "`stacked_on`"}: A and B touch (closest points at most ${cm(STACK_CONTACT_M)} apart), A's lowest point is at least ${cm(STACK_MIN_RISE_M)} above B's, ` +
      `and their outlines seen from above overlap by an intersection over union of at least ${fmt(STACK_MIN_XY_IOU, 1)} (ESI-Bench's stacking rule); ` +
      `${t ? '"B is stacked under A"' : '"B stacked_under A"'} is the same fact.`,
  ];
}

/** Whether any node carries physical attributes (graphs written before they were recorded have none). */
const hasPhysics = (g: SceneGraph) => g.nodes.some((n) => n.physics !== undefined);
const hasMayContain = (g: SceneGraph) => g.nodes.some((n) => n.flags.may_contain === true);
const hasBehindMirror = (g: SceneGraph) => g.nodes.some((n) => n.flags.behind_mirror !== undefined);

/** What the physical attributes mean, for a graph that has them; `text` names them as the sentences do. */
function physicsLines(style: EvidenceStyle): string[] {
  const k = (json: string, text: string) => (style === "json" ? `\`${json}\`` : `"${text}"`);
  return [
    `- ${k("height_m", "height")}: the height of the object's points (m); ${k("footprint_m2", "footprint")}: its box's floor area, a × b (m²).`,
    `- ${k("upright", "upright")}: the object's up axis (the normal of its top, where its highest points lie within ${cm(TOP_PLANE_MAX_RMS_M)} of a plane) is within ${fmt(UPRIGHT_MAX_TILT_DEG, 0)}° of vertical ` +
      `(its dot product with +Z above ${fmt(UPRIGHT_MIN_DOT, 1)}, ESI-Bench's stacking check); ${k("upright: false", "lying")} otherwise.`,
    `- ${k("top_tilt_deg", "top tilted")}: the tilt from horizontal, in degrees, of a plane fitted to the object's highest points (one per ${cm(TOP_CELL_M)} square seen from above); ` +
      `absent when fewer than ${MIN_TOP_CELLS} such points. Friction and mass are not in the views: no field gives them.`,
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// uncertainty

type EvidenceStyle = "json" | "text";

function uncertaintyLines(style: EvidenceStyle, withRelations: boolean, withPhysics: boolean, withMayContain = false, withBehindMirror = false): string[] {
  const k = (json: string, text: string) => (style === "json" ? `\`${json}\`` : `"${text}"`);
  const lines = [
    "Evidence and uncertainty: this scene graph was reconstructed automatically from the camera views and can be wrong in known ways: " +
      "one real object can appear as two or more objects (duplicates, fragments), an object can be spurious (nothing real there), and positions can be off, which corrupts relations. Each object carries its evidence:",
    `- ${k("support", "evidence")}: the number of views it was seen in, the number of 3D points behind it, and the mean confidence of those points ` +
      `(on VGGT's scale: 1 or more, higher is more reliable; compare objects with each other; every point from exact depth has 1).`,
    `- ${k("possible_duplicate_of", "possible duplicate of")}: other objects with the same label whose boxes overlap or come within ${fmt(DUPLICATE_NEAR_M)} m of this one. ` +
      "They may be one object seen twice: when counting, count such a group once unless their positions and sizes clearly show separate objects.",
    `- ${k("fragment", "fragment")}: the object has at most ${fmt(FRAGMENT_MAX_SHARE * 100, 0)}% of the points of a same-label object next to it; it is most likely a piece of that object, not a separate one.`,
    `- ${k("low_support", "low support")}: seen in only one view with fewer than ${LOW_SUPPORT_MAX_POINTS} points; it may be spurious, so give it less weight.`,
    `- ${k("label_votes", "label votes")} (only when the views disagreed): the share of the object's points that voted for each label.`,
  ];
  // only where a graph has such a container: every other prompt stays as it was
  if (withMayContain)
    lines.push(
      `- ${k("may_contain", "may contain")}: a container whose inside no view has shown (closed, or seen only from the side): it may hold objects the graph does not list.`,
    );
  // only where a graph has a node behind one of its mirrors
  if (withBehindMirror)
    lines.push(
      `- ${k("behind_mirror", "behind mirror")}: the object lies behind the plane of the named mirror and was seen through it: it may be the reflection of an object in front of the mirror, not a real object.`,
    );
  if (withPhysics) {
    lines.push(
      `- ${k("upright_margin_deg", "upright margin")}: how many degrees the object's up axis is from the ${fmt(UPRIGHT_MAX_TILT_DEG, 0)}° that would flip ${k("upright", "upright")}; 0 when its points show no axis (a round top): then nothing decided it. ` +
        `${k("top_fit_rms_m", "fit")}: how far (m, RMS) its highest points lie from the fitted top plane; a large value means the top is no plane and its tilt says little.`,
    );
  }
  if (withRelations) {
    lines.push(
      `- ${k("margin_m", "margin")} on each relation: how far (m) the deciding quantity is from the threshold that would flip the relation. ` +
        `A relation with a margin under ${fmt(SMALL_MARGIN_M)} m may well be wrong; check it against the coordinates.`,
    );
  }
  lines.push(
    "Weigh what you read by this evidence: trust well-supported objects" +
      (withRelations ? " and relations with large margins" : "") +
      "; be sceptical of flagged objects" +
      (withRelations ? " and small margins" : "") +
      ", and let your confidence reflect the doubt.",
  );
  return lines;
}

/** Labels with their vote share, when more than one label got votes; sorted by share, then name. */
function labelVotes(n: GraphNode): [string, number][] | undefined {
  const e = Object.entries(n.label_distribution).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return e.length > 1 ? e : undefined;
}

function colourOf(n: GraphNode): string | undefined {
  // the mean colour's palette name, where the graph carries one (scenegraph/nodes.ts)
  const c = (n as Partial<{ color_name: unknown }>).color_name;
  return typeof c === "string" && c !== "" ? c : undefined;
}

const q = (s: string) => JSON.stringify(s);

/** The uncertainty fields of an object, as JSON members: support, label votes (when they disagree), flags. */
function evidenceMembers(n: GraphNode): string[] {
  const parts = [`"support": {"views": ${n.views.length}, "points": ${n.raw_point_count}, "confidence": ${fmt(n.mean_confidence, FRACTION_DECIMALS)}}`];
  const votes = labelVotes(n);
  if (votes) parts.push(`"label_votes": {${votes.map(([l, v]) => `${q(l)}: ${fmt(v, FRACTION_DECIMALS)}`).join(", ")}}`);
  const f: string[] = [];
  if (n.flags.possible_duplicate_of.length) f.push(`"possible_duplicate_of": [${n.flags.possible_duplicate_of.map(q).join(", ")}]`);
  if (n.flags.fragment) f.push(`"fragment": true`);
  if (n.flags.low_support) f.push(`"low_support": true`);
  if (n.flags.may_contain) f.push(`"may_contain": true`);
  if (n.flags.behind_mirror !== undefined) f.push(`"behind_mirror": ${q(n.flags.behind_mirror)}`);
  if (n.flags.held) f.push(`"held": true`);
  parts.push(`"flags": {${f.join(", ")}}`);
  return parts;
}

function identityMembers(n: GraphNode): string[] {
  const parts = [`"id": ${q(n.id)}`, `"label": ${q(n.label)}`];
  const colour = colourOf(n);
  if (colour) parts.push(`"colour": ${q(colour)}`);
  return parts;
}

/** The physical attributes of an object, as JSON members (none for a node that has none); margins with uncertainty. */
function physicsMembers(n: GraphNode, uncertainty: boolean): string[] {
  const p = n.physics;
  if (!p) return [];
  const parts = [`"height_m": ${fmt(p.height_m)}`, `"footprint_m2": ${fmt(p.footprint_m2, AREA_DECIMALS)}`, `"upright": ${p.upright}`];
  if (uncertainty) parts.push(`"upright_margin_deg": ${fmt(p.upright_margin_deg, DEGREE_DECIMALS)}`);
  if (p.top_tilt_deg !== null) parts.push(`"top_tilt_deg": ${fmt(p.top_tilt_deg, DEGREE_DECIMALS)}`);
  if (uncertainty && p.top_fit_rms_m !== null) parts.push(`"top_fit_rms_m": ${fmt(p.top_fit_rms_m, 3)}`);
  return parts;
}

function nodeJson(n: GraphNode, uncertainty: boolean, phases?: readonly string[]): string {
  const parts = [
    ...identityMembers(n),
    `"centre": ${fmtVec(n.box.centre)}`,
    `"extent": ${fmtVec(n.box.extent)}`,
    `"yaw_deg": ${boxYawDeg(n.box.yaw)}`,
    ...physicsMembers(n, uncertainty),
    ...timeMembers(n, phases),
  ];
  if (uncertainty) parts.push(...evidenceMembers(n));
  return `{${parts.join(", ")}}`;
}

function relationJson(r: Relation, uncertainty: boolean): string {
  const parts = [
    `"subject": ${q(r.subject)}`,
    `"predicate": ${q(r.predicate)}`,
    `"object": ${q(r.object)}`,
    `"closest_m": ${fmt(r.closest_distance_m)}`,
    `"centre_m": ${fmt(r.centre_distance_m)}`,
  ];
  if (uncertainty) parts.push(`"margin_m": ${fmt(r.margin_m)}`);
  return `{${parts.join(", ")}}`;
}

const jsonList = (items: string[]) => (items.length ? `[\n${items.map((s) => `  ${s}`).join(",\n")}\n]` : "[]");

function plural(n: number, one: string, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// ---------------------------------------------------------------------------------------------------------------
// formats

function serializeJson(g: SceneGraph, uncertainty: boolean, withRelations: boolean): string {
  const conv = ["Conventions:", axesLine(), boxLine(), ...(hasPhysics(g) ? physicsLines("json") : []), ...viewpointLines(g)];
  if (withRelations) {
    conv.push(
      '- Each relation reads "subject predicate object"; `closest_m` is the distance between the two objects\' closest points, `centre_m` the distance between their box centres (m).',
      ...predicateLines("json"),
    );
  }
  const out = [`Scene graph: ${plural(g.nodes.length, "object")}${withRelations ? `, ${plural(g.relations.length, "relation")}` : ""}.`, "", conv.join("\n")];
  if (uncertainty) out.push("", uncertaintyLines("json", withRelations, hasPhysics(g), hasMayContain(g), hasBehindMirror(g)).join("\n"));
  out.push("", "Objects (JSON list):", jsonList(g.nodes.map((n) => nodeJson(n, uncertainty, g.time?.phases))));
  if (withRelations) out.push("", "Relations (JSON list):", jsonList(g.relations.map((r) => relationJson(r, uncertainty))));
  return out.join("\n");
}

const PREDICATE_PHRASE: Record<Predicate, string> = {
  on: "on",
  supports: "supporting",
  inside: "inside",
  contains: "containing",
  touching: "touching",
  near: "near",
  above: "above",
  below: "below",
  left_of: "left of",
  right_of: "right of",
  in_front_of: "in front of",
  behind: "behind",
  stacked_on: "stacked on",
  stacked_under: "stacked under",
};
/** Predicates the graph stores once per pair; the text format states them for both objects. */
const SYMMETRIC: ReadonlySet<Predicate> = new Set(["touching", "near"]);

const article = (label: string) => (/^[aeiou]/i.test(label) ? "an" : "a");

function joinAnd(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** The physical attributes in words (", height 0.30 m, footprint 0.0120 m², upright, top tilted 25°"); margins with uncertainty. */
function physicsPhrase(n: GraphNode, uncertainty: boolean): string {
  const p = n.physics;
  if (!p) return "";
  const margin = uncertainty ? ` (margin ${fmt(p.upright_margin_deg, DEGREE_DECIMALS)}°)` : "";
  const parts = [`height ${fmt(p.height_m)} m`, `footprint ${fmt(p.footprint_m2, AREA_DECIMALS)} m²`, `${p.upright ? "upright" : "lying"}${margin}`];
  if (p.top_tilt_deg !== null)
    parts.push(`top tilted ${fmt(p.top_tilt_deg, DEGREE_DECIMALS)}°${uncertainty && p.top_fit_rms_m !== null ? ` (fit ${fmt(p.top_fit_rms_m, 3)} m)` : ""}`);
  return `, ${parts.join(", ")}`;
}

function serializeText(g: SceneGraph, uncertainty: boolean): string {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const relsOf = new Map<string, { predicate: Predicate; other: string; margin: number }[]>();
  const add = (subject: string, predicate: Predicate, other: string, margin: number) => {
    let l = relsOf.get(subject);
    if (!l) relsOf.set(subject, (l = []));
    l.push({ predicate, other, margin });
  };
  for (const r of g.relations) {
    add(r.subject, r.predicate, r.object, r.margin_m);
    if (SYMMETRIC.has(r.predicate)) add(r.object, r.predicate, r.subject, r.margin_m);
  }
  const ref = (id: string, extra = "") => {
    const o = byId.get(id);
    return o ? `${id} (${article(o.label)} ${o.label}${extra})` : extra ? `${id} (${extra.replace(/^; /, "")})` : id;
  };
  const sentences = g.nodes.map((n) => {
    const colour = colourOf(n);
    const e = n.box.extent;
    let s =
      `${n.id} is ${article(colour ?? n.label)} ${colour ? `${colour} ` : ""}${n.label} at (${n.box.centre.map((x) => fmt(x)).join(", ")}) m, ` +
      `${e.map((x) => fmt(x)).join(" × ")} m, yaw ${boxYawDeg(n.box.yaw)}°${physicsPhrase(n, uncertainty)}`;
    const rels = relsOf.get(n.id) ?? [];
    if (rels.length) {
      const groups: string[] = [];
      for (const p of PREDICATES) {
        const objs = rels.filter((r) => r.predicate === p).map((r) => ref(r.other, uncertainty ? `; margin ${fmt(r.margin)} m` : ""));
        if (objs.length) groups.push(`${PREDICATE_PHRASE[p]} ${joinAnd(objs)}`);
      }
      // predicate groups are separated by semicolons: a group may itself list several objects with commas
      s += `; it is ${groups.join("; ")}`;
    }
    s += `.${timePhrase(n, g.time?.phases)}`;
    if (uncertainty) {
      const ev = [`seen in ${plural(n.views.length, "view")}, ${plural(n.raw_point_count, "point")}, confidence ${fmt(n.mean_confidence, FRACTION_DECIMALS)}`];
      const votes = labelVotes(n);
      if (votes) ev.push(`label votes ${votes.map(([l, v]) => `${l} ${fmt(v, FRACTION_DECIMALS)}`).join(", ")}`);
      if (n.flags.possible_duplicate_of.length) ev.push(`possible duplicate of ${joinAnd(n.flags.possible_duplicate_of.map((id) => ref(id)))}`);
      if (n.flags.fragment) ev.push("fragment");
      if (n.flags.low_support) ev.push("low support");
      if (n.flags.may_contain) ev.push("may contain unseen objects");
      if (n.flags.behind_mirror !== undefined) ev.push(`behind mirror ${n.flags.behind_mirror}, seen through it: may be a reflection`);
      if (n.flags.held) ev.push("held by you");
      s += ` Evidence: ${ev.join("; ")}.`;
    }
    return s;
  });
  const conv = [
    "Conventions:",
    axesLine(),
    "- Each object is a box: its centre (x, y, z), its full size a × b × h along its own horizontal axes and vertically, and its yaw: the angle in degrees, counter-clockwise seen from above, from world +X to the box's a axis, in [0, 180).",
    ...(hasPhysics(g) ? physicsLines("text") : []),
    ...viewpointLines(g),
    '- Relations are stated in each object\'s sentence, one predicate per clause: "n0 is ...; it is near n2 (...) and n4 (...); left of n3 (...)" means n0 is near n2, near n4 and left of n3.',
    ...predicateLines("text"),
  ];
  const out = [`Scene graph: ${plural(g.nodes.length, "object")}, ${plural(g.relations.length, "relation")}.`, "", conv.join("\n")];
  if (uncertainty) out.push("", uncertaintyLines("text", true, hasPhysics(g), hasMayContain(g), hasBehindMirror(g)).join("\n"));
  out.push("", "Objects:", sentences.length ? sentences.join("\n") : "(none)");
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// cognitive map

interface CogMapCell {
  id: string;
  label: string;
  row: number;
  col: number;
}

interface CogMap {
  size: number;
  /** side of a (square) cell, m */
  cellM: number;
  /** the grid's west (smallest x) and north (largest y) edges, m */
  xMin: number;
  yMax: number;
  /** one per node, in graph order: the cell of its box centre */
  cells: CogMapCell[];
  agent: { row: number; col: number };
}

function checkSize(size: number): number {
  if (!Number.isInteger(size) || size < MIN_COGMAP_SIZE || size > MAX_COGMAP_SIZE) {
    throw new RangeError(`cogmapSize must be an integer from ${MIN_COGMAP_SIZE} to ${MAX_COGMAP_SIZE}, got ${size}`);
  }
  return size;
}

/**
 * The grid: square cells (so that grid distances are proportional to metres, as VSI's locality metric assumes),
 * covering the union of the nodes' boxes and the agent's position in x and y, centred on it. Row 0 is the
 * largest-y edge and rows grow towards −y; column 0 is the smallest-x edge and columns grow towards +x. A point is in
 * the cell that contains it; one on the far edge goes to the last cell.
 */
function cognitiveMap(g: SceneGraph, size = DEFAULT_COGMAP_SIZE): CogMap {
  checkSize(size);
  let x0 = g.viewpoint.position[0],
    x1 = x0,
    y0 = g.viewpoint.position[1],
    y1 = y0;
  for (const n of g.nodes) {
    x0 = Math.min(x0, n.aabb.min[0]);
    x1 = Math.max(x1, n.aabb.max[0]);
    y0 = Math.min(y0, n.aabb.min[1]);
    y1 = Math.max(y1, n.aabb.max[1]);
  }
  const side = Math.max(x1 - x0, y1 - y0, MIN_COGMAP_SIDE_M);
  // cell size rounded up to the printed precision, so that the printed mapping is exact
  const cellM = Math.ceil((side / size) * 10 ** METRE_DECIMALS - 1e-9) / 10 ** METRE_DECIMALS;
  const xMin = Number(fmt((x0 + x1) / 2 - (cellM * size) / 2));
  const yMax = Number(fmt((y0 + y1) / 2 + (cellM * size) / 2));
  const clamp = (k: number) => Math.min(size - 1, Math.max(0, k));
  const cellOf = (x: number, y: number) => ({ row: clamp(Math.floor((yMax - y) / cellM)), col: clamp(Math.floor((x - xMin) / cellM)) });
  return {
    size,
    cellM,
    xMin,
    yMax,
    cells: g.nodes.map((n) => ({ id: n.id, label: n.label, ...cellOf(n.box.centre[0], n.box.centre[1]) })),
    agent: cellOf(g.viewpoint.position[0], g.viewpoint.position[1]),
  };
}

/** 8-way map direction of a heading (0° = +x = towards higher columns, 90° = +y = towards row 0). */
const MAP_DIRECTIONS = [
  "right (higher columns)",
  "up-right",
  "up (towards row 0)",
  "up-left",
  "left (lower columns)",
  "down-left",
  "down (higher rows)",
  "down-right",
];

function serializeCogmap(g: SceneGraph, uncertainty: boolean, size: number): string {
  const m = cognitiveMap(g, size);
  const byLabel = new Map<string, { cells: string[]; colours: string[] }>();
  g.nodes.forEach((n, i) => {
    const c = m.cells[i]!;
    let e = byLabel.get(n.label);
    if (!e) byLabel.set(n.label, (e = { cells: [], colours: [] }));
    e.cells.push(`[${c.row}, ${c.col}]`);
    e.colours.push(colourOf(n) ?? "unknown");
  });
  const labels = [...byLabel.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mapJson = `{${labels.map((l) => `${q(l)}: [${byLabel.get(l)!.cells.join(", ")}]`).join(", ")}}`;
  const anyColour = g.nodes.some((n) => colourOf(n) !== undefined);
  const colourJson = `{${labels.map((l) => `${q(l)}: [${byLabel.get(l)!.colours.map(q).join(", ")}]`).join(", ")}}`;

  const vp = g.viewpoint;
  const { forward, right } = viewFrame(vp.yaw);
  // a world direction (dx, dy) on the map: Δcol = dx, Δrow = −dy
  const onMap = (d: [number, number]) => `(Δrow ${fmt(-d[1])}, Δcol ${fmt(d[0])})`;
  const h = headingDeg(vp.yaw);
  const dir = MAP_DIRECTIONS[Math.round(h / 45) % 8]!;
  const xMax = m.xMin + m.cellM * m.size,
    yMin = m.yMax - m.cellM * m.size;
  const conv = [
    "Conventions:",
    `- The map is a ${m.size} × ${m.size} grid seen from above, in the world frame (right-handed, Z up, metres). It covers x from ${fmt(m.xMin)} to ${fmt(xMax)} m and y from ${fmt(yMin)} to ${fmt(m.yMax)} m; each cell is ${fmt(m.cellM)} m × ${fmt(m.cellM)} m.`,
    `- Cell [row, col]: row 0 is the top edge (largest y) and rows grow towards −y; column 0 is the left edge (smallest x) and columns grow towards +x. ` +
      `The centre of cell [row, col] is at x = ${fmt(m.xMin)} + ${fmt(m.cellM)} × (col + 0.5), y = ${fmt(m.yMax)} − ${fmt(m.cellM)} × (row + 0.5). Heights are not shown.`,
    "- Each object is placed in the cell that contains the centre of its box; the map lists, per category, the cells of all its instances.",
    `- You (the agent) stand in cell [${m.agent.row}, ${m.agent.col}] (x ${fmt(vp.position[0])}, y ${fmt(vp.position[1])}, camera ${fmt(vp.position[2])} m above the floor), ` +
      `facing yaw ${h}° (counter-clockwise from +X seen from above), which on the map points ${dir}: one cell forward is ${onMap(forward)}; your right is ${onMap(right)}; ${pitchPhrase(vp.pitch)}. This is your initial view.`,
    "- Left, right, in front of and behind are meant as seen from this initial view: A is left of B when A lies further towards your left than B; A is in front of B when A is nearer to you along your facing direction than B.",
    ...(hasPhysics(g) ? physicsLines("json") : []),
  ];
  const out = [`Cognitive map: ${plural(g.nodes.length, "object")} in ${plural(labels.length, "category", "categories")}.`, "", conv.join("\n")];
  if (uncertainty) out.push("", uncertaintyLines("json", false, hasPhysics(g), hasMayContain(g)).join("\n"));
  out.push("", "Map (JSON: category → [row, col] of each instance):", mapJson);
  if (anyColour) out.push("", "Colours of the same instances, in the same order:", colourJson);
  if (hasPhysics(g)) {
    const shapes = labels.map(
      (l) =>
        `${q(l)}: [${g.nodes
          .filter((n) => n.label === l)
          .map((n) => `{${physicsMembers(n, false).join(", ")}}`)
          .join(", ")}]`,
    );
    out.push("", "Shapes of the same instances, in the same order (heights are in metres):", `{${shapes.join(", ")}}`);
  }
  if (uncertainty) {
    const lines = g.nodes.map(
      (n, i) =>
        `{${[...identityMembers(n), `"cell": [${m.cells[i]!.row}, ${m.cells[i]!.col}]`, ...physicsMembers(n, true), ...evidenceMembers(n)].join(", ")}}`,
    );
    out.push("", "Instances with their evidence (JSON list, same instances as the map):", jsonList(lines));
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * The region layer (multi-room graphs only; single-room graphs serialize as before): rooms with their floor
 * rectangles and objects, doorways as edges between rooms, the pairs of rooms the views show apart; any other pair
 * is unknown (the views may show part of the plan). JSON lists in the json formats, sentences otherwise.
 */
function regionSection(g: SceneGraph, format: SerializeOptions["format"]): string {
  const r = g.regions;
  if (!r) return "";
  const apart = r.separations ?? [];
  const rect = (x: { min: number[]; max: number[] }) => `x ${fmt(x.min[0]!)}..${fmt(x.max[0]!)}, y ${fmt(x.min[1]!)}..${fmt(x.max[1]!)}`;
  const head = `Rooms: ${plural(r.rooms.length, "room")} segmented from the walls and floor seen, ${plural(r.doorways.length, "doorway")}; a doorway joins two rooms directly, and an object belongs to the room holding its centre. Two rooms listed as apart have no doorway between them; for any other pair without a doorway the views do not show whether one exists.`;
  const why = (by: string) => (by === "wall" ? "a wall seen closed" : "no shared wall");
  if (format === "json" || format === "relations") {
    const rooms = r.rooms.map(
      (x) =>
        `{"id": ${q(x.id)}, "type": ${q(x.type)}, "min": [${x.min.map((v) => fmt(v)).join(", ")}], "max": [${x.max.map((v) => fmt(v)).join(", ")}], "objects": [${x.objects.map(q).join(", ")}]}`,
    );
    const doors = r.doorways.map(
      (d) => `{"rooms": [${d.rooms.map(q).join(", ")}], "centre": [${d.centre.map((v) => fmt(v)).join(", ")}], "width_m": ${fmt(d.width_m)}}`,
    );
    const out = ["", head, "", "Rooms (JSON list):", jsonList(rooms), "", "Doorways (JSON list):", jsonList(doors)];
    if (apart.length) out.push("", "Rooms apart (JSON list):", jsonList(apart.map((d) => `{"rooms": [${d.rooms.map(q).join(", ")}], "by": ${q(why(d.by))}}`)));
    return out.join("\n");
  }
  const rooms = r.rooms.map(
    (x) =>
      `${x.id} is ${article(x.type)} ${x.type.replace(/_/g, " ")} spanning ${rect(x)} m; it holds ${x.objects.length ? joinAnd(x.objects) : "no object of the graph"}.`,
  );
  const doors = r.doorways.map(
    (d) => `A doorway at (${d.centre.map((v) => fmt(v)).join(", ")}) m, ${fmt(d.width_m)} m wide, joins ${d.rooms[0]} and ${d.rooms[1]}.`,
  );
  const parted = apart.map((d) => `${d.rooms[0]} and ${d.rooms[1]} are apart (${why(d.by)}).`);
  return ["", head, ...rooms, ...(doors.length ? doors : ["No doorway was found."]), ...parted].join("\n");
}

/**
 * The mirrors the graph's nodes show (graphs without any serialize as before): each one's plane, facing the side
 * it was seen from, and its size. A JSON list in the json formats, sentences otherwise.
 */
function mirrorSection(g: SceneGraph, format: SerializeOptions["format"]): string {
  const mirrors = g.mirrors ?? [];
  if (!mirrors.length) return "";
  const head = `Mirrors: ${plural(mirrors.length, "mirror")}. A mirror reflects what is in front of it: an object that appears behind a mirror's plane, where the views saw it through the mirror, may be the reflection of an object in front of it, not a real object.`;
  const size = (m: (typeof mirrors)[number]) => [fmt(2 * m.half_width_m), fmt(2 * m.half_height_m)];
  if (format === "json" || format === "relations") {
    const items = mirrors.map((m) => {
      const [w, h] = size(m);
      return `{"node": ${q(m.node)}, "centre": ${fmtVec(m.centre)}, "normal": ${fmtVec(m.normal, FRACTION_DECIMALS)}, "width_m": ${w}, "height_m": ${h}}`;
    });
    return [
      "",
      "",
      head,
      "- `normal`: the unit normal of its plane, towards the side it was seen from (the side it reflects).",
      "",
      "Mirrors (JSON list):",
      jsonList(items),
    ].join("\n");
  }
  const lines = mirrors.map((m) => {
    const [w, h] = size(m);
    return `${m.node} is a mirror: a reflective plane centred at (${m.centre.map((x) => fmt(x)).join(", ")}) m, facing (${m.normal.map((x) => fmt(x, FRACTION_DECIMALS)).join(", ")}), ${w} m wide and ${h} m high.`;
  });
  return ["", "", head, ...lines].join("\n");
}

export function serializeGraph(graph: SceneGraph, opts: SerializeOptions): string {
  return serializeObjects(graph, opts) + mirrorSection(graph, opts.format) + regionSection(graph, opts.format) + timeSection(graph, opts.format);
}

// ---------------------------------------------------------------------------------------------------------------
// time (graphs of a changing world's phases only: every other graph serializes as before)

/** A phase by the label the graph records for it. */
const phaseName = (phases: readonly string[], p: number): string => phases[p] ?? `phase ${p + 1}`;

/** An object's moments, as JSON members: the phases that saw it, and what the diff says happened to it. */
function timeMembers(n: GraphNode, phases: readonly string[] | undefined): string[] {
  if (!n.time || !phases) return [];
  const parts = [`"seen_in": [${n.time.seen_in.map((p) => q(phaseName(phases, p))).join(", ")}]`];
  if (n.time.change) parts.push(`"change": ${q(n.time.change)}`);
  return parts;
}

/** The same in words, after an object's sentence. */
function timePhrase(n: GraphNode, phases: readonly string[] | undefined): string {
  if (!n.time || !phases) return "";
  const seen = n.time.seen_in.map((p) => phaseName(phases, p));
  const only = seen.length === 1 && phases.length > 1 ? " only" : "";
  return ` Seen in ${joinAnd(seen)}${only}${n.time.change ? `; ${CHANGE_PHRASE[n.time.change]}` : ""}.`;
}

const capitalise = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

const CHANGE_PHRASE: Record<NodeChange, string> = {
  kept: "kept (seen again in the same place)",
  moved: "moved (seen elsewhere, its old place seen empty)",
  added: "added (seen where earlier views saw nothing)",
  replaced: "replaced (seen where an object of another label was)",
  new: "new to the views (no earlier view saw its place: whether it changed is unknown)",
  unconfirmed: "unconfirmed (not seen again, and the later views did not see its place either: it may be gone)",
  removed: "removed (its place seen empty)",
};

/**
 * What the views say about time: the moments, in order, and how the graph remembers them. A diff graph lists what
 * changed between moments (its removals are in no object's entry); a fused graph warns that an object that moved
 * can appear twice. A JSON list in the json formats, sentences otherwise.
 */
function timeSection(g: SceneGraph, format: SerializeOptions["format"]): string {
  const t = g.time;
  if (!t) return "";
  const moments = `The views show the scene at ${plural(t.phases.length, "moment")}, in time order: ${joinAnd(t.phases)}; the scene may have changed between them while no one watched.`;
  const how =
    t.mode === "diff"
      ? "This graph is the memory after the last moment: each object says in which moments it was seen and what comparing the moments says happened to it " +
        "(kept: seen again in the same place; moved: seen elsewhere, its old place seen empty; added: seen where earlier views saw nothing; replaced: seen where an object of another label was; " +
        "new: first seen where no earlier view looked, so whether it changed is unknown; unconfirmed: not seen again, and the later views did not see its place either). " +
        "An object whose place a later moment saw empty is in no object's entry: it is listed as removed."
      : "This graph fuses the views of every moment into one: an object that moved can appear twice (where it was and where it is), and a removed object can still appear. " +
        `Each object says in which moments it was seen; ${t.phases.at(-1)} is the scene now.`;
  const head = ["", "", `Time: ${moments} ${how}`];
  // the cognitive map names categories, not objects: their moments are listed here instead
  if (format === "cogmap")
    head.push(
      ...g.nodes
        .filter((n) => n.time)
        .map((n) => `${n.id} (${article(n.label)} ${n.label} at x ${fmt(n.box.centre[0])}, y ${fmt(n.box.centre[1])}):${timePhrase(n, t.phases)}`),
    );
  if (t.mode === "fuse") return head.join("\n");
  const at = (v: readonly number[]) => `(${v.map((x) => fmt(x)).join(", ")})`;
  if (format === "json" || format === "relations") {
    const items = t.changes.map((c) =>
      [
        `"change": ${q(c.change)}`,
        `"label": ${q(c.label)}`,
        `"seen_in": ${q(phaseName(t.phases, c.phase))}`,
        `"at": ${fmtVec(c.at)}`,
        ...(c.from ? [`"from": ${fmtVec(c.from)}`] : []),
        ...(c.was ? [`"was": ${q(c.was)}`] : []),
        ...(c.node ? [`"object": ${q(c.node)}`] : []),
      ].join(", "),
    );
    return [
      ...head,
      "- `at`: where it is now (for a removal, where it was); `from`: where a moved object was; `was`: what a replaced object replaced.",
      "",
      "Changes (JSON list):",
      jsonList(items.map((x) => `{${x}}`)),
    ].join("\n");
  }
  const sentences = t.changes.map((c) => {
    const when = `by ${phaseName(t.phases, c.phase)}`;
    const who = c.node ? `${c.node} (${article(c.label)} ${c.label})` : `${article(c.label)} ${c.label}`;
    switch (c.change) {
      case "moved":
        return `${who} moved ${when} from ${at(c.from!)} to ${at(c.at)} m.`;
      case "removed":
        return `${capitalise(article(c.label))} ${c.label} at ${at(c.at)} m was removed ${when}.`;
      case "replaced":
        return `${who} replaced ${article(c.was!)} ${c.was} at ${at(c.at)} m ${when}.`;
      default:
        return `${who} was added at ${at(c.at)} m ${when}.`;
    }
  });
  return [...head, ...(sentences.length ? sentences : ["No change was seen."])].join("\n");
}

function serializeObjects(graph: SceneGraph, opts: SerializeOptions): string {
  switch (opts.format) {
    case "json":
      return serializeJson(graph, opts.uncertainty, false);
    case "relations":
      return serializeJson(graph, opts.uncertainty, true);
    case "text":
      return serializeText(graph, opts.uncertainty);
    case "cogmap":
      return serializeCogmap(graph, opts.uncertainty, checkSize(opts.cogmapSize ?? DEFAULT_COGMAP_SIZE));
    default:
      throw new RangeError(`unknown graph format "${String(opts.format)}": expected one of ${GRAPH_FORMATS.join(", ")}`);
  }
}
