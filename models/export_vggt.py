#!/usr/bin/env python3
"""
Export VGGT-1B to ONNX for esi3d's `vggt` point-cloud source.

UNTESTED HERE: the project's machines have neither PyTorch nor network access to fetch the weights, so this
script has never been run by the project. It follows the recipe in shared/reference/vggt-onnx.md §3.4 (the
one akretz/vggt-onnx used for the public export), applying that export's four "tiny modifications" as
monkeypatches instead of edits to a VGGT checkout. Run it on a machine with PyTorch and ~20 GB of RAM.

Setup (on a machine with network access):
    git clone <facebookresearch/vggt> vggt && git -C vggt checkout 44b3afb
    python -m venv .venv && . .venv/bin/activate
    pip install -r vggt/requirements.txt      # pins torch==2.3.1 (TorchScript exporter, opset 17)
    pip install -e vggt onnx onnxruntime numpy Pillow huggingface_hub

Export (pad mode, fixed 518x518 input like the public export; esi3d picks pad mode from that shape):
    python models/export_vggt.py --vggt-repo vggt --out models/vggt [--images a.png b.png] [--check]

Crop-mode export at one image size (the traced graph is locked to its resolution, vggt-onnx.md §3.3(b)):
    python models/export_vggt.py --vggt-repo vggt --out models/vggt-518x392 --height 392

Output: <out>/vggt.onnx + <out>/vggt.onnx_data (one external-data file; keep them together), then
    export ESI3D_VGGT_MODEL=<out>/vggt.onnx
I/O: input "input_images" float32 [num_images, 3, H, 518] in [0, 1] (no normalisation: the model does it);
outputs "pose_enc" [1,S,9], "depth" [1,S,H,W,1], "depth_conf" [1,S,H,W], "world_points" [1,S,H,W,3],
"world_points_conf" [1,S,H,W], "images" [1,S,3,H,W]. The track head is not exported (vggt-onnx.md §3.3(e)).

Licence: the facebook/VGGT-1B weights are CC BY-NC 4.0 (non-commercial); the exported file inherits that.
"""
import argparse
import inspect
import os
import sys
import tempfile

import numpy as np
import torch

PATCH = 14  # VGGT patch size (vggt/models/vggt.py patch_size=14)
TARGET = 518  # VGGT image size (img_size=518)
OUTPUTS = ["pose_enc", "depth", "depth_conf", "world_points", "world_points_conf", "images"]


