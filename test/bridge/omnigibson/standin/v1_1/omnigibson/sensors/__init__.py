"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: sensors/__init__.py create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None)."""
from omnigibson.sensors.vision_sensor import VisionSensor
import og_standin as _core

SENSOR_PRIMS_TO_SENSOR_CLS = {"Camera": VisionSensor}
REGISTERED_SENSORS = {"VisionSensor": VisionSensor}


def create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None):
    return _core.create_sensor({**SENSOR_PRIMS_TO_SENSOR_CLS, **REGISTERED_SENSORS}, sensor_type, relative_prim_path, name, modalities, enabled, sensor_kwargs)
