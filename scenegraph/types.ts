/**
 * The scene graph: object nodes with evidence, and spatial relations with margins. Serialized as
 * `esi3d-graph/1` JSON (docs/scene-graph.md, docs/scene-graph.schema.json). This zod schema is the one
 * declaration: the types below are inferred from it, every reader parses through it (scenegraph/io.ts),
 * and the service's OpenAPI document shows it.
 */
import * as z from "zod";
import { YawBoxSchema } from "../core/geometry.js";
import { MAX_CATEGORY_CHARS, PARADIGMS } from "../core/bundle/schema.js";
import { SOURCES } from "../reconstruct/options.js";
import { MASK_MODES } from "./options.js";
import { INSTANCE_MODES } from "./options.js";

export const GRAPH_FORMAT = "esi3d-graph/1";
export const GRAPH_FRAME = "world, Z up, metres; yaw counter-clockwise from +X";
/**
 * No coordinate of a graph lies farther than this from the world origin (m). Real rooms are metres across;
 * a node at 1e308 m (audit case A10) would otherwise give confident answers from absurd geometry. Ours.
 */
const MAX_COORDINATE_M = 10_000;

/**
 * The most nodes a graph may have: a room-scale scene has tens of objects, ConceptGraphs' maps of ScanNet
 * scenes a few hundred; 10,000 is far beyond both and keeps a reader's pairwise work bounded (a
 * 200,000-node graph took 1.16 GB). Ours.
 */
const MAX_GRAPH_NODES = 10_000;
/**
 * The largest graph file read (bytes): a 300-node graph with every pair related is ~20 MB of JSON; 64 MiB leaves
 * room and bounds what JSON.parse holds. Ours.
 */
export const MAX_GRAPH_FILE_BYTES = 64 * 1024 * 1024;
/** The longest node label (characters): a label is a category name (core/bundle/schema.ts). */
const MAX_LABEL_CHARS = MAX_CATEGORY_CHARS;

const coordinate = () => z.number().finite().min(-MAX_COORDINATE_M).max(MAX_COORDINATE_M);
const PointSchema = z.tuple([coordinate(), coordinate(), coordinate()]);
const count = () => z.number().int().min(0);
const fraction = () => z.number().min(0).max(1);

const NodeSupportSchema = z
  .object({
    view: count().describe("index of the bundle view"),
    points: count().describe("raw points (pixels) from this view"),
    bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).describe("pixel bounding box [x0, y0, x1, y1] of those points in the view image"),
  })
  .strict();

const NodeFlagsSchema = z
  .object({
    low_support: z.boolean().describe("seen in one view only, with few points: weak evidence"),
    possible_duplicate_of: z.array(z.string()).describe("other nodes with the same label that overlap or nearly touch this one"),
    fragment: z.boolean().describe("a sliver of a larger same-label node next to it"),
    held: z.boolean().optional().describe("the active agent holds this object (picked up, not yet put down): it travels with the camera; absent otherwise"),
    may_contain: z
      .boolean()
      .optional()
      .describe(
        "a container (an open container's label, or a lid node resting on it) whose inside no view has shown: it may hold what the graph cannot see (scenegraph/mayContain.ts); absent for other nodes and in graphs written before it was recorded",
      ),
    behind_mirror: z
      .string()
      .optional()
      .describe(
        "the mirror node (graph `mirrors`) this node lies behind, seen through it by a view that saw the node: it may be a reflection taken for geometry (scenegraph/mirrors.ts); absent otherwise",
      ),
  })
  .strict();

const NodePhysicsSchema = z
  .object({
    height_m: z.number().min(0).describe("the z range of the node's points (m)"),
    footprint_m2: z.number().min(0).describe("the box's floor area, extent[0] x extent[1] (m^2)"),
    up: z
      .tuple([z.number().min(-1).max(1), z.number().min(-1).max(1), z.number().min(-1).max(1)])
      .describe(
        "unit up axis: a predicted node's top-plane normal where its top is a plane (scenegraph/physicalAttributes.ts), a true node's own +Z in the world; [0, 0, 1] when the points show no axis",
      ),
    upright: z.boolean().describe("up . +Z > 0.9 (ESI-Bench's stacking check: a tilt under about 26 degrees)"),
    upright_margin_deg: z
      .number()
      .min(0)
      .describe("how far (degrees) the up axis's tilt is from the 26-degree threshold; 0 when the points show no axis (nothing decided upright)"),
    top_tilt_deg: z
      .number()
      .min(0)
      .max(90)
      .nullable()
      .describe("tilt from horizontal of the plane fitted to the highest point of each 2 cm cell seen from above; null with too few cells"),
    top_fit_rms_m: z.number().min(0).nullable().describe("RMS distance (m) of those points from the fitted plane: large for a top that is no plane"),
  })
  .strict();

