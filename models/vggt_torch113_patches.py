"""
Compatibility patches that let VGGT's code (facebookresearch/vggt, checked at 44b3afb) run and export on an
older PyTorch: Debian's python3-torch 1.13 on the project's machines, without huggingface_hub or einops.

They are applied from outside, never by editing a VGGT checkout, and each only where it is needed:

| patch | needed when | why (each failure seen under Debian's torch 1.13) |
|---|---|---|
| stub `huggingface_hub` | the package is missing | `vggt/models/vggt.py` imports `PyTorchModelHubMixin` (E1); the stub's `from_pretrained` says to use `--weights` |
| stub `einops` (and `einops.layers.torch`) | the package is missing | imported by the track head (E3) and, through `vggt.dependency`, by `vggt/utils/geometry.py`; neither path calls it in esi3d's use |
| reference `scaled_dot_product_attention` | torch < 2.0 | `vggt/layers/attention.py` calls it (E4): softmax(q·kᵀ/√d)·v, the same MatMul→Softmax→MatMul that torch 2.x's opset-17 symbolic writes |
| exporter symbolic `aten::meshgrid` | torch < 2.0 | 1.13's symbolic swaps the list before unpacking it (E6, `vggt/heads/utils.py` `indexing="xy"`) |
| exporter symbolic `aten::layer_norm` (opset 17) | torch < 2.0 | 1.13 passes a missing weight/bias through as an empty input (E7, `CameraHead.adaln_norm`, `elementwise_affine=False`) |

The export patch for `torch.cartesian_prod` (models/export_vggt.py) is written with `expand`, not
`repeat_interleave`, so 1.13's repeat_interleave symbolic bug (E5) never comes up.

The exporter symbolics change only how a graph is written, not what PyTorch computes; the attention
reference is a numerical replacement, used by the PyTorch reference side too, so the ONNX-vs-PyTorch check
compares like with like. Nothing here runs on torch >= 2 except the module stubs (when those are missing).
"""
import importlib
import math
import sys
import types

import torch


def _torch_major() -> int:
    return int(torch.__version__.split(".")[0])


def _module_missing(name: str) -> bool:
    try:
        importlib.import_module(name)
        return False
    except ImportError:
        return True


def _stub_huggingface_hub() -> None:
    hub = types.ModuleType("huggingface_hub")

    class PyTorchModelHubMixin:  # the mixin VGGT inherits from; only from_pretrained is ever called
        @classmethod
        def from_pretrained(cls, *args, **kwargs):
            raise RuntimeError("huggingface_hub is not installed (and this machine may have no network): pass --weights /path/to/model.pt")

    hub.PyTorchModelHubMixin = PyTorchModelHubMixin
    sys.modules["huggingface_hub"] = hub


def _stub_einops() -> None:
    def unavailable(*args, **kwargs):
        raise RuntimeError("einops is not installed; only VGGT's tracking code uses it, and esi3d never runs it")

    class Unavailable:
        def __init__(self, *args, **kwargs):
            unavailable()

    ein = types.ModuleType("einops")
    ein.__path__ = []  # a package, so `einops.layers.torch` can be imported
    ein.rearrange = ein.repeat = ein.reduce = unavailable
    layers = types.ModuleType("einops.layers")
    layers.__path__ = []
    torch_layers = types.ModuleType("einops.layers.torch")
    torch_layers.Rearrange = torch_layers.Reduce = Unavailable
    ein.layers, layers.torch = layers, torch_layers
    sys.modules.update({"einops": ein, "einops.layers": layers, "einops.layers.torch": torch_layers})


def reference_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """torch.nn.functional.scaled_dot_product_attention as its documentation defines it (no dropout, no mask:
    VGGT passes neither at inference)."""
    if attn_mask is not None or is_causal or dropout_p:
        raise NotImplementedError("reference_sdpa: masks, causal attention and dropout are not needed by VGGT")
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return torch.softmax((query * s) @ key.transpose(-2, -1), dim=-1) @ value


def _register_exporter_fixes() -> None:
    from torch.onnx import register_custom_op_symbolic
    from torch.onnx import symbolic_helper as sh

    @sh.parse_args("v", "s")
    def meshgrid(g, tensor_list, indexing=None):
        # Unpack first, then swap (1.13 swaps the packed list and fails).
        tensors = sh._unpack_list(tensor_list)
        xy = indexing == "xy"
        if indexing not in (None, "ij", "xy"):
            raise RuntimeError(f"meshgrid: unsupported indexing {indexing}")
        if xy:
            tensors[0], tensors[1] = tensors[1], tensors[0]
        flat = [g.op("Reshape", t, g.op("Constant", value_t=torch.tensor([-1], dtype=torch.int64))) for t in tensors]
        shapes = [g.op("Shape", t) for t in flat]
        full = g.op("Concat", *shapes, axis_i=0)
        one = g.op("Constant", value_t=torch.ones(1, dtype=torch.int64))
        out = []
        for i, t in enumerate(flat):
            dims = [one] * len(flat)
            dims[i] = shapes[i]
            out.append(g.op("Expand", g.op("Reshape", t, g.op("Concat", *dims, axis_i=0)), full))
        if xy:
            out[0], out[1] = out[1], out[0]
        return g.op("prim::ListConstruct", *out)

    @sh.parse_args("v", "is", "v", "v", "f", "none")
    def layer_norm(g, input, normalized_shape, weight, bias, eps, cudnn_enable):
        # LayerNormalization needs a scale input: ones (and zeros for the bias) when the module has none.
        if sh._is_none(weight):
            weight = g.op("CastLike", g.op("Constant", value_t=torch.ones(normalized_shape)), input)
        if sh._is_none(bias):
            bias = g.op("CastLike", g.op("Constant", value_t=torch.zeros(normalized_shape)), input)
        return g.op("LayerNormalization", input, weight, bias, epsilon_f=eps, axis_i=-len(normalized_shape))

    register_custom_op_symbolic("aten::meshgrid", meshgrid, 9)
    register_custom_op_symbolic("aten::layer_norm", layer_norm, 17)


_applied = None


def apply_compat_patches() -> list:
    """Applies what this PyTorch and environment need (idempotent); returns the names of the patches applied."""
    global _applied
    if _applied is not None:
        return _applied
    done = []
    if _module_missing("huggingface_hub"):
        _stub_huggingface_hub()
        done.append("stub huggingface_hub")
    if _module_missing("einops"):
        _stub_einops()
        done.append("stub einops")
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        torch.nn.functional.scaled_dot_product_attention = reference_sdpa
        done.append("reference scaled_dot_product_attention")
    if _torch_major() < 2:
        _register_exporter_fixes()
        done.append("exporter symbolics meshgrid, layer_norm")
    _applied = done
    return done
