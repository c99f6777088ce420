"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: sensors/__init__.py create_sensor(sensor_type, relative_prim_path, name, modalities="all", enabled=True, sensor_kwargs=None, noise_type=None, noise_kwargs=None)."""
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
