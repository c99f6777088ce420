#!/usr/bin/python3
"""Steps 1 and 3 of `--instances fusion` (scenegraph/instances/fusion.ts) in Open3D, as ConceptGraphs does them.

Our own compiled peer for bench/fusionPeer.ts, which dumps the point sets the fusion builder downsamples and
denoises. For every set (one 2D detection lifted to 3D, or one node), ConceptGraphs' process_pcd:

  voxel_down_sample(voxel)                                  (params.ts FUSION_VOXEL_M, 0.025 m)
  cluster_dbscan(eps, min_points), keep the largest cluster (DENOISE_EPS_M 0.05, DENOISE_MIN_POINTS 10)
  keep everything when the largest cluster has fewer than
  min_keep points, or there is no cluster                   (DENOISE_MIN_KEEP 5; cluster.ts largestClusterMask)

with cluster.ts's one shortcut mirrored: a downsampled set of fewer than min_keep points is kept without
running DBSCAN. Each set is timed step by step with time.perf_counter:

  gather  the set's points from the cloud (numpy), wrapped as an Open3D PointCloud (Vector3dVector)
  voxel   voxel_down_sample
  dbscan  cluster_dbscan
  select  the largest cluster found (numpy) and taken out (select_by_index)

Reading the dump, the imports and the cloud's one conversion to float64 (Open3D's point type) are not timed.
The whole pass over every set is repeated --repeat times; each step's seconds are the least over the repeats.

The dump (written by bench/fusionPeer.ts) is a folder with manifest.json naming little-endian raw arrays:
  cloud: {"xyz": file of float32 x, y, z per point, "count": n}
  sets:  {name: {"kind": "index", "idx": uint32 cloud point indices, "off": uint32 offsets (items + 1)}
          or     {"kind": "points", "xyz": float32 x, y, z, "off": uint32 offsets in points (items + 1)},
                 optional "denoise": false (downsampled only)}
  voxel, eps, min_points, min_keep

Writes one JSON object to --out: per set its item, point, voxel and kept counts, per-step seconds, and per item
its voxel count and kept (largest-cluster) voxel count.
Run with Debian's interpreter (python3-open3d 0.16, numpy):
  /usr/bin/python3 o3d_fusion.py DUMP_DIR --out result.json [--threads 1] [--repeat 3]
"""
import argparse
import json
import os
import time

t_start = time.perf_counter()
ap = argparse.ArgumentParser()
ap.add_argument("dump")
ap.add_argument("--out", required=True)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()
# before Open3D is imported: OpenMP reads it when it starts (Open3D's DBSCAN precomputes neighbours in parallel)
os.environ["OMP_NUM_THREADS"] = str(a.threads)

import numpy as np  # noqa: E402
import open3d as o3d  # noqa: E402

t_import = time.perf_counter()


def raw(name, dtype):
    return np.fromfile(os.path.join(a.dump, name), dtype=dtype)


with open(os.path.join(a.dump, "manifest.json")) as f:
    m = json.load(f)
voxel, eps, min_points, min_keep = m["voxel"], m["eps"], m["min_points"], m["min_keep"]
# Open3D keeps points as float64; float32 -> float64 is exact, so both sides see the same coordinates
cloud = raw(m["cloud"]["xyz"], "<f4").reshape(-1, 3).astype(np.float64)
sets = {}
for name, s in m["sets"].items():
    off = raw(s["off"], "<u4").astype(np.int64)
    denoise = s.get("denoise", True)
    if s["kind"] == "index":
        sets[name] = ("index", raw(s["idx"], "<u4").astype(np.int64), off, denoise)
    else:
        sets[name] = ("points", raw(s["xyz"], "<f4").reshape(-1, 3).astype(np.float64), off, denoise)


def denoise_all(kind, data, off, denoise):
    """One pass over a set's items: per-step seconds, and per item its voxel and kept counts (denoise False:
    downsampled only, as fusion's association downsamples a node with the detections it gathered)."""
    steps = {"gather": 0.0, "voxel": 0.0, "dbscan": 0.0, "select": 0.0}
    n_items = len(off) - 1
    voxels = np.zeros(n_items, dtype=np.int64)
    kept = np.zeros(n_items, dtype=np.int64)
    clock = time.perf_counter
    for i in range(n_items):
        t0 = clock()
        pts = cloud[data[off[i]:off[i + 1]]] if kind == "index" else data[off[i]:off[i + 1]]
        pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts))
        t1 = clock()
        ds = pcd.voxel_down_sample(voxel)
        t2 = clock()
        n = len(ds.points)
        voxels[i] = kept[i] = n
        if not denoise or n < min_keep:  # too few to denoise (cluster.ts largestClusterMask): kept whole, no DBSCAN
            steps["gather"] += t1 - t0
            steps["voxel"] += t2 - t1
            continue
        labels = np.asarray(ds.cluster_dbscan(eps=eps, min_points=min_points, print_progress=False))
        t3 = clock()
        # ConceptGraphs' pcd_denoise_dbscan: the largest cluster, unless there is none or it is tiny
        clustered = labels[labels >= 0]
        if clustered.size:
            sizes = np.bincount(clustered)
            best = int(sizes.argmax())
            if min_keep <= sizes[best] < n:
                ds = ds.select_by_index(np.flatnonzero(labels == best))
                kept[i] = len(ds.points)
        t4 = clock()
        steps["gather"] += t1 - t0
        steps["voxel"] += t2 - t1
        steps["dbscan"] += t3 - t2
        steps["select"] += t4 - t3
    return steps, voxels, kept


out_sets = {}
for name, (kind, data, off, denoise) in sets.items():
    best = None
    for _ in range(max(1, a.repeat)):
        steps, voxels, kept = denoise_all(kind, data, off, denoise)
        best = steps if best is None else {k: min(best[k], v) for k, v in steps.items()}
    out_sets[name] = {
        "items": int(len(off) - 1),
        "points": int(off[-1]),
        "voxels": int(voxels.sum()),
        "kept": int(kept.sum()),
        "steps_s": {k: round(v, 6) for k, v in best.items()},
        "per_item": {"voxels": voxels.tolist(), "kept": kept.tolist()},
    }

with open(a.out, "w") as f:
    json.dump({"open3d": o3d.__version__, "threads": a.threads, "repeat": a.repeat, "import_s": round(t_import - t_start, 4),
               "sets": out_sets}, f)
