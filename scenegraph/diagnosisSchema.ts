/**
 * The diagnosis of a scene graph against the ground truth (scenegraph/diagnosis.ts computes it): node and
 * object statuses, relation correctness and the graph-quality metrics. This zod schema is the one
 * declaration; readers parse through it, and the service's OpenAPI document shows it.
 */
import * as z from "zod";
import { PREDICATES, RelationSchema } from "./types.js";

const NODE_STATUSES = ["matched", "duplicate", "merged", "hallucinated", "stale", "mirror_ghost"] as const;
const OBJECT_STATUSES = ["matched", "missed-unseen", "missed-lost"] as const;

const share = () => z.number().min(0).max(1);
const count = () => z.number().int().min(0);
const rate = () => z.number().min(0);

/**
 * The noise components a node's cause names (scenegraph/causes.ts); masks: a duplicate that exact depth and poses
 * did not prevent; change: a duplicate of a changing world whose copies come from different phases.
 */
const CAUSE_COMPONENTS = ["pose", "drift", "scale", "blobs", "labels", "masks", "change"] as const;

const NodeCauseSchema = z
  .object({
    views: z
      .array(z.object({ view: z.number().int().min(0), share: share() }).strict())
      .describe("the views that gave the node most of its points, with their shares (largest first, up to 3)"),
    component: z
      .enum(CAUSE_COMPONENTS)
      .nullable()
      .describe(
        "the noise component the cloud's record shows at work on the node (pose, drift, scale, blobs, labels); masks for a duplicate with exact depth and poses; null when the record shows none",
      ),
    text: z.string().describe("the cause in words, with the figures it rests on"),
  })
  .strict();
export type NodeCause = z.infer<typeof NodeCauseSchema>;

const NodeDiagnosisSchema = z
  .object({
    node: z.string(),
    label: z.string(),
    status: z.enum(NODE_STATUSES),
    object_id: z.number().int().nullable().describe("the matched object, or the dominant object for duplicates and merged nodes"),
    object_name: z.string().nullable(),
    twin: z.string().nullable().describe("for a duplicate: the node matched to the same object"),
    shares: z
      .array(z.object({ id: z.number().int(), name: z.string(), share: share() }).strict())
      .describe("fraction of the node's points per true object (largest first, up to 3)"),
    structure_share: share().describe("fraction of the node's points on room structure or background"),
    iou: share(),
    centroid_error_m: z.number().min(0).nullable(),
    label_correct: z.boolean().nullable(),
    mirrors_object: z
      .number()
      .int()
      .optional()
      .describe("for a mirror ghost: the true object whose reflection it is (absent for other nodes, and in diagnoses written before mirrors)"),
    mirror_id: z.number().int().optional().describe("for a mirror ghost: the mirror it was seen through"),
    cause: NodeCauseSchema.optional().describe(
      "a duplicate's or hallucination's cause, as far as the cloud records it (absent for other nodes, and in diagnoses written before it was recorded)",
    ),
  })
  .strict();

const ObjectDiagnosisSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    category: z.string(),
    role: z.string(),
    status: z.enum(OBJECT_STATUSES),
    node: z.string().nullable(),
    duplicates: z.array(z.string()),
    observed_px: count().describe("pixels showing the object, summed over the bundle's views"),
    max_view_px: count().describe("the most pixels any single view shows of it"),
  })
  .strict();

const RelationDiagnosisSchema = RelationSchema.extend({
  correct: z.boolean(),
  mapped: z.tuple([z.number().int(), z.number().int()]).nullable().describe("true object ids the relation maps to, or null when an end is not a true object"),
}).strict();

const PredicateScoreSchema = z.object({ tp: count(), fp: count(), fn: count(), precision: share().nullable(), recall: share().nullable() }).strict();

