"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: sensors/vision_sensor.py:119-135 (__init__ with focal_length and horizontal_aperture), :798-823 (property setters); sensors/sensor_base.py:71-85 (get_obs)."""
import og_standin as _core


class VisionSensor(_core.StandinVisionSensor):
    def __init__(self, relative_prim_path, name, modalities=["rgb"], enabled=True, noise=None, load_config=None, image_height=128, image_width=128, focal_length=17.0, focus_distance=0.0, fstop=0.0, horizontal_aperture=20.995, clipping_range=(0.001, 10000000.0), viewport_name=None):
        self._init(relative_prim_path, name, modalities, enabled, image_height, image_width, focal_length, horizontal_aperture, viewport_name)
