#!/usr/bin/env python3
"""
Export VGGT-1B to ONNX for esi3d's `vggt` point-cloud source.

Run by the project with Debian's python3-torch 1.13.1 on VGGT 44b3afb, at reduced width with random weights
(`--arch reduced`, the contract test test/reconstruct/vggtContract.test.ts) and, in an earlier check, at full
size with random weights. Never run with the real weights here (no network).
See models/README.md for the exact commands and results.

Setup (on a machine with network access; or Debian: python3-torch python3-onnx python3-pil python3-numpy):
    git clone <facebookresearch/vggt> vggt && git -C vggt checkout 44b3afb
    python -m venv .venv && . .venv/bin/activate
    pip install -r vggt/requirements.txt      # pins torch==2.3.1 (TorchScript exporter, opset 17)
    pip install -e vggt onnx onnxruntime numpy Pillow huggingface_hub
On torch 1.13, or without huggingface_hub / einops, models/vggt_torch113_patches.py is applied automatically.

Export (pad mode, fixed 518x518 input like the public export; esi3d picks pad mode from that shape):
    python models/export_vggt.py --vggt-repo vggt --out models/vggt [--images a.png b.png] [--check]

Crop-mode export at one image size, e.g. for 4:3 bundles that crop to 518x392 (the graph is locked to that
resolution; the DINOv2 positional embedding is interpolated to it in eager mode before tracing, export patch 4):
    python models/export_vggt.py --vggt-repo vggt --out models/vggt-518x392 --height 392

Output: <out>/vggt.onnx + <out>/vggt.onnx_data (one external-data file; keep them together), then
    export ESI3D_VGGT_MODEL=<out>/vggt.onnx
I/O: input "input_images" float32 [num_images, 3, H, 518] in [0, 1] (no normalisation: the model does it);
outputs "pose_enc" [1,S,9], "depth" [1,S,H,W,1], "depth_conf" [1,S,H,W], "world_points" [1,S,H,W,3],
"world_points_conf" [1,S,H,W], "images" [1,S,3,H,W]. The track head is not exported (the akretz/vggt-onnx export).

Licence: the facebook/VGGT-1B weights are CC BY-NC 4.0 (non-commercial); the exported file inherits that.
"""
import argparse
import inspect
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vggt_torch113_patches import apply_compat_patches  # noqa: E402

PATCH = 14  # VGGT patch size (vggt/models/vggt.py patch_size=14)
TARGET = 518  # VGGT image size (img_size=518)
OUTPUTS = ["pose_enc", "depth", "depth_conf", "world_points", "world_points_conf", "images"]
DATA_FILE = "vggt.onnx_data"
GRAPH_FILE = "vggt.onnx"
# The aggregator reshapes tokens only `if tokens.shape != (B, S*P, C)` (aggregator.py _process_*_attention):
# traced with one frame the two shapes coincide and global attention is frozen into per-frame attention,
# a graph that runs at any S but is wrong for S > 1 (seen when exporting VGGT's own code). Two frames keep both paths.
MIN_TRACE_FRAMES = 2
CHECK_FRAMES = (1, 2, 3)
# Largest |ONNX Runtime - PyTorch| accepted by --check, fp32: akretz/vggt-onnx test_onnx.py's tolerances
# (1e-4, confidences 1e-3), applied here to the maximum rather than a percentile.
CHECK_TOL = 1e-4
CHECK_TOL_CONF = 1e-3


