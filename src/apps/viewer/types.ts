/**
 * The data an inspection page receives: shared by the Node side that builds it (src/apps/viewer/*.ts) and the
 * browser code that draws it (src/apps/viewer/client/*.mts). Type-only: nothing here runs.
 *
 * One `Variant` is one scene graph of a task: a paradigm (view set) and a point-cloud source. Heavy
 * per-point data travels as base64 of little-endian typed arrays (see `CloudPayload`), decoded in the
 * browser without copies.
 */
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import type { PreMatchRule } from "../../../scenegraph/diagnosis.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import type { ItemRecord } from "../../eval/records.js";

export const PAGE_FORMAT = "esi3d-inspect/1";

/** How the displayed cloud was thinned (docs/viewer.md "Large clouds"). */
export interface DownsampleInfo {
  /** Points in the cloud the graph was built from. */
  total: number;
  /** Points drawn. */
  shown: number;
  /** "all" (within the budget), or "voxel": one point per (voxel, node) cell of `voxel_m`. */
  method: "all" | "voxel";
  voxel_m: number | null;
  budget: number;
}

/**
 * Per-point arrays, each zlib-deflated then base64 (the page inflates them with the browser's
 * DecompressionStream). Positions are quantised to uint16 per axis inside `bounds` (step = extent / 65535:
 * 0.1 mm for a 6 m room) and stored as differences from the previous point (mod 65536; points are in cloud
 * order, so image neighbours follow each other and the differences are small), split into byte planes
 * (low bytes of x, y, z, then high bytes). A 300 k-point cloud packs into ~1.5 MB instead of ~5.6 MB.
 */
export interface CloudPayload {
  count: number;
  bounds: { min: [number, number, number]; max: [number, number, number] };
  /** 6 byte planes of 'count' bytes: lo(dx), lo(dy), lo(dz), hi(dx), hi(dy), hi(dz). */
  xyz: string;
  /** uint8 r, g, b per point. */
  rgb: string;
  /** uint8 per point: confidence mapped linearly from [conf_min, conf_max] to 0..255. */
  confidence: string;
  conf_min: number;
  conf_max: number;
  /** uint16 (LE) per point: the bundle view the point came from. */
  view: string;
  /** uint16 (LE) per point: 1 + index of the node the point belongs to in graph.nodes, 0 = none. */
  node: string;
  downsample: DownsampleInfo;
}

export interface ViewPayload {
  index: number;
  /** Full image size (pixels) and camera, for frustums and bbox scaling. */
  width: number;
  height: number;
  K: { fx: number; fy: number; cx: number; cy: number };
  /** Camera-from-world [R | t], 3 rows of 4. */
  E: number[][];
  action: string | null;
  /** Thumbnail: PNG data URL at 1 / thumb_scale of the image size. */
  thumb: string;
  thumb_width: number;
  thumb_height: number;
  /** base64 of zlib-deflated uint16 (LE) per thumbnail pixel: 1 + node index whose points came from it, 0 = none. */
  labels: string;
}

export interface TrueObjectPayload {
  id: number;
  name: string;
  category: string;
  role: string;
  /** Yaw box: centre, full extents, yaw (rad). */
  centre: [number, number, number];
  extent: [number, number, number];
  yaw: number;
}

export interface PromptPayload {
  /**
   * Where the text comes from: the record itself; rebuilt from the stored graph with the run's format (an
   * LLM run whose records keep only the hash); or what an LLM would have been sent (the symbolic reasoner
   * reads the graph directly and sends no prompt).
   */
  origin: "record" | "rebuilt" | "hypothetical";
  text: string | null;
  /** What the origin means, in one sentence. */
  note: string;
}

/** A box of a node of the graph at one step of an active episode (the memory so far). */
export interface StepNodePayload {
  id: string;
  label: string;
  box: { centre: [number, number, number]; extent: [number, number, number]; yaw: number };
  /** The graph itself flags it possible_duplicate_of another node. */
  flagged_duplicate: boolean;
}

/** One step of an active episode as the page steps through it; the step's record is `record.active.steps[k]`. */
export interface EpisodeStepPayload {
  /** Views the agent had at this step: views 0..views-1 (the current one is views-1). */
  views: number;
  /** 3D arms: the graph the agent decided on (recomputed by the real memory); null for the 2D arm. */
  nodes: StepNodePayload[] | null;
  /** A changing world moved on to its next phase after this step (no action of the agent's): what the record says came of it; else null. */
  world_change: string | null;
}