/**
 * What the diff of a changing world's phases says of a node (scenegraph/time.ts): kept (seen again where it was),
 * moved (seen elsewhere, its old place seen empty), added (seen where earlier views saw nothing), replaced (seen
 * where a node of another label was), new (first seen where no earlier view looked), unconfirmed (not seen in a
 * later phase whose views did not see its place either: kept as last seen), removed (its place seen empty: in
 * the graph's changes, not among its nodes).
 */
const NODE_CHANGES = ["kept", "moved", "added", "replaced", "new", "unconfirmed", "removed"] as const;
export type NodeChange = (typeof NODE_CHANGES)[number];

const NodeTimeSchema = z
  .object({
    seen_in: z.array(count()).min(1).describe("the phases whose views saw the node, ascending"),
    last_seen: count().describe("the last phase that saw it"),
    change: z.enum(NODE_CHANGES).optional().describe("what the diff of the phases says happened to it (diff graphs only)"),
  })
  .strict();

const TimeChangeSchema = z
  .object({
    change: z.enum(NODE_CHANGES).exclude(["kept", "new", "unconfirmed"]),
    label: z.string().min(1).max(MAX_LABEL_CHARS).describe("the label of what changed"),
    phase: count().describe("the phase whose views showed the change"),
    at: PointSchema.describe("where it is now (removed: where it was)"),
    from: PointSchema.optional().describe("moved: where it was"),
    was: z.string().max(MAX_LABEL_CHARS).optional().describe("replaced: the label of what stood there before"),
    node: z.string().optional().describe("the node it left in the graph (absent for a removal)"),
  })
  .strict();
export type TimeChange = z.infer<typeof TimeChangeSchema>;

/** A graph of a bundle whose views come from several phases of a changing world. */
const GraphTimeSchema = z
  .object({
    mode: z.enum(["diff", "fuse"]).describe("diff: the phases followed in time order; fuse: every view's points in one graph (changes not tracked)"),
    phases: z.array(z.string().min(1)).min(2).describe("the phases' labels, in time order"),
    changes: z.array(TimeChangeSchema).describe("what changed between phases, in time order (diff graphs; empty when fused)"),
  })
  .strict();

const GraphNodeSchema = z
  .object({
    id: z.string().min(1).max(64).describe("node id, unique in the graph (n<k> predicted, o<objectId> ground truth)"),
    label: z.string().min(1).max(MAX_LABEL_CHARS).describe("the node's category"),
    label_distribution: z.record(z.string().max(MAX_LABEL_CHARS), fraction()).describe("label votes, as fractions of the node's points"),
    centroid: PointSchema.describe("mean of the node's points (m)"),
    color: z
      .tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)])
      .describe("mean colour of the node's points"),
    color_name: z.string().describe("the nearest palette colour name"),
    box: YawBoxSchema.extend({ centre: PointSchema, extent: z.tuple([coordinate().min(0), coordinate().min(0), coordinate().min(0)]) }).describe(
      "gravity-aligned (yaw-only) oriented box",
    ),
    aabb: z.object({ min: PointSchema, max: PointSchema }).strict().describe("axis-aligned bounds of the node's points"),
    volume_m3: z.number().min(0),
    interior: z
      .object({
        extent: z
          .tuple([coordinate().min(0), coordinate().min(0), coordinate().min(0)])
          .describe("clear width, depth (along the box's a and b axes) and height inside the walls (m)"),
        volume_m3: z.number().min(0).describe("what the container holds (m^3)"),
      })
      .strict()
      .optional()
      .describe(
        "for a node whose label is an open container: its interior, estimated from the box and the label's wall model (core/objects/containers.ts), not measured; absent for other labels",
      ),
    point_count: count().describe("downsampled points (voxel size in params)"),
    raw_point_count: count().describe("raw cloud points behind the node"),
    views: z.array(count()).describe("views that see the node"),
    detections: count().describe("2D detections fused into the node"),
    mean_confidence: z.number().min(0),
    flags: NodeFlagsSchema,
    support: z.array(NodeSupportSchema).describe("points per view"),
    physics: NodePhysicsSchema.optional().describe(
      "what the node's points show that physics questions need (issue 45); absent in graphs written before it was recorded",
    ),
    time: NodeTimeSchema.optional().describe("graphs of a changing world's phases: when the node was seen, and what changed (absent otherwise)"),
  })
  .strict();

