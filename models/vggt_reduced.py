"""
VGGT's architecture at reduced width, built only from VGGT's own classes: the configuration the project's
contract check used (a reduced-width configuration built only from VGGT's own classes). It exists to test the export
and esi3d's ONNX contract on the real architecture with random weights on a CPU; it is not a model anyone
should run for results.

Changed from VGGT-1B: the aggregator is 384 wide with 6 heads on a DINOv2 ViT-S/14 (with registers) patch
embedding instead of 1024 / 16 / ViT-L; the heads read 2·384 = 768-wide tokens; both DPT heads use
features=64, out_channels=[64, 128, 256, 256]. Kept: depth 24 (24 frame + 24 global blocks, so the DPT taps
[4, 11, 17, 23] are unchanged), qk-norm, RoPE 100, 1 camera + 4 register tokens, the camera head (4-block
trunk, 16 heads, 4 iterations), every activation, and the track head (export_vggt.py drops it).
"""
import torch.nn as nn

REDUCED_EMBED_DIM = 384
REDUCED_HEADS = 6
REDUCED_PATCH_EMBED = "dinov2_vits14_reg"
REDUCED_DPT_FEATURES = 64
REDUCED_DPT_OUT_CHANNELS = [64, 128, 256, 256]


def build_reduced_vggt():
    """A VGGT instance (VGGT's class, so forward() is VGGT's own) with the reduced submodules. The caller seeds
    torch before calling for reproducible random weights."""
    from vggt.models.vggt import VGGT
    from vggt.models.aggregator import Aggregator
    from vggt.heads.camera_head import CameraHead
    from vggt.heads.dpt_head import DPTHead
    from vggt.heads.track_head import TrackHead

    dim_in = 2 * REDUCED_EMBED_DIM
    model = VGGT.__new__(VGGT)  # VGGT.__init__ would first build the full-size 1.2 B-parameter modules
    nn.Module.__init__(model)
    model.aggregator = Aggregator(embed_dim=REDUCED_EMBED_DIM, num_heads=REDUCED_HEADS, patch_embed=REDUCED_PATCH_EMBED)
    model.camera_head = CameraHead(dim_in=dim_in)
    dpt = dict(features=REDUCED_DPT_FEATURES, out_channels=REDUCED_DPT_OUT_CHANNELS)
    model.point_head = DPTHead(dim_in=dim_in, output_dim=4, activation="inv_log", conf_activation="expp1", **dpt)
    model.depth_head = DPTHead(dim_in=dim_in, output_dim=2, activation="exp", conf_activation="expp1", **dpt)
    model.track_head = TrackHead(dim_in=dim_in, patch_size=14)
    return model
