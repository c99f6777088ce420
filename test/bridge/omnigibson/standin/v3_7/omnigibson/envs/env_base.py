"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...:
envs/env_base.py:43 (__init__), :321-352 (_load_external_sensors: pops position / orientation / pose_frame, create_sensor(**cfg)), :786-792 (external_sensors: a dict)."""
import og_standin as _core
from omnigibson.objects import REGISTERED_OBJECTS
from omnigibson.scenes import REGISTERED_SCENES
from omnigibson.sensors import create_sensor


class Environment(_core.StandinEnvironment):
    def __init__(self, configs, in_vec_env=False):
        self._init(configs, external_as_list=False, scene_classes=REGISTERED_SCENES, object_classes=REGISTERED_OBJECTS, create_sensor=create_sensor)