export const PREDICATES = [
  "on",
  "supports",
  "inside",
  "contains",
  "touching",
  "near",
  "above",
  "below",
  "left_of",
  "right_of",
  "in_front_of",
  "behind",
  "stacked_on",
  "stacked_under",
] as const;

export const RelationSchema = z
  .object({
    subject: z.string(),
    predicate: z.enum(PREDICATES),
    object: z.string(),
    margin_m: z.number().describe("how far from flipping (m): the smallest change of the deciding quantity that would flip it"),
    centre_distance_m: z.number().min(0),
    closest_distance_m: z.number().min(0),
  })
  .strict();

const Point2Schema = z.tuple([coordinate(), coordinate()]);

/** The region layer (HOV-SG's rooms): rooms with their objects, doorways as edges between rooms. */
const RegionLayerSchema = z
  .object({
    rooms: z.array(
      z
        .object({
          id: z.string().min(1).describe("room name, '<type>_<k>' (e.g. 'kitchen_0'); 'room_<k>' when no object names its type"),
          type: z.string().min(1).describe("room type, from the signature furniture seen in it (core/task/layout.ts ROOM_SIGNATURES), or 'unknown'"),
          min: Point2Schema.describe("[x, y] corner of the room's floor rectangle (m)"),
          max: Point2Schema.describe("[x, y] opposite corner (m)"),
          objects: z.array(z.string()).describe("ids of the nodes whose centre lies in the room"),
          enclosed: z
            .boolean()
            .optional()
            .describe(
              "every stretch of the room's boundary the views did not see as wall leads into another room of the layer: no room the layer does not hold is its neighbour (absent in graphs written before it was recorded: not known)",
            ),
        })
        .strict(),
    ),
    doorways: z.array(
      z
        .object({
          rooms: z.tuple([z.string(), z.string()]).describe("the two rooms the doorway joins"),
          centre: Point2Schema.describe("[x, y] of the doorway's centre (m)"),
          width_m: z.number().min(0),
        })
        .strict(),
    ),
    separations: z
      .array(
        z
          .object({
            rooms: z.tuple([z.string(), z.string()]).describe("the two rooms"),
            by: z
              .enum(["wall", "no_shared_wall"])
              .describe(
                "wall: the views saw the wall between them closed, with no unseen gap wide enough for a doorway; no_shared_wall: the views leave no unseen space where their walls could meet",
              ),
          })
          .strict(),
      )
      .optional()
      .describe(
        "pairs of rooms the views show no doorway joins directly. A pair in neither this list nor the doorways is unknown (absent in graphs written before it was recorded)",
      ),
  })
  .strict()
  .describe(
    "rooms segmented from the walls and free space the views show, doorways as edges, pairs of rooms the views show apart, objects assigned to rooms (multi-room scenes only)",
  );

const unit = () => z.number().min(-1).max(1);
const UnitSchema = z.tuple([unit(), unit(), unit()]);

/**
 * A planar mirror the graph's own evidence shows: a flat node labelled `mirror` (scenegraph/mirrors.ts); in a truth
 * graph, a task mirror's true reflective rectangle (scenegraph/truth.ts).
 */