export const GraphMetricsSchema = z
  .object({
    nodes: count(),
    objects: count(),
    observed_objects: count(),
    matched: count(),
    duplicates: count(),
    merged: count(),
    hallucinated: count(),
    stale: count().optional().describe("nodes where a moved object was and no longer is (absent in diagnoses written before objects could move: none)"),
    duplicates_by_change: count()
      .optional()
      .describe(
        "duplicates whose copies come from different phases of a changing world (cause 'change'); the rest of `duplicates` is noise's (absent for an unchanging world)",
      ),
    mirror_ghosts: count()
      .optional()
      .describe(
        "nodes behind a mirror that are a true object's reflection taken for geometry (absent for scenes without mirrors, and in diagnoses written before them)",
      ),
    missed_unseen: count(),
    missed_lost: count(),
    precision: share(),
    recall: share(),
    recall_observed: share(),
    f1: share(),
    f1_observed: share(),
    duplicate_rate: rate(),
    hallucination_rate: rate(),
    merged_rate: rate(),
    stale_rate: rate().optional().describe("stale nodes over nodes (absent in diagnoses written before objects could move)"),
    mirror_ghost_rate: rate().optional().describe("mirror ghosts over nodes (absent where mirror_ghosts is)"),
    miss_rate: rate(),
    label_accuracy: share().nullable(),
    count_error_by_category: z.record(z.string(), z.number()),
    centroid_error_m: z.number().min(0).nullable(),
    extent_error_m: z.number().min(0).nullable(),
    relations: z.record(z.string(), PredicateScoreSchema),
    relation_precision: share().nullable(),
    relation_recall: share().nullable(),
  })
  .strict();

/** How the graph's region layer (rooms, doorways, rooms shown apart) compares with the task's true layout. */
const RegionDiagnosisSchema = z
  .object({
    rooms: z.array(
      z
        .object({
          room: z.string().describe("predicted room id"),
          truth: z
            .string()
            .nullable()
            .describe("the true room it matches (at least ROOM_MATCH_SHARE of its floor rectangle inside the true room's, one to one), or null"),
          iou: z
            .number()
            .min(0)
            .max(1)
            .describe("floor-rectangle IoU with the matched true room (or the best, unmatched): below 1 for a room the views show in part"),
          name_correct: z.boolean().describe("the predicted name is the matched room's name"),
        })
        .strict(),
    ),
    missed_rooms: z.array(z.string()).describe("true rooms no predicted room matches"),
    doorways: z.array(
      z.object({ rooms: z.tuple([z.string(), z.string()]), correct: z.boolean().describe("its rooms match two true rooms a true doorway joins") }).strict(),
    ),
    missed_doorways: z.array(z.tuple([z.string(), z.string()])).describe("true doorways no predicted doorway stands for"),
    separations: z
      .array(
        z.object({ rooms: z.tuple([z.string(), z.string()]), correct: z.boolean().describe("its rooms match two true rooms no true doorway joins") }).strict(),
      )
      .optional()
      .describe("the layer's pairs of rooms shown apart (absent in diagnoses written before they were recorded)"),
    metrics: z
      .object({
        room_precision: z.number().min(0).max(1),
        room_recall: z.number().min(0).max(1),
        room_name_accuracy: z.number().min(0).max(1).nullable().describe("share of matched rooms named right"),
        doorway_precision: z.number().min(0).max(1).nullable(),
        doorway_recall: z.number().min(0).max(1).nullable(),
        separation_precision: z
          .number()
          .min(0)
          .max(1)
          .nullable()
          .optional()
          .describe("share of the pairs shown apart whose rooms match two true rooms no doorway joins"),
        object_room_accuracy: z.number().min(0).max(1).nullable().describe("share of matched nodes assigned to the room matching their object's true room"),
      })
      .strict(),
  })
  .strict();

export const DiagnosisSchema = z
  .object({
    nodes: z.array(NodeDiagnosisSchema),
    objects: z.array(ObjectDiagnosisSchema),
    relations: z.array(RelationDiagnosisSchema),
    missing_relations: z.array(z.object({ subject: z.number().int(), predicate: z.enum(PREDICATES), object: z.number().int() }).strict()),
    metrics: GraphMetricsSchema,
    regions: RegionDiagnosisSchema.optional().describe("multi-room tasks: rooms and doorways against the true layout"),
  })
  .strict();

export type NodeStatus = (typeof NODE_STATUSES)[number];
export type NodeDiagnosis = z.infer<typeof NodeDiagnosisSchema>;
export type ObjectDiagnosis = z.infer<typeof ObjectDiagnosisSchema>;
export type RelationDiagnosis = z.infer<typeof RelationDiagnosisSchema>;
export type PredicateScore = z.infer<typeof PredicateScoreSchema>;
export type GraphMetrics = z.infer<typeof GraphMetricsSchema>;
export type Diagnosis = z.infer<typeof DiagnosisSchema>;
export type RegionDiagnosis = z.infer<typeof RegionDiagnosisSchema>;
