"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...:
envs/env_base.py:43 (__init__), :320-350 (_load_external_sensors: pops position / orientation / pose_frame, create_sensor(**cfg)), :763-769 (external_sensors: a dict)."""
import og_standin as _core
from omnigibson.objects import REGISTERED_OBJECTS
from omnigibson.scenes import REGISTERED_SCENES
from omnigibson.sensors import create_sensor


class Environment(_core.StandinEnvironment):
    def __init__(self, configs, in_vec_env=False):
        self._init(configs, external_as_list=False, scene_classes=REGISTERED_SCENES, object_classes=REGISTERED_OBJECTS, create_sensor=create_sensor)