class ExportPatches:
    """The akretz/vggt-onnx patches plus the crop-mode positional embedding, as
    monkeypatches that can be switched off again, so --check compares ONNX Runtime with VGGT's unpatched code."""

    def __init__(self, model, height, width):
        import vggt.heads.utils as head_utils

        self.model, self.hw = model, (height, width)
        self.head_utils = head_utils
        self.saved = {
            "cartesian_prod": torch.cartesian_prod,
            "expm1": torch.expm1,
            "Tensor.expm1": torch.Tensor.expm1,
            "make_sincos_pos_embed": head_utils.make_sincos_pos_embed,
        }
        self.fixed_pos_embed = None

    def enable(self):
        # 1. aten::cartesian_prod has no ONNX export (RoPE PositionGetter): the same grid from expand, for the
        #    two 1-D tensors VGGT passes (expand, not repeat_interleave, which torch 1.13 cannot export).
        def cartesian_prod_2(*ts):
            if len(ts) != 2:
                raise NotImplementedError("export patch handles cartesian_prod of two tensors only")
            a, b = ts
            na, nb = a.numel(), b.numel()
            return torch.stack([a.view(-1, 1).expand(na, nb).reshape(-1), b.view(1, -1).expand(na, nb).reshape(-1)], dim=-1)

        torch.cartesian_prod = cartesian_prod_2
        # 2. ONNX has no Expm1 op (head activations norm_exp / inverse_log_transform): exp(x) - 1.
        torch.expm1 = lambda x, *a, **k: torch.exp(x) - 1.0
        torch.Tensor.expm1 = lambda self: torch.exp(self) - 1.0

        # 3. make_sincos_pos_embed builds float64 frequencies on CPU; ORT has no double Einsum kernel.
        def make_sincos_pos_embed(embed_dim, pos, omega_0=100):
            assert embed_dim % 2 == 0
            omega = torch.arange(embed_dim // 2, dtype=torch.float32, device=pos.device)
            omega /= embed_dim / 2.0
            omega = 1.0 / omega_0**omega
            out = torch.einsum("m,d->md", pos.reshape(-1).float(), omega)
            return torch.cat([torch.sin(out), torch.cos(out)], dim=1).float()

        self.head_utils.make_sincos_pos_embed = make_sincos_pos_embed

        # 4. Crop mode (input not 518x518): DINOv2's interpolate_pos_encoding resizes its 37x37 positional
        #    embedding with antialiased bicubic (aten::_upsample_bicubic2d_aa), which the TorchScript exporter
        #    does not support and will not (pytorch/pytorch#119232). The graph is traced at one size anyway, so
        #    the interpolated embedding is computed here in eager mode, by VGGT's own method, and traced as a constant.
        pe = self.model.aggregator.patch_embed
        if self.hw != (TARGET, TARGET) and hasattr(pe, "interpolate_pos_encoding"):
            H, W = self.hw
            npatch = (H // PATCH) * (W // PATCH)
            with torch.no_grad():
                probe = torch.zeros(1, npatch + 1, pe.pos_embed.shape[-1], dtype=pe.pos_embed.dtype)
                fixed = type(pe).interpolate_pos_encoding(pe, probe, H, W).detach().clone()
            self.fixed_pos_embed = fixed

            def interpolate_pos_encoding(x, w, h):  # DINOv2 passes the image's rows as w and columns as h
                if (w, h) != (H, W):
                    raise RuntimeError(f"this export fixed the positional embedding for {W}x{H} input, got {h}x{w}")
                return fixed.to(x.dtype)

            pe.interpolate_pos_encoding = interpolate_pos_encoding
        return self

    def disable(self):
        torch.cartesian_prod = self.saved["cartesian_prod"]
        torch.expm1 = self.saved["expm1"]
        torch.Tensor.expm1 = self.saved["Tensor.expm1"]
        self.head_utils.make_sincos_pos_embed = self.saved["make_sincos_pos_embed"]
        pe = self.model.aggregator.patch_embed
        if "interpolate_pos_encoding" in vars(pe):
            del pe.interpolate_pos_encoding
        # RoPE positions are cached per grid size: drop the ones the patched cartesian_prod made.
        getter = getattr(self.model.aggregator, "position_getter", None)
        if getter is not None:
            getter.position_cache.clear()
        return self


class VggtForExport(torch.nn.Module):
    """Returns an explicit tuple: since 2025-07-06 VGGT's dict also holds pose_enc_list, and tracing would
    flatten it into the wrong positional names (the akretz/vggt-onnx export)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_images):
        p = self.model(input_images)
        return tuple(p[k] for k in OUTPUTS)


def preprocess_images(paths, height):
    from vggt.utils.load_fn import load_and_preprocess_images

    mode = "pad" if height == TARGET else "crop"
    x = load_and_preprocess_images(paths, mode=mode)
    if tuple(x.shape[-2:]) != (height, TARGET):
        sys.exit(f"--images preprocess to {tuple(x.shape[-2:])} in {mode} mode, expected ({height}, {TARGET})")
    return x


def random_frames(frames, height, seed):
    """Distinct random frames in [0, 1] (one generator, so every frame differs)."""
    g = torch.Generator().manual_seed(seed)
    return torch.rand(frames, 3, height, TARGET, generator=g)


def build_model(a):
    sys.path.insert(0, os.path.abspath(a.vggt_repo))
    applied = apply_compat_patches()
    if applied:
        print(f"compatibility patches (models/vggt_torch113_patches.py): {', '.join(applied)}")
    from vggt.models.vggt import VGGT

    if a.arch == "reduced":
        from vggt_reduced import build_reduced_vggt

        if not a.weights:
            sys.exit("--arch reduced has no published weights: pass --weights (a state_dict of build_reduced_vggt())")
        model = build_reduced_vggt()
    else:
        model = VGGT() if a.weights else VGGT.from_pretrained("facebook/VGGT-1B")
    if a.weights:
        model.load_state_dict(torch.load(a.weights, map_location="cpu"))
    model = model.eval().float()
    # The track head needs query points and GridSample-style sampling; it is not part of the contract.
    model.track_head = None
    return model


def export(wrapper, x, out, opset):
    """Traces to a staging directory inside `out`, then replaces <out>/vggt.onnx and <out>/vggt.onnx_data.
    The old data file is removed first: onnx.save_model appends to an existing external-data file, so a
    re-export into the same directory would double it (seen when re-exporting)."""
    import onnx

    os.makedirs(out, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=".export-", dir=out)
    try:
        raw_dir = os.path.join(stage, "raw")
        os.makedirs(raw_dir)
        raw = os.path.join(raw_dir, "vggt_raw.onnx")
        kw = {}
        if "dynamo" in inspect.signature(torch.onnx.export).parameters:
            kw["dynamo"] = False  # TorchScript tracer, as the public export
        with torch.no_grad():
            torch.onnx.export(
                wrapper, (x,), raw,
                input_names=["input_images"], output_names=OUTPUTS,
                # input dim 0 and output dim 1 are the frame axis (output dim 0 is the batch of 1)
                dynamic_axes={"input_images": {0: "num_images"}, **{o: {1: "num_images"} for o in OUTPUTS}},
                opset_version=opset, do_constant_folding=True, **kw,
            )
        m = onnx.load(raw, load_external_data=True)
        shutil.rmtree(raw_dir)
        staged = os.path.join(stage, GRAPH_FILE)
        # Over 2 GB a protobuf cannot hold the weights: one external-data file next to the graph.
        onnx.save_model(m, staged, save_as_external_data=True, all_tensors_to_one_file=True, location=DATA_FILE, size_threshold=0)
        for name in (DATA_FILE, GRAPH_FILE):
            if os.path.exists(os.path.join(out, name)):
                os.remove(os.path.join(out, name))
        os.replace(os.path.join(stage, DATA_FILE), os.path.join(out, DATA_FILE))
        os.replace(staged, os.path.join(out, GRAPH_FILE))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return os.path.join(out, GRAPH_FILE)


def onnx_runner(path):
    """A function input -> list of outputs (OUTPUTS order) on ONNX Runtime's CPU provider: Python's onnxruntime
    when installed, else esi3d's onnxruntime-node through models/ort_run.mjs (Debian has no python3-onnxruntime)."""
    try:
        import onnxruntime as ort

        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        return "onnxruntime (Python) " + ort.__version__, lambda x: sess.run(OUTPUTS, {"input_images": x})
    except ImportError:
        pass
    node = shutil.which("node")
    if node is None:
        sys.exit("--check needs ONNX Runtime: pip install onnxruntime, or node with esi3d's onnxruntime-node (npm ci)")

    def run(x):
        with tempfile.TemporaryDirectory() as tmp:
            inp = os.path.join(tmp, "input.f32")
            np.ascontiguousarray(x, dtype="<f4").tofile(inp)
            shape = ",".join(str(d) for d in x.shape)
            subprocess.run([node, os.path.join(HERE, "ort_run.mjs"), path, inp, shape, tmp, *OUTPUTS], check=True)
            return [read_raw(os.path.join(tmp, o)) for o in OUTPUTS]

    return "onnxruntime-node (models/ort_run.mjs)", run


def read_raw(prefix):
    """An array written by ort_run.mjs: <prefix>.f32 (little-endian float32) and <prefix>.shape (comma list)."""
    with open(prefix + ".shape") as f:
        shape = [int(d) for d in f.read().split(",") if d]
    return np.fromfile(prefix + ".f32", dtype="<f4").reshape(shape)


def check(path, model, patches, images, height):
    """Max |ONNX Runtime - PyTorch| per output for S = 1, 2, 3 distinct frames; PyTorch runs VGGT's code with
    the export patches switched off. Returns True when every output is within tolerance."""
    name, run = onnx_runner(path)
    print(f"--check: {name} vs PyTorch {torch.__version__} running VGGT's code without the export patches")
    patches.disable()
    ok = True
    for s in CHECK_FRAMES:
        xi = images[:s] if images is not None and images.shape[0] >= s else random_frames(s, height, seed=1000 + s)
        with torch.no_grad():
            p = model(xi)
        ref = [p[k].numpy() for k in OUTPUTS]
        got = run(xi.numpy())
        for o, r, g in zip(OUTPUTS, ref, got):
            if tuple(r.shape) != tuple(g.shape):
                print(f"S={s} {o:18s} shape {tuple(g.shape)} != PyTorch {tuple(r.shape)}  WRONG")
                ok = False
                continue
            diff = float(np.max(np.abs(r.astype(np.float64) - g.astype(np.float64))))
            tol = CHECK_TOL_CONF if o.endswith("conf") else CHECK_TOL
            good = diff <= tol
            ok &= good
            print(f"S={s} {o:18s} max |diff| = {diff:.2e} {'ok' if good else 'TOO LARGE'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vggt-repo", required=True, help="checkout of facebookresearch/vggt (tested: 44b3afb)")
    ap.add_argument("--out", required=True, help="output directory (vggt.onnx + vggt.onnx_data)")
    ap.add_argument("--weights", help="local model.pt state_dict (default: VGGT.from_pretrained('facebook/VGGT-1B'))")
    ap.add_argument("--arch", choices=["full", "reduced"], default="full", help="full = VGGT-1B; reduced = the contract-test width (models/vggt_reduced.py; needs --weights)")
    ap.add_argument("--height", type=int, default=TARGET, help="input height: 518 = pad mode (default); < 518 = crop mode at that height")
    ap.add_argument("--images", nargs="*", help=f"real images to trace with (recommended; default random; at least {MIN_TRACE_FRAMES})")
    ap.add_argument("--frames", type=int, default=MIN_TRACE_FRAMES, help=f"frames in the random trace input (at least {MIN_TRACE_FRAMES})")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--check", action="store_true", help="compare ONNX Runtime with unpatched PyTorch for S = 1, 2, 3 distinct frames (max |diff|)")
    a = ap.parse_args()
    if a.height % PATCH or not 0 < a.height <= TARGET:
        sys.exit(f"--height must be a multiple of {PATCH} in (0, {TARGET}]")
    n_trace = len(a.images) if a.images else a.frames
    if n_trace < MIN_TRACE_FRAMES:
        what = f"{len(a.images)} image(s) given with --images" if a.images else f"--frames {a.frames}"
        sys.exit(f"{what}: tracing needs at least {MIN_TRACE_FRAMES} frames. A graph traced with one frame runs at any "
                 "frame count but freezes VGGT's global attention into per-frame attention, giving wrong poses for S > 1.")

    model = build_model(a)
    wrapper = VggtForExport(model).eval()
    images = preprocess_images(a.images, a.height) if a.images else None
    x = images if images is not None else random_frames(a.frames, a.height, seed=0)
    patches = ExportPatches(model, a.height, TARGET).enable()
    final = export(wrapper, x, a.out, a.opset)
    print(f"wrote {final} and {os.path.join(a.out, DATA_FILE)} (traced at S={x.shape[0]}, {TARGET}x{a.height})")
    if a.check and not check(final, model, patches, images, a.height):
        sys.exit("--check: ONNX Runtime and PyTorch differ beyond the tolerance")


if __name__ == "__main__":
    main()
