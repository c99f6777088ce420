"""Loads an esi3d ConceptGraphs object map the way ConceptGraphs' scripts do, and describes what it found.

Usage: conceptgraphs_check.py MAP.pkl.gz EDGES.json GRAPH.json MIN_BOX_SIDE_M
Read (not imported; ConceptGraphs is not installed here) from concept-graphs/concept-graphs@5c4da70:
- scripts/visualize_cfslam_results.py `load_result`: gzip.open + pickle.load, a dict with 'objects',
  'bg_objects' (None or a list), 'class_colors'; `--edge_file` indexes object centres by edge ids;
- slam/slam_classes.py `MapObjectList.load_serializable`: torch.from_numpy(clip_ft / text_ft), an Open3D
  PointCloud from pcd_np and pcd_color_np, OrientedBoundingBox.create_from_points(bbox_np), the box coloured
  with the first point's colour; `get_stacked_values_torch('clip_ft')` stacks the features;
  `get_most_common_class` takes np.unique of 'class_id', and colours come from class_colors[str(class)].
The same calls are made here on the loaded data, then every field is described (type, dtype, shape, a
digest of the array bytes) as JSON on stdout for the test to compare with what esi3d built. Each bbox_np is
also compared with Open3D's own corners (OrientedBoundingBox.get_box_points) of the graph node's yaw box,
its sides raised to MIN_BOX_SIDE_M as esi3d does for flat nodes.
"""
import gzip
import hashlib
import json
import pickle
import sys

import numpy as np
import open3d as o3d
import torch


def array(a):
    return {"type": type(a).__name__, "dtype": a.dtype.str, "shape": list(a.shape), "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}


def main() -> None:
    with gzip.open(sys.argv[1], "rb") as f:
        results = pickle.load(f)
    with open(sys.argv[2]) as f:
        edges = json.load(f)
    with open(sys.argv[3]) as f:
        nodes = json.load(f)["nodes"]
    min_side = float(sys.argv[4])
    assert isinstance(results, dict), type(results)
    out = {"top": sorted(results.keys()), "bg_objects": results["bg_objects"], "cfg": results["cfg"], "class_names": results["class_names"], "objects": []}
    colors = results["class_colors"]
    out["class_colors"] = {k: [type(v).__name__, [type(x).__name__ for x in v], list(v)] for k, v in colors.items()}
    loaded = []
    for obj, node in zip(results["objects"], nodes):
        box = node["box"]
        c, s = np.cos(box["yaw"]), np.sin(box["yaw"])
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        corners = np.asarray(o3d.geometry.OrientedBoundingBox(np.array(box["centre"], dtype=float), rotation, np.maximum(np.array(box["extent"], dtype=float), min_side)).get_box_points())
        clip, text = torch.from_numpy(obj["clip_ft"]), torch.from_numpy(obj["text_ft"])
        pcd = o3d.geometry.PointCloud()
        pcd.points = o3d.utility.Vector3dVector(obj["pcd_np"])
        bbox = o3d.geometry.OrientedBoundingBox.create_from_points(o3d.utility.Vector3dVector(obj["bbox_np"]))
        bbox.color = obj["pcd_color_np"][0]
        pcd.colors = o3d.utility.Vector3dVector(obj["pcd_color_np"])
        values, counts = np.unique(np.asarray(obj["class_id"]), return_counts=True)
        most_common = values[np.argmax(counts)]
        loaded.append({"clip": clip, "text": text, "centre": np.asarray(pcd.points).mean(axis=0)})
        desc = {}
        for k, v in obj.items():
            if isinstance(v, np.ndarray):
                desc[k] = array(v)
            elif isinstance(v, list):
                desc[k] = {"type": "list", "items": [array(x) if isinstance(x, np.ndarray) else {"type": type(x).__name__, "value": x} for x in v]}
            else:
                desc[k] = {"type": type(v).__name__, "value": v}
        out["objects"].append({
            "fields": desc,
            "bbox_vs_open3d": float(np.abs(obj["bbox_np"] - corners).max()),
            "points_in_o3d": len(pcd.points),
            "colors_in_o3d": len(pcd.colors),
            "obb_volume": bbox.volume(),
            "obb_extent_sorted": sorted(np.asarray(bbox.extent).tolist()),
            "box_color": np.asarray(bbox.color).tolist(),
            "class_color": list(colors[str(most_common)]),
        })
    if loaded:
        stacked = torch.stack([o["clip"] for o in loaded], dim=0)
        out["clip_stacked"] = list(stacked.shape)
        out["text_sim"] = torch.nn.functional.cosine_similarity(loaded[0]["text"].unsqueeze(0), torch.stack([o["text"] for o in loaded])).tolist()
    # visualize_cfslam_results.py --edge_file: a line between the centres of object1 and object2
    out["edges_drawn"] = [[float(np.linalg.norm(loaded[e["object1"]["id"]]["centre"] - loaded[e["object2"]["id"]]["centre"])), e["object_relation"]] for e in edges]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
