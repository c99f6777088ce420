"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: scenes/interactive_traversable_scene.py:21-39; scenes/scene_base.py:62-70 (Scene), :157 (object_registry), :173 (objects); utils/registry_utils.py:298 (registry __call__)."""
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
