#!/usr/bin/env python3
"""
The PyTorch side of test/reconstruct/vggtContract.test.ts: VGGT's own code (a local checkout, $VGGT_REPO)
computes what esi3d must reproduce. Arrays are exchanged as <name>.f32 (little-endian float32) plus
<name>.shape (comma-separated dims).

    prepare   --vggt-repo R --work DIR --cases cases.json --bundle a.png b.png ... --height H
        1. load_and_preprocess_images on each (png, mode) case               -> DIR/pre/<id>.f32
        2. the reduced VGGT (models/vggt_reduced.py), torch.manual_seed(0)   -> DIR/weights.pt
        3. models/export_vggt.py --arch reduced --weights DIR/weights.pt     -> DIR/model/vggt.onnx(+_data)
           and the same graph with float16 outputs                          -> DIR/model/vggt_fp16out.onnx
        4. that model, VGGT's unpatched code, on the bundle's images         -> DIR/torch/<output>.f32
           and pose_encoding_to_extri_intri of its pose_enc                  -> DIR/torch/extrinsic|intrinsic.f32
    unproject --vggt-repo R --dir DIR --height H --width W
        VGGT's pose_encoding_to_extri_intri and unproject_depth_map_to_point_map on DIR/pose_enc.f32 and
        DIR/depth.f32 (ONNX Runtime's outputs, written by the test)          -> DIR/extrinsic|intrinsic|points.f32
Timings (s) go to DIR/timings.json.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(REPO_ROOT, "models")
OUTPUTS = ["pose_enc", "depth", "depth_conf", "world_points", "world_points_conf", "images"]
SEED = 0


def save(prefix, a):
    a = np.ascontiguousarray(np.asarray(a, dtype="<f4"))
    a.tofile(prefix + ".f32")
    with open(prefix + ".shape", "w") as f:
        f.write(",".join(str(d) for d in a.shape))


def load(prefix):
    with open(prefix + ".shape") as f:
        shape = [int(d) for d in f.read().split(",") if d]
    return np.fromfile(prefix + ".f32", dtype="<f4").reshape(shape)


def import_vggt(repo):
    sys.path.insert(0, os.path.abspath(repo))
    sys.path.insert(0, MODELS)
    from vggt_torch113_patches import apply_compat_patches

    return apply_compat_patches()


def prepare(a):
    t = {}
    patches = import_vggt(a.vggt_repo)
    from vggt.utils.load_fn import load_and_preprocess_images
    from vggt.utils.pose_enc import pose_encoding_to_extri_intri
    from vggt_reduced import build_reduced_vggt

    os.makedirs(os.path.join(a.work, "pre"), exist_ok=True)
    os.makedirs(os.path.join(a.work, "torch"), exist_ok=True)
    t0 = time.time()
    with open(a.cases) as f:
        cases = json.load(f)
    for c in cases:
        save(os.path.join(a.work, "pre", c["id"]), load_and_preprocess_images([c["png"]], mode=c["mode"])[0])
    t["preprocess"] = time.time() - t0

    t0 = time.time()
    torch.manual_seed(SEED)
    model = build_reduced_vggt().eval()
    weights = os.path.join(a.work, "weights.pt")
    reuse = a.reuse_export and os.path.exists(weights) and os.path.exists(os.path.join(a.work, "model", "vggt.onnx"))
    if reuse:  # the export of an earlier run in this directory, from the same seed (checked: same weights)
        saved = torch.load(weights)
        same = all(torch.equal(saved[k], v) for k, v in model.state_dict().items())
        if not same:
            sys.exit(f"--reuse-export: {weights} is not the seed-{SEED} reduced model")
    else:
        torch.save(model.state_dict(), weights)
    t["build"] = time.time() - t0

    t0 = time.time()
    cmd = [sys.executable, os.path.join(MODELS, "export_vggt.py"), "--vggt-repo", a.vggt_repo, "--arch", "reduced", "--weights", weights,
           "--height", str(a.height), "--frames", "2", "--out", os.path.join(a.work, "model")]
    if not reuse:
        with open(os.path.join(a.work, "export.log"), "w") as log:
            subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT)
    t["export"] = None if reuse else time.time() - t0

    t0 = time.time()
    fp16_outputs(os.path.join(a.work, "model"))
    t["fp16_outputs"] = time.time() - t0

    # VGGT's code as published (this process never applies the export patches), on VGGT's own preprocessing.
    t0 = time.time()
    x = load_and_preprocess_images(a.bundle, mode="crop")
    with torch.no_grad():
        p = model(x)
    for k in OUTPUTS:
        save(os.path.join(a.work, "torch", k), p[k].numpy())
    extri, intri = pose_encoding_to_extri_intri(p["pose_enc"], x.shape[-2:])
    save(os.path.join(a.work, "torch", "extrinsic"), extri.numpy())
    save(os.path.join(a.work, "torch", "intrinsic"), intri.numpy())
    t["torch_forward"] = time.time() - t0
    info = {"timings_s": t, "reused_export": bool(reuse), "torch": torch.__version__, "compat_patches": patches, "parameters": sum(q.numel() for q in model.parameters()),
            "input_shape": list(x.shape), "seed": SEED}
    with open(os.path.join(a.work, "reference.json"), "w") as f:
        json.dump(info, f, indent=1)


def fp16_outputs(model_dir):
    """<model_dir>/vggt_fp16out.onnx: the exported graph with every output cast to float16, sharing vggt.onnx_data.
    It exercises esi3d's float16 output path on the real graph; the computation stays float32 (torch 1.13 has
    no CPU float16 autocast, so an fp16-compute export cannot be traced here)."""
    import onnx
    from onnx import TensorProto, helper

    m = onnx.load(os.path.join(model_dir, "vggt.onnx"), load_external_data=False)
    g = m.graph
    for out in g.output:
        inner = out.name + "_fp32"
        for node in g.node:
            node.output[:] = [inner if o == out.name else o for o in node.output]
            node.input[:] = [inner if i == out.name else i for i in node.input]
        g.node.append(helper.make_node("Cast", [inner], [out.name], to=TensorProto.FLOAT16, name="cast_fp16_" + out.name))
        out.type.tensor_type.elem_type = TensorProto.FLOAT16
    onnx.save_model(m, os.path.join(model_dir, "vggt_fp16out.onnx"))


def unproject(a):
    import_vggt(a.vggt_repo)
    from vggt.utils.geometry import unproject_depth_map_to_point_map
    from vggt.utils.pose_enc import pose_encoding_to_extri_intri

    pose = torch.from_numpy(load(os.path.join(a.dir, "pose_enc")))
    depth = load(os.path.join(a.dir, "depth"))  # [1,S,H,W,1]
    extri, intri = pose_encoding_to_extri_intri(pose, (a.height, a.width))
    pts = unproject_depth_map_to_point_map(depth[0], extri[0].numpy(), intri[0].numpy())
    save(os.path.join(a.dir, "extrinsic"), extri.numpy())
    save(os.path.join(a.dir, "intrinsic"), intri.numpy())
    save(os.path.join(a.dir, "points"), pts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--vggt-repo", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cases", required=True)
    p.add_argument("--bundle", nargs="+", required=True)
    p.add_argument("--height", type=int, required=True)
    p.add_argument("--reuse-export", action="store_true", help="keep DIR/model from an earlier run (development only)")
    u = sub.add_parser("unproject")
    u.add_argument("--vggt-repo", required=True)
    u.add_argument("--dir", required=True)
    u.add_argument("--height", type=int, required=True)
    u.add_argument("--width", type=int, required=True)
    a = ap.parse_args()
    prepare(a) if a.cmd == "prepare" else unproject(a)


if __name__ == "__main__":
    main()
