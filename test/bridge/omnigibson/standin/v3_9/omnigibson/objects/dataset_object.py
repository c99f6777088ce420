"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf: objects/dataset_object.py DatasetObject.__init__, set_bbox_center_position_orientation(position, orientation), native_bbox, base_link_offset, scaled_bbox_center_in_base_frame; prims/xform_prim.py set/get_position_orientation (frame; asserts a unit quaternion); objects/stateful_object.py states."""
import og_standin as _core


class DatasetObject(_core.StandinDatasetObject):
    def __init__(self, name, relative_prim_path=None, category="object", model=None, dataset_name="behavior-1k-assets", scale=None, visible=True, fixed_base=False, visual_only=False, kinematic_only=None, self_collisions=False, prim_type=None, link_physics_materials=None, load_config=None, abilities=None, include_default_states=True, bounding_box=None, in_rooms=None, expected_file_hash=None, **kwargs):
        self._init(name, category, model, scale, bounding_box, fixed_base, in_rooms, relative_prim_path)
        self._states = None

    @property
    def states(self):
        """object/stateful_object.py: {state class: state}; kinematic states for all, Open for openable models."""
        if self._states is None:
            from omnigibson.object_states import STATES

            self._states = _core.object_states_of(self, STATES)
        return self._states
