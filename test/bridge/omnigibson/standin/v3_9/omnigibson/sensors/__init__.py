"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf: sensors/__init__.py create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None)."""
from omnigibson.sensors.vision_sensor import VisionSensor
import og_standin as _core

SENSOR_PRIMS_TO_SENSOR_CLS = {"Camera": VisionSensor}
REGISTERED_SENSORS = {"VisionSensor": VisionSensor}


def create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None):
    return _core.create_sensor({**SENSOR_PRIMS_TO_SENSOR_CLS, **REGISTERED_SENSORS}, sensor_type, relative_prim_path, name, modalities, enabled, sensor_kwargs)
