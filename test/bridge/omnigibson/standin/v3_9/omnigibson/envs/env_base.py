"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf:
envs/env_base.py Environment.__init__(self, configs), _load_external_sensors (self._external_sensors = []; one dict per scene appended; pops position / orientation / pose_frame; create_sensor(**sc)), external_sensors ("a list of dicts (one per scene)"), scene (asserts a single scene)."""
import og_standin as _core
from omnigibson.objects import REGISTERED_OBJECTS
from omnigibson.scenes import REGISTERED_SCENES
from omnigibson.sensors import create_sensor


class Environment(_core.StandinEnvironment):
    def __init__(self, configs):
        self._init(configs, external_as_list=True, scene_classes=REGISTERED_SCENES, object_classes=REGISTERED_OBJECTS, create_sensor=create_sensor)
