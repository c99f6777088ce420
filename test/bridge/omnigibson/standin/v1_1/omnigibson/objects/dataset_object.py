"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: objects/dataset_object.py:34-53 (__init__), :93-94 (scale and bounding_box exclusive), :305 (set_bbox_center_position_orientation), :355-440 (native_bbox, base_link_offset, scaled_bbox_center_in_base_frame); objects/object_base.py:355 (get_base_aligned_bbox); prims/entity_prim.py:1411 (aabb); prims/xform_prim.py:176, :244 (set/get_position_orientation with frame)."""
import og_standin as _core


class DatasetObject(_core.StandinDatasetObject):
    def __init__(self, name, relative_prim_path=None, category="object", model=None, scale=None, visible=True, fixed_base=False, visual_only=False, kinematic_only=None, self_collisions=False, prim_type=None, load_config=None, abilities=None, include_default_states=True, bounding_box=None, in_rooms=None, **kwargs):
        self._init(name, category, model, scale, bounding_box, fixed_base, in_rooms, relative_prim_path)