const GraphMirrorSchema = z
  .object({
    node: z.string().min(1).describe("the mirror's node"),
    centre: PointSchema.describe("centre of its reflective rectangle (m): the node's box centre (a truth graph: the reflective face's centre)"),
    normal: UnitSchema.describe("unit normal of its plane (the box's thin axis), towards the side the views that saw it were on"),
    u: UnitSchema.describe("unit axis along the rectangle's width"),
    v: UnitSchema.describe("unit axis along the rectangle's height"),
    half_width_m: z.number().min(0),
    half_height_m: z.number().min(0),
  })
  .strict();

/** Who made the graph: a reconstruction source, or the ground truth (`truthGraph`). */
const TRUTH = "truth";

export const SceneGraphSchema = z
  .object({
    format: z.literal(GRAPH_FORMAT),
    task_id: z.string().min(1),
    paradigm: z.union([z.enum(PARADIGMS), z.literal(TRUTH)]).describe("the view set the graph was built from"),
    source: z.union([z.enum(SOURCES), z.literal(TRUTH)]).describe("the point-cloud source"),
    masks: z.enum(MASK_MODES).describe("the evidence mode (docs/how-it-works.md, 'Evidence modes')"),
    instances: z.union([z.enum(INSTANCE_MODES), z.literal(TRUTH)]).describe("the instance builder"),
    frame: z.literal(GRAPH_FRAME).describe("conventions of every coordinate in this graph"),
    viewpoint: z
      .object({ position: PointSchema, yaw: z.number().finite(), pitch: z.number().finite() })
      .strict()
      .describe("the agent's initial pose: the viewpoint of left/right/front/behind"),
    params: z.record(z.string(), z.union([z.number(), z.string()])).describe("the graph builder's parameters"),
    nodes: z.array(GraphNodeSchema).max(MAX_GRAPH_NODES),
    relations: z.array(RelationSchema),
    structure: z.object({ floor_points: count(), wall_points: count() }).strict().describe("structure points found (floor, walls), for reference"),
    regions: RegionLayerSchema.optional(),
    mirrors: z.array(GraphMirrorSchema).optional().describe("planar mirrors the graph's nodes show (flat nodes labelled mirror); absent when there are none"),
    time: GraphTimeSchema.optional().describe("set on graphs of a bundle whose views come from several phases of a changing world"),
    timings_ms: z.record(z.string(), z.number()),
  })
  .strict()
  .superRefine((g, ctx) => {
    const ids = new Set<string>();
    g.nodes.forEach((n, k) => {
      if (ids.has(n.id)) ctx.addIssue({ code: "custom", path: ["nodes", k, "id"], message: `duplicate node id "${n.id}"` });
      ids.add(n.id);
    });
    const rooms = new Set(g.regions?.rooms.map((r) => r.id) ?? []);
    for (const list of ["doorways", "separations"] as const)
      g.regions?.[list]?.forEach((d, k) => {
        for (const end of [0, 1] as const)
          if (!rooms.has(d.rooms[end]))
            ctx.addIssue({ code: "custom", path: ["regions", list, k, "rooms", end], message: `names room "${d.rooms[end]}", which the graph does not have` });
      });
    g.regions?.rooms.forEach((r, k) =>
      r.objects.forEach((o, j) => {
        if (!ids.has(o))
          ctx.addIssue({ code: "custom", path: ["regions", "rooms", k, "objects", j], message: `names node "${o}", which the graph does not have` });
      }),
    );
    g.mirrors?.forEach((m, k) => {
      if (!ids.has(m.node)) ctx.addIssue({ code: "custom", path: ["mirrors", k, "node"], message: `names node "${m.node}", which the graph does not have` });
    });
    g.relations.forEach((r, k) => {
      for (const end of ["subject", "object"] as const)
        if (!ids.has(r[end])) ctx.addIssue({ code: "custom", path: ["relations", k, end], message: `names node "${r[end]}", which the graph does not have` });
    });
  });

export type NodeSupport = z.infer<typeof NodeSupportSchema>;
export type GraphNode = z.infer<typeof GraphNodeSchema>;
export type Predicate = (typeof PREDICATES)[number];
export type Relation = z.infer<typeof RelationSchema>;
export type SceneGraph = z.infer<typeof SceneGraphSchema>;
export type RegionLayer = z.infer<typeof RegionLayerSchema>;
export type GraphMirror = z.infer<typeof GraphMirrorSchema>;
