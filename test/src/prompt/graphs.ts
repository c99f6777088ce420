/** Small hand-built scene graphs for prompt tests: every number is chosen so the expected text is known. */
import type { GraphNode, Relation, SceneGraph } from "../../../scenegraph/types.js";
import type { Vec3 } from "../../../core/math/vec.js";

interface NodeSpec {
  id: string;
  label: string;
  centre: Vec3;
  extent: Vec3;
  yaw?: number;
  colour?: string;
  views?: number[];
  points?: number;
  confidence?: number;
  votes?: Record<string, number>;
  duplicateOf?: string[];
  fragment?: boolean;
  lowSupport?: boolean;
}

export function node(s: NodeSpec): GraphNode {
  const half = (k: number) => s.extent[k]! / 2;
  const n = {
    id: s.id,
    label: s.label,
    label_distribution: s.votes ?? { [s.label]: 1 },
    centroid: [...s.centre] as Vec3,
    box: { centre: s.centre, extent: s.extent, yaw: s.yaw ?? 0 },
    // axis-aligned footprint of the (unrotated) box: enough for these tests
    aabb: {
      min: [s.centre[0] - half(0), s.centre[1] - half(1), s.centre[2] - half(2)] as Vec3,
      max: [s.centre[0] + half(0), s.centre[1] + half(1), s.centre[2] + half(2)] as Vec3,
    },
    volume_m3: s.extent[0] * s.extent[1] * s.extent[2],
    point_count: Math.round((s.points ?? 1000) / 10),
    raw_point_count: s.points ?? 1000,
    views: s.views ?? [0, 1, 2],
    detections: (s.views ?? [0, 1, 2]).length,
    mean_confidence: s.confidence ?? 1,
    flags: { low_support: s.lowSupport ?? false, possible_duplicate_of: s.duplicateOf ?? [], fragment: s.fragment ?? false },
    support: [],
    ...(s.colour ? { color: [200, 30, 30] as [number, number, number], color_name: s.colour } : {}),
  };
  return n as unknown as GraphNode;
}

function rel(
  subject: string,
  predicate: Relation["predicate"],
  object: string,
  margin_m: number,
  closest_distance_m: number,
  centre_distance_m: number,
): Relation {
  return { subject, predicate, object, margin_m, closest_distance_m, centre_distance_m };
}

export function graph(nodes: GraphNode[], relations: Relation[], viewpoint: SceneGraph["viewpoint"]): SceneGraph {
  return {
    format: "esi3d-graph/1",
    task_id: "hand-000",
    paradigm: "gt",
    source: "gt",
    masks: "instance",
    instances: "fusion",
    frame: "world, Z up, metres; yaw counter-clockwise from +X",
    viewpoint,
    params: {},
    nodes,
    relations,
    structure: { floor_points: 0, wall_points: 0 },
    timings_ms: {},
  };
}

/**
 * A table with a mug on it, a second (flagged) mug touching the first, and a chair to the table's left as seen from
 * the agent, who stands at (0, -2) facing +Y (yaw 90°), camera 1.20 m high, pitched 15° down.
 */
export function tableScene(): SceneGraph {
  return graph(
    [
      node({ id: "n0", label: "table", centre: [1, 0.5, 0.375], extent: [1.2, 0.8, 0.75], colour: "brown", views: [0, 1, 2, 3], points: 52000, confidence: 1 }),
      node({
        id: "n1",
        label: "mug",
        centre: [1.2, 0.4, 0.8],
        extent: [0.08, 0.08, 0.1],
        yaw: (3 * Math.PI) / 2,
        colour: "white",
        views: [0, 2],
        points: 900,
        confidence: 3.25,
      }),
      node({
        id: "n2",
        label: "mug",
        centre: [1.25, 0.42, 0.8],
        extent: [0.03, 0.05, 0.06],
        colour: "red",
        views: [3],
        points: 120,
        confidence: 1.4,
        votes: { mug: 0.7, cup: 0.3 },
        duplicateOf: ["n1"],
        fragment: true,
        lowSupport: true,
      }),
      node({ id: "n3", label: "armchair", centre: [-1, -1, 0.45], extent: [0.5, 0.5, 0.9], yaw: -0.3, views: [0, 1], points: 30000, confidence: 2 }),
    ],
    [
      rel("n1", "on", "n0", 0.021, 0, 0.43),
      rel("n0", "supports", "n1", 0.021, 0, 0.43),
      rel("n1", "touching", "n2", 0.004, 0.012, 0.054),
      rel("n3", "left_of", "n0", 1.9, 1.3, 2.46),
      rel("n0", "right_of", "n3", 1.9, 1.3, 2.46),
    ],
    { position: [0, -2, 1.2], yaw: Math.PI / 2, pitch: (-15 * Math.PI) / 180 },
  );
}

/**
 * Four objects whose boxes, with the agent, span exactly x, y ∈ [0, 5]: a 10 × 10 map has 0.5 m cells with its top-left
 * corner at x = 0, y = 5.
 */
export function gridScene(): SceneGraph {
  return graph(
    [
      node({ id: "a", label: "lamp", centre: [0.25, 4.75, 0.5], extent: [0.5, 0.5, 1] }), // top-left corner cell
      node({ id: "b", label: "box", centre: [4.9, 0.1, 0.1], extent: [0.2, 0.2, 0.2] }), // bottom-right: row 9, col 9
      node({ id: "c", label: "box", centre: [2.6, 2.4, 0.2], extent: [0.4, 0.4, 0.4] }), // row 5, col 5
      node({ id: "d", label: "vase", centre: [4.75, 4.5, 0.3], extent: [0.5, 0.4, 0.6] }), // row 1, col 9
    ],
    [],
    { position: [2.5, 0.25, 1], yaw: 0, pitch: 0 },
  );
}