def apply_export_patches():
    """The akretz/vggt-onnx patches (vggt-onnx.md §3.1), as monkeypatches applied before the model is built."""
    # 1. aten::cartesian_prod has no ONNX export (used by the RoPE PositionGetter): same result from
    #    repeat_interleave / repeat / stack for the two 1-D tensors VGGT passes.
    def cartesian_prod_2(*ts):
        if len(ts) != 2:
            raise NotImplementedError("export patch handles cartesian_prod of two tensors only")
        a, b = ts
        return torch.stack([a.repeat_interleave(b.numel()), b.repeat(a.numel())], dim=-1)

    torch.cartesian_prod = cartesian_prod_2

    # 2. ONNX has no Expm1 op (head activations norm_exp / inverse_log_transform): exp(x) - 1.
    torch.expm1 = lambda x, *a, **k: torch.exp(x) - 1.0
    torch.Tensor.expm1 = lambda self: torch.exp(self) - 1.0

    # 3. make_sincos_pos_embed builds float64 frequencies on CPU; ORT has no double Einsum kernel.
    import vggt.heads.utils as head_utils

    def make_sincos_pos_embed(embed_dim, pos, omega_0=100):
        assert embed_dim % 2 == 0
        omega = torch.arange(embed_dim // 2, dtype=torch.float32, device=pos.device)
        omega /= embed_dim / 2.0
        omega = 1.0 / omega_0**omega
        out = torch.einsum("m,d->md", pos.reshape(-1).float(), omega)
        return torch.cat([torch.sin(out), torch.cos(out)], dim=1).float()

    head_utils.make_sincos_pos_embed = make_sincos_pos_embed
    # 4. (fp16 only) akretz also casts q/k to the qk-norm weight dtype in vggt/layers/attention.py for an
    #    autocast export; this script exports fp32 only.


class VggtForExport(torch.nn.Module):
    """Returns an explicit tuple: since 2025-07-06 VGGT's dict also holds pose_enc_list, and tracing would
    flatten it into the wrong positional names (vggt-onnx.md §3.3(a))."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_images):
        p = self.model(input_images)
        return tuple(p[k] for k in OUTPUTS)


def dummy_input(paths, height, frames):
    if paths:
        from vggt.utils.load_fn import load_and_preprocess_images

        mode = "pad" if height == TARGET else "crop"
        x = load_and_preprocess_images(paths, mode=mode)
        if tuple(x.shape[-2:]) != (height, TARGET):
            sys.exit(f"--images preprocess to {tuple(x.shape[-2:])} in {mode} mode, expected ({height}, {TARGET})")
        return x
    g = torch.Generator().manual_seed(0)
    return torch.rand(frames, 3, height, TARGET, generator=g)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vggt-repo", required=True, help="checkout of facebookresearch/vggt at 44b3afb")
    ap.add_argument("--out", required=True, help="output directory (vggt.onnx + vggt.onnx_data)")
    ap.add_argument("--weights", help="local model.pt (default: VGGT.from_pretrained('facebook/VGGT-1B'))")
    ap.add_argument("--height", type=int, default=TARGET, help="input height: 518 = pad mode (default); < 518 = crop mode at that height")
    ap.add_argument("--images", nargs="*", help="real images to trace with (recommended; default random)")
    ap.add_argument("--frames", type=int, default=2, help="frames in the random dummy input")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--check", action="store_true", help="compare ONNX Runtime with PyTorch for S = 1, 2, 3")
    a = ap.parse_args()
    if a.height % PATCH or not 0 < a.height <= TARGET:
        sys.exit(f"--height must be a multiple of {PATCH} in (0, {TARGET}]")

    sys.path.insert(0, os.path.abspath(a.vggt_repo))
    apply_export_patches()
    from vggt.models.vggt import VGGT

    if a.weights:
        model = VGGT()
        model.load_state_dict(torch.load(a.weights, map_location="cpu"))
    else:
        model = VGGT.from_pretrained("facebook/VGGT-1B")
    model = model.eval().float()
    # The track head needs query points and GridSample-style sampling; it is not part of the contract.
    model.track_head = None
    wrapper = VggtForExport(model).eval()

    x = dummy_input(a.images, a.height, a.frames)
    os.makedirs(a.out, exist_ok=True)
    final = os.path.join(a.out, "vggt.onnx")
    kw = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False  # TorchScript tracer, as the public export
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        raw = os.path.join(tmp, "vggt_raw.onnx")
        torch.onnx.export(
            wrapper, (x,), raw,
            input_names=["input_images"], output_names=OUTPUTS,
            # input dim 0 and output dim 1 are the frame axis (output dim 0 is the batch of 1)
            dynamic_axes={"input_images": {0: "num_images"}, **{o: {1: "num_images"} for o in OUTPUTS}},
            opset_version=a.opset, do_constant_folding=True, **kw,
        )
        import onnx

        m = onnx.load(raw, load_external_data=True)
        # Over 2 GB a protobuf cannot hold the weights: one external-data file next to the graph.
        onnx.save_model(m, final, save_as_external_data=True, all_tensors_to_one_file=True, location="vggt.onnx_data", size_threshold=0)
    print(f"wrote {final} and {final}_data")

    if a.check:
        import onnxruntime as ort

        sess = ort.InferenceSession(final, providers=["CPUExecutionProvider"])
        for s in (1, 2, 3):
            xi = x[:1].repeat(s, 1, 1, 1) if x.shape[0] < s else x[:s]
            with torch.no_grad():
                ref = wrapper(xi)
            got = sess.run(OUTPUTS, {"input_images": xi.numpy()})
            for name, r, g in zip(OUTPUTS, ref, got):
                diff = np.percentile(np.abs(r.numpy() - g), 99)
                tol = 1e-3 if name.endswith("conf") else 1e-4  # akretz test_onnx.py tolerances (fp32)
                print(f"S={s} {name:18s} p99 |diff| = {diff:.2e} {'ok' if diff <= tol else 'TOO LARGE'}")


if __name__ == "__main__":
    main()
