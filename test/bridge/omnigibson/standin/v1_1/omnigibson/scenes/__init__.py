"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: scenes/interactive_traversable_scene.py:23-40; scenes/scene_base.py:62-69 (Scene), :141 (object_registry), :157 (objects)."""
import og_standin as _core


class Scene(_core.StandinScene):
    ground_plane = True

    def __init__(self, scene_file=None, use_floor_plane=True, floor_plane_visible=True, floor_plane_color=(1.0, 1.0, 1.0), use_skybox=True):
        super().__init__()
        self.ground_plane = use_floor_plane


class InteractiveTraversableScene(_core.StandinTraversableScene):
    def __init__(self, scene_model, scene_instance=None, scene_file=None, trav_map_resolution=0.1, default_erosion_radius=0.0, trav_map_with_objects=True, num_waypoints=10, waypoint_resolution=0.2, load_object_categories=None, not_load_object_categories=None, load_room_types=None, load_room_instances=None, load_task_relevant_only=False, seg_map_resolution=0.1, include_robots=True):
        self._init(scene_model, load_room_instances, not_load_object_categories)


REGISTERED_SCENES = {"Scene": Scene, "InteractiveTraversableScene": InteractiveTraversableScene}