/** An active episode (paradigm active): the agent's record and what the memory held at each step. */
export interface EpisodePayload {
  /** The episode's item record (its `active` block holds every step). */
  record: ItemRecord;
  steps: EpisodeStepPayload[];
  /** How long replaying the episode (rendering, and for 3D arms the memory's updates) took at inspect time (ms). */
  replay_ms: number;
}

/** Which rule of scenegraph/diagnosis.ts decided a node's status (explain.ts): one before the match, or the match's outcome. */
export type NodeRule = PreMatchRule | "matched" | "duplicate_of_match" | "impure_unmatched";

/** One fact a status was judged on: a value, the threshold of its rule (null: compared with other nodes), the true object it is measured against. */
export interface StatusFact {
  name: string;
  value: number;
  threshold: number | null;
  unit: "share" | "m" | "iou";
  against: string | null;
  /** The fact that decided the status. */
  decisive: boolean;
}

export interface NodeExplanation {
  node: string;
  status: string;
  rule: NodeRule;
  /** The rules re-applied to the points give the stored status (false: a diagnosis made by other code). */
  consistent: boolean;
  /** One sentence, with the numbers. */
  why: string;
  facts: StatusFact[];
}

export interface ObjectExplanation {
  id: number;
  status: string;
  why: string;
  /** Nodes holding some of its cloud points, most first. */
  holders: Array<{ node: string; status: string; points: number }>;
}

/** Why every node has its status and every missed object was missed (explain.ts). */
export interface Explanations {
  nodes: NodeExplanation[];
  objects: ObjectExplanation[];
}

export interface Variant {
  key: string;
  paradigm: string;
  source: string;
  /** "2d": the 2D arm of an active run, which builds no graph (graph and diagnosis null, no cloud; the page shows the episode). */
  arm: "2d" | "3d";
  /** paradigm active: the episode to step through. */
  episode: EpisodePayload | null;
  graph: SceneGraph | null;
  diagnosis: Diagnosis | null;
  /** Why each status (null without a graph). */
  explanations: Explanations | null;
  /** The 3D record of this paradigm and source, and the 2D baseline's record of the paradigm, when the run has them. */
  record3d: ItemRecord | null;
  record2d: ItemRecord | null;
  prompt: PromptPayload;
  cloud: CloudPayload;
  views: ViewPayload[];
  thumb_scale: number;
  /** How long building this variant took on the server (ms), by stage. */
  timings_ms: Record<string, number>;
}

export interface VariantRef {
  key: string;
  paradigm: string;
  source: string;
  /** Headline numbers for the switcher, from the stored diagnosis. */
  f1_observed: number;
  duplicates: number;
  hallucinated: number;
  merged: number;
  /** nodes where a moved object was (0 in a diagnosis written before objects could move) */
  stale: number;
  missed: number;
  correct: boolean | null;
  /** "2d": an active run's 2D arm (no graph; the numbers above are 0). */
  arm: "2d" | "3d";
  /** paradigm active: the episode's steps. */
  steps: number | null;
}

export interface TaskInfo {
  task_id: string;
  subcategory: string;
  question: string;
  options: string[];
  answer: string;
  answer_format: string;
  room: { size: [number, number] };
  objects: TrueObjectPayload[];
}

/** The page's head: everything small, parsed at once; variants are fetched or decoded on demand. */
export interface PageMeta {
  format: typeof PAGE_FORMAT;
  esi3d_version: string;
  /** "file": variants embedded in the page; "serve": fetched from `api` on the local server. */
  mode: "file" | "serve";
  title: string;
  run: { dir: string; reasoner: string; masks: string; instances: string; format: string; noise_level: number | null } | null;
  task: TaskInfo;
  variants: VariantRef[];
  initial: string;
  /** paradigm active: the step the page opens at (default: the last). */
  initial_step: number | null;
  /** Other tasks of the run (serve mode: links to switch task). */
  tasks: Array<{ task_id: string; subcategory: string; href: string }>;
  /** serve mode: URL prefix of variant data and exports. */
  api: string | null;
  /** serve mode: the run's index page (the brand links there); "/" when absent */
  home?: string;
}
