/**
 * The scene graph: object nodes with evidence, and spatial relations with margins. Serialized as
 * `esi3d-graph/1` JSON (docs/scene-graph.md).
 */
import type { Vec3 } from "../src/core/math/vec.js";
import type { AgentPoseRecord } from "../bridge/task/schema.js";
import type { MaskMode } from "./evidence.js";

/** Gravity-aligned (yaw-only) oriented box: centre, full extents along its own x, y, z, yaw (rad). */
export interface YawBoxJson {
  centre: Vec3;
  extent: Vec3;
  yaw: number;
}

export interface NodeSupport {
  view: number;
  /** Raw points (pixels) from this view. */
  points: number;
  /** Pixel bounding box [x0, y0, x1, y1] of those points in the view image. */
  bbox: [number, number, number, number];
}

export interface NodeFlags {
  /** Seen in one view only, with few points: weak evidence. */
  low_support: boolean;
  /** Other nodes with the same label that overlap or nearly touch this one. */
  possible_duplicate_of: string[];
  /** A sliver of a larger same-label node next to it. */
  fragment: boolean;
}

export interface GraphNode {
  id: string;
  label: string;
  /** Label votes, as fractions of the node's points. */
  label_distribution: Record<string, number>;
  centroid: Vec3;
  /** Mean colour of the node's points, and the nearest palette colour name. */
  color: [number, number, number];
  color_name: string;
  box: YawBoxJson;
  aabb: { min: Vec3; max: Vec3 };
  volume_m3: number;
  /** Downsampled points (voxel size in `params`). */
  point_count: number;
  /** Raw cloud points behind the node. */
  raw_point_count: number;
  views: number[];
  detections: number;
  mean_confidence: number;
  flags: NodeFlags;
  support: NodeSupport[];
}

export const PREDICATES = ["on", "supports", "inside", "contains", "touching", "near", "above", "below", "left_of", "right_of", "in_front_of", "behind"] as const;
export type Predicate = (typeof PREDICATES)[number];

export interface Relation {
  subject: string;
  predicate: Predicate;
  object: string;
  /** How far from flipping (m): the smallest change of the deciding quantity that would flip it. */
  margin_m: number;
  centre_distance_m: number;
  closest_distance_m: number;
}

export interface SceneGraph {
  format: "esi3d-graph/1";
  task_id: string;
  paradigm: string;
  source: string;
  masks: MaskMode;
  instances: string;
  /** Conventions of every coordinate in this graph. */
  frame: "world, Z up, metres; yaw counter-clockwise from +X";
  /** The agent's initial pose: the viewpoint of left/right/front/behind. */
  viewpoint: Pick<AgentPoseRecord, "position" | "yaw" | "pitch">;
  params: Record<string, number | string>;
  nodes: GraphNode[];
  relations: Relation[];
  /** Structure points found (floor, walls), for reference. */
  structure: { floor_points: number; wall_points: number };
  timings_ms: Record<string, number>;
}
