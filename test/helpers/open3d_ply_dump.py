"""Reads a PLY with Open3D's tensor reader (o3d.t.io.read_point_cloud) and dumps every point attribute it kept.

Usage: open3d_ply_dump.py FILE.ply OUT_DIR
Writes OUT_DIR/<attribute>.bin (the attribute's values, little endian, row-major) and prints one JSON object:
{"count": N, "attributes": {name: {"dtype": numpy dtype name, "shape": [..]}}}. Open3D's own warnings
(a skipped property, for example) go to stderr, which the test reads too.
"""
import json
import os
import sys

import numpy as np
import open3d as o3d


def main() -> None:
    ply, out = sys.argv[1], sys.argv[2]
    pcd = o3d.t.io.read_point_cloud(ply)
    attributes = {}
    for name in pcd.point:
        values = pcd.point[name].numpy()
        attributes[name] = {"dtype": values.dtype.name, "shape": list(values.shape)}
        np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<")).tofile(os.path.join(out, f"{name}.bin"))
    count = int(pcd.point["positions"].shape[0]) if "positions" in pcd.point else 0
    print(json.dumps({"count": count, "attributes": attributes}))


if __name__ == "__main__":
    main()
