"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: sensors/__init__.py create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None)."""
from omnigibson.sensors.vision_sensor import VisionSensor
import og_standin as _core

SENSOR_PRIMS_TO_SENSOR_CLS = {"Camera": VisionSensor}
REGISTERED_SENSORS = {"VisionSensor": VisionSensor}


def create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None):
    return _core.create_sensor({**SENSOR_PRIMS_TO_SENSOR_CLS, **REGISTERED_SENSORS}, sensor_type, relative_prim_path, name, modalities, enabled, sensor_kwargs)
