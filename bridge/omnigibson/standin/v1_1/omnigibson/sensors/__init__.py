"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: sensors/__init__.py create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None)."""
from omnigibson.sensors.vision_sensor import VisionSensor

SENSOR_PRIMS_TO_SENSOR_CLS = {"Camera": VisionSensor}
REGISTERED_SENSORS = {"VisionSensor": VisionSensor}


def create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None):
    assert isinstance(sensor_type, str), "Inputted sensor_type must be a string!"
    if sensor_type in SENSOR_PRIMS_TO_SENSOR_CLS:
        cls = SENSOR_PRIMS_TO_SENSOR_CLS[sensor_type]
    elif sensor_type in REGISTERED_SENSORS:
        cls = REGISTERED_SENSORS[sensor_type]
    else:
        raise ValueError(f"No sensor found with corresponding sensor_type: {sensor_type}")
    sensor_kwargs = dict() if sensor_kwargs is None else sensor_kwargs
    return cls(relative_prim_path=relative_prim_path, name=name, modalities=modalities, enabled=enabled, noise=None, **sensor_kwargs)
