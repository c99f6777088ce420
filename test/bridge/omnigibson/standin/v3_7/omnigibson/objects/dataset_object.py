"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: objects/dataset_object.py:44-66 (__init__), :324 (set_bbox_center_position_orientation), :374-440 (native_bbox, base_link_offset, scaled_bbox_center_in_base_frame); objects/object_base.py:376 (get_base_aligned_bbox); prims/entity_prim.py:1458 (aabb); prims/xform_prim.py:179, :250 (set/get_position_orientation with frame); utils/transform_utils.py:757 (pose2mat: torch tensors only)."""
import og_standin as _core


class DatasetObject(_core.StandinDatasetObject):
    def __init__(self, name, relative_prim_path=None, category="object", model=None, dataset_name="behavior-1k-assets", scale=None, visible=True, fixed_base=False, visual_only=False, kinematic_only=None, self_collisions=False, prim_type=None, link_physics_materials=None, load_config=None, abilities=None, include_default_states=True, bounding_box=None, in_rooms=None, expected_file_hash=None, **kwargs):
        self._init(name, category, model, scale, bounding_box, fixed_base, in_rooms, relative_prim_path)
