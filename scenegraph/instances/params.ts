/**
 * Parameters of instance building, with their sources (mostly ConceptGraphs' defaults).
 */

/** Per-detection and per-node voxel size (m): ConceptGraphs `downsample_voxel_size` 0.025 for GT depth. */
export const FUSION_VOXEL_M = 0.025;
/** ConceptGraphs `min_points_threshold`: a lifted 2D detection needs this many 3D points. */
const MIN_DETECTION_POINTS = 16;
/** Denoising DBSCAN (keep the largest cluster): ConceptGraphs default eps 0.05 m, min_points 10. */
const DENOISE_EPS_M = 0.05;
const DENOISE_MIN_POINTS = 10;
/** ConceptGraphs keeps the original cloud when the largest cluster has fewer points than this. */
export const DENOISE_MIN_KEEP = 5;
/**
 * Association: a detection joins the node with the largest point overlap (fraction of its points within
 * ASSOCIATION_RADIUS_M of the node's points, ConceptGraphs' spatial similarity with r = 1 voxel) if that
 * overlap reaches ASSOCIATION_MIN_OVERLAP and the labels agree (the public systems' spatial-only gates are 0.2-0.5;
 * plus same label, since we have no visual features).
 */
const ASSOCIATION_RADIUS_M = 0.025;
const ASSOCIATION_MIN_OVERLAP = 0.25;
/** Post-merge (ConceptGraphs): i into j when overlap(i -> j) > 0.7. */
const MERGE_ONE_WAY_OVERLAP = 0.7;
/** Post-merge (BBQ): when the overlap is above 0.3 in both directions. */
const MERGE_MUTUAL_OVERLAP = 0.3;
/**
 * Post-merge (ours, beyond ConceptGraphs/BBQ): same-label nodes whose yaw boxes intersect by at least this
 * fraction of the smaller box's volume are one object. Two solid objects cannot occupy the same space, so
 * heavy box overlap means two partial views of one object (e.g. its front and its back, which share no
 * points); touching or stacked copies only meet at a face. Set above 1 to disable.
 */
const MERGE_BOX_IOM = 0.5;
/**
 * Post-merge (ours): touching same-label nodes whose union's yaw box is at most this much larger than the
 * larger node's box are complementary parts of one object (its back seen from one side, its front from
 * the other); two objects side by side roughly double the box instead. Set to 0 to disable.
 */
const MERGE_UNION_GROWTH = 1.25;
/** `dbscan` instances: clustering of all non-structure points (eps as the denoiser, min points as CG). */
const INSTANCE_DBSCAN_EPS_M = 0.05;
const INSTANCE_DBSCAN_MIN_POINTS = 10;
/**
 * `dbscan` instances: clusters with fewer downsampled points than this are dropped (noise, not objects).
 * Fusion nodes need only MIN_DETECTION_POINTS raw points: a 2 cm marble is a single 2.5 cm voxel.
 */
const MIN_NODE_VOXELS = 8;

export interface InstanceParams {
  voxelM: number;
  minDetectionPoints: number;
  denoiseEpsM: number;
  denoiseMinPoints: number;
  associationRadiusM: number;
  associationMinOverlap: number;
  mergeOneWay: number;
  mergeMutual: number;
  mergeBoxIoM: number;
  mergeUnionGrowth: number;
  dbscanEpsM: number;
  dbscanMinPoints: number;
  minNodeVoxels: number;
}

export const DEFAULT_INSTANCE_PARAMS: InstanceParams = {
  voxelM: FUSION_VOXEL_M,
  minDetectionPoints: MIN_DETECTION_POINTS,
  denoiseEpsM: DENOISE_EPS_M,
  denoiseMinPoints: DENOISE_MIN_POINTS,
  associationRadiusM: ASSOCIATION_RADIUS_M,
  associationMinOverlap: ASSOCIATION_MIN_OVERLAP,
  mergeOneWay: MERGE_ONE_WAY_OVERLAP,
  mergeMutual: MERGE_MUTUAL_OVERLAP,
  mergeBoxIoM: MERGE_BOX_IOM,
  mergeUnionGrowth: MERGE_UNION_GROWTH,
  dbscanEpsM: INSTANCE_DBSCAN_EPS_M,
  dbscanMinPoints: INSTANCE_DBSCAN_MIN_POINTS,
  minNodeVoxels: MIN_NODE_VOXELS,
};
