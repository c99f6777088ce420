#!/usr/bin/python3
"""The graph pipeline of `esi3d graph BUNDLE --instances dbscan --masks instance --source gt`, in Open3D.

Our own peer for bench/graphPipeline.ts: it reads the bundle that writeBundle wrote and does the same
steps with the same parameters as our code, so the two whole processes can be timed against each other.

  1. read every view: depth (float32 LE), instance ids (16-bit PNG), colour (8-bit PNG)
                                                            (core/bundle/io.ts, readBundle)
  2. back-project every pixel with depth > 0 whose instance is not room structure
     (X_cam = ((i - cx) d / fx, (j - cy) d / fy, d), X_world = R^T (X_cam - t), pixel i at x = i)
                                                            (reconstruct/gt/backproject.ts; the
                                                             structure exclusion: scenegraph/pipeline.ts)
  3. voxel downsampling, 0.025 m                            (instances/params.ts FUSION_VOXEL_M)
  4. DBSCAN, eps 0.05 m, min points 10                      (INSTANCE_DBSCAN_EPS_M, _MIN_POINTS)
  5. clusters of fewer than 8 voxels are dropped            (MIN_NODE_VOXELS)
  6. per cluster: the majority category of its raw points' masks, mean colour, axis-aligned and oriented
     boxes (Open3D's get_oriented_bounding_box)           (instances/dbscan-instances.ts, nodes.ts)

Writes one JSON object to --out: nodes (voxel and raw counts, label, aabb min/max, obb centre) and
per-stage seconds; `import_s` is the time to import numpy, PIL and Open3D.
Run with Debian's interpreter (python3-open3d 0.16, numpy, PIL):
  /usr/bin/python3 o3d_graph.py BUNDLE_DIR --out nodes.json [--threads 1]
"""
import argparse
import json
import os
import sys
import time

t_start = time.perf_counter()
ap = argparse.ArgumentParser()
ap.add_argument("bundle")
ap.add_argument("--out", required=True)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--voxel", type=float, default=0.025)
ap.add_argument("--eps", type=float, default=0.05)
ap.add_argument("--min-points", type=int, default=10)
ap.add_argument("--min-voxels", type=int, default=8)
a = ap.parse_args()
os.environ["OMP_NUM_THREADS"] = str(a.threads)

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
import open3d as o3d  # noqa: E402

t_import = time.perf_counter()
stages = {}
lap_t = t_import


def lap(name):
    global lap_t
    now = time.perf_counter()
    stages[name] = round(now - lap_t, 4)
    lap_t = now


with open(os.path.join(a.bundle, "bundle.json")) as f:
    manifest = json.load(f)
W, H = manifest["image"]["width"], manifest["image"]["height"]
structure = np.zeros(65536, dtype=bool)
category_of = {}
for e in manifest["instances"]:
    if e.get("structure"):
        structure[e["id"]] = True
    category_of[e["id"]] = e["category"]

views = []
for v in manifest["views"]:
    depth = np.fromfile(os.path.join(a.bundle, v["depth"]), dtype="<f4").reshape(H, W)
    ids = np.asarray(Image.open(os.path.join(a.bundle, v["instances"])), dtype=np.uint16)
    rgb = np.asarray(Image.open(os.path.join(a.bundle, v["rgb"])).convert("RGB"))
    views.append((v, depth, ids, rgb))
lap("read")

ii, jj = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
xyz_parts, rgb_parts, id_parts = [], [], []
for v, depth, ids, rgb in views:
    k = v["intrinsics"]
    E = np.asarray(v["extrinsic"], dtype=np.float64)
    R, t = E[:, :3], E[:, 3]
    keep = (depth > 0) & np.isfinite(depth) & ~structure[ids]
    d = depth[keep].astype(np.float64)
    cam = np.stack([(ii[keep] - k["cx"]) / k["fx"] * d, (jj[keep] - k["cy"]) / k["fy"] * d, d], axis=1)
    xyz_parts.append((cam - t) @ R)  # R^T (X_cam - t), row vectors
    rgb_parts.append(rgb[keep])
    id_parts.append(ids[keep])
xyz = np.concatenate(xyz_parts).astype(np.float32)
colours = np.concatenate(rgb_parts)
inst = np.concatenate(id_parts)
lap("backproject")

pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(xyz.astype(np.float64)))
pcd.colors = o3d.utility.Vector3dVector(colours.astype(np.float64) / 255.0)
ds = pcd.voxel_down_sample(a.voxel)
lap("voxel")

labels = np.asarray(ds.cluster_dbscan(eps=a.eps, min_points=a.min_points, print_progress=False))
lap("dbscan")

# each raw point's voxel, by the voxel index Open3D's downsampling uses (origin = min bound - voxel / 2)
origin = xyz.astype(np.float64).min(axis=0) - 0.5 * a.voxel
dims = np.floor((xyz.astype(np.float64).max(axis=0) - origin) / a.voxel).astype(np.int64) + 1


def keys(p):
    c = np.floor((p - origin) / a.voxel).astype(np.int64)
    return c[:, 0] + dims[0] * (c[:, 1] + dims[1] * c[:, 2])


ds_xyz = np.asarray(ds.points)
raw64 = xyz.astype(np.float64)
ds_keys = keys(ds_xyz)
order = np.argsort(ds_keys)
pos = np.clip(np.searchsorted(ds_keys[order], keys(raw64)), 0, len(ds_keys) - 1)
raw_label = labels[order[pos]]
count = int(labels.max()) + 1 if labels.size else 0
hit = raw_label >= 0
cl, ids_hit = raw_label[hit].astype(np.int64), inst[hit].astype(np.int64)
votes_by = np.bincount(cl * 65536 + ids_hit, minlength=count * 65536).reshape(count, 65536)
raw_counts = np.bincount(cl, minlength=count)
colour_sums = [np.bincount(cl, weights=colours[hit, ch].astype(np.float64), minlength=count) for ch in range(3)]
voxel_counts = np.bincount(labels[labels >= 0], minlength=count)
nodes = []
for c in range(count):
    if voxel_counts[c] < a.min_voxels:
        continue
    idx = np.flatnonzero(labels == c)
    cluster = ds.select_by_index(idx)
    try:
        obb = cluster.get_oriented_bounding_box()
    except RuntimeError:
        # a flat cluster (one layer of voxels, e.g. a tabletop seen from above): qhull finds no 3-D hull, and
        # Open3D's robust mode joggles the points to get one
        obb = cluster.get_oriented_bounding_box(robust=True)
    votes = {}
    for i in np.flatnonzero(votes_by[c]):
        cat = category_of.get(int(i)) if i and not structure[i] else None
        if cat:
            votes[cat] = votes.get(cat, 0) + int(votes_by[c, i])
    pts = ds_xyz[idx]
    nodes.append({
        "voxels": int(idx.size),
        "raw_points": int(raw_counts[c]),
        "label": max(sorted(votes), key=lambda k: votes[k]) if votes else "object",
        "aabb": {"min": pts.min(axis=0).tolist(), "max": pts.max(axis=0).tolist()},
        "obb_centre": np.asarray(obb.center).tolist(),
        "color": [int(round(s[c] / max(1, raw_counts[c]))) for s in colour_sums],
    })
lap("nodes")

with open(a.out, "w") as f:
    json.dump({"open3d": o3d.__version__, "threads": a.threads, "points": int(xyz.shape[0]), "voxels": int(ds_xyz.shape[0]),
               "nodes": nodes, "import_s": round(t_import - t_start, 4), "stages_s": stages}, f)
