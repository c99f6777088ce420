/**
 * The ConceptGraphs object map: the gzip pickle (`*.pkl.gz`) that ConceptGraphs' scripts load with
 * `gzip.open` + `pickle.load` and `MapObjectList.load_serializable` (visualize_cfslam_results.py
 * `load_result`, merge_duplicate_objects.py, run_post_filter_merge.py, eval_replica_semseg.py). The field
 * list is read from concept-graphs/concept-graphs@5c4da70 (main): slam/cfslam_pipeline_batch.py (the saved
 * dict `{objects, bg_objects, cfg, class_names, class_colors}`), slam/slam_classes.py
 * (`to_serializable` / `load_serializable`: `pcd_np`, `bbox_np`, `pcd_color_np`, `clip_ft`, `text_ft`) and
 * slam/utils.py `gobs_to_detection_list` (the per-object dict: per-detection lists `image_idx`,
 * `class_name`, `class_id`, `n_points`, `xyxy`, and `num_detections`, `inst_color`, `is_background`).
 *
 * One object per graph node, in the graph's order (object k is node n<k>, as in the scene_graph.json and
 * cfslam_object_relations.json of scenegraph/export.ts). One "detection" per view that sees the node
 * (the node's `support`), so every per-detection list has `num_detections` entries, as ConceptGraphs keeps
 * them. Not written, because esi3d has no such data: `mask` (per-detection image masks), `color_path`,
 * `mask_idx`, `conf`, `pixel_area`, `contain_number`; the captioning scripts that crop images need the first
 * two. `clip_ft` and `text_ft` are zero vectors of CLIP ViT-H-14's width: esi3d computes no CLIP features,
 * and zeros load, stack and compare (cosine similarity 0) where an absent key would raise KeyError.
 * Coordinates are esi3d's world frame (Z up, metres); `bg_objects` is None (structure is not in the graph).
 */
import { gzipSync } from "node:zlib";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { NdArray, PyFloat, type PickleValue, pickle } from "./pickle.js";
import { boxCorners } from "./boxCorners.js";
import type { SceneGraph } from "./types.js";
import { PACKAGE_VERSION } from "../core/version.js";

/** Width of ConceptGraphs' CLIP features: ViT-H-14 (laion2b_s32b_b79k), visualize_cfslam_results.py. */
const CLIP_FEATURE_DIM = 1024;
/** The file name `graph --conceptgraphs` and `inspect --conceptgraphs` write, after ConceptGraphs' `full_pcd_<variant>_<suffix>.pkl.gz`. */
export const CONCEPTGRAPHS_MAP_FILE = "full_pcd_esi3d.pkl.gz";
/** Golden-ratio hue steps give distinct, reproducible colours for any number of classes and instances. */
const GOLDEN = 0.618033988749895;
/** Saturation and value of those colours (ours): bright enough to tell apart on a dark background. */
const COLOR_S = 0.65,
  COLOR_V = 0.95;

/** The k-th colour of the sequence, as RGB in [0, 1] (ConceptGraphs' colour convention). */
function distinctColor(k: number): [number, number, number] {
  const h = ((k * GOLDEN) % 1) * 6,
    i = Math.floor(h),
    f = h - i;
  const p = COLOR_V * (1 - COLOR_S),
    q = COLOR_V * (1 - COLOR_S * f),
    t = COLOR_V * (1 - COLOR_S * (1 - f));
  return (
    [
      [COLOR_V, t, p],
      [q, COLOR_V, p],
      [p, COLOR_V, t],
      [p, q, COLOR_V],
      [t, p, COLOR_V],
      [COLOR_V, p, q],
    ] as const
  )[i % 6]!.slice() as [number, number, number];
}

/** The object map as plain Python data (dicts, lists, numpy arrays), ready to pickle. */
export function conceptGraphsMap(graph: SceneGraph, cloud: Pick<PointCloud, "count" | "xyz" | "rgb">, members: readonly Uint32Array[]): PickleValue {
  if (members.length !== graph.nodes.length) throw new Error(`conceptGraphsMap: ${members.length} member lists for ${graph.nodes.length} nodes`);
  const classNames = [...new Set(graph.nodes.map((n) => n.label))].sort();
  const classOf = new Map(classNames.map((c, i) => [c, i]));
  const objects = graph.nodes.map((n, k) => {
    const m = members[k]!;
    // load_serializable colours the box with the first point's colour, so a map object needs points
    if (m.length === 0) throw new Error(`conceptGraphsMap: node ${n.id} has no points`);
    const xyz = new Float64Array(m.length * 3),
      rgb = new Float64Array(m.length * 3);
    m.forEach((i, j) => {
      for (let a = 0; a < 3; a++) {
        xyz[3 * j + a] = cloud.xyz[3 * i + a]!;
        rgb[3 * j + a] = cloud.rgb[3 * i + a]! / 255;
      }
    });
    const views = n.support;
    return {
      image_idx: views.map((v) => v.view),
      class_name: views.map(() => n.label),
      class_id: views.map(() => classOf.get(n.label)!),
      num_detections: views.length,
      xyxy: views.map((v) => new NdArray("f4", [4], Float32Array.from(v.bbox))),
      n_points: views.map((v) => v.points),
      inst_color: new NdArray("f8", [3], Float64Array.from(distinctColor(k))),
      is_background: false,
      clip_ft: new NdArray("f4", [CLIP_FEATURE_DIM], new Float32Array(CLIP_FEATURE_DIM)),
      text_ft: new NdArray("f4", [CLIP_FEATURE_DIM], new Float32Array(CLIP_FEATURE_DIM)),
      pcd_np: new NdArray("f8", [m.length, 3], xyz),
      bbox_np: new NdArray("f8", [8, 3], boxCorners(n.box)),
      pcd_color_np: new NdArray("f8", [m.length, 3], rgb),
      esi3d_node: n.id,
    };
  });
  return {
    objects,
    bg_objects: null,
    // in place of ConceptGraphs' Hydra config (a plain dict: no omegaconf here), where the graph came from
    cfg: {
      esi3d_version: PACKAGE_VERSION,
      task_id: graph.task_id,
      paradigm: graph.paradigm,
      source: graph.source,
      masks: graph.masks,
      instances: graph.instances,
      frame: graph.frame,
      features: `clip_ft and text_ft are zeros (${CLIP_FEATURE_DIM}-d): esi3d computes no CLIP features`,
    },
    class_names: classNames,
    class_colors: Object.fromEntries(classNames.map((_, i) => [String(i), distinctColor(i).map((v) => new PyFloat(v))])),
  };
}

/** The gzip-compressed pickle of `conceptGraphsMap`, as ConceptGraphs writes its `*.pkl.gz`. */
export function encodeConceptGraphsMap(...args: Parameters<typeof conceptGraphsMap>): Buffer {
  return gzipSync(pickle(conceptGraphsMap(...args)));
}
