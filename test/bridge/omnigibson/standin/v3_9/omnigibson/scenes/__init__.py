"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf: scenes/interactive_traversable_scene.py (as 3.7.2), scenes/scene_base.py object_registry / objects."""
import og_standin as _core


class Scene(_core.StandinScene):
    ground_plane = True

    def __init__(self, scene_file=None, use_floor_plane=True, floor_plane_visible=True, floor_plane_color=(1.0, 1.0, 1.0), use_skybox=True, include_robots=True):
        super().__init__()
        self.ground_plane = use_floor_plane


class InteractiveTraversableScene(_core.StandinTraversableScene):
    def __init__(self, scene_model, scene_instance=None, scene_file=None, dataset_name="behavior-1k-assets", trav_map_resolution=0.1, default_erosion_radius=0.0, trav_map_with_objects=True, num_waypoints=10, waypoint_resolution=0.2, load_object_categories=None, not_load_object_categories=None, load_room_types=None, load_room_instances=None, load_task_relevant_only=False, seg_map_resolution=0.1, include_robots=True):
        self._init(scene_model, load_room_instances, not_load_object_categories)


REGISTERED_SCENES = {"Scene": Scene, "InteractiveTraversableScene": InteractiveTraversableScene}
