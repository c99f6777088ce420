"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: sensors/vision_sensor.py:117-130 (no horizontal_aperture argument; the property setters at :755-789), sensors/sensor_base.py:69-81 (get_obs: dict() when disabled, else (obs, info))."""
import og_standin as _core


class VisionSensor(_core.StandinVisionSensor):
    def __init__(self, relative_prim_path, name, modalities=["rgb"], enabled=True, noise=None, load_config=None, image_height=128, image_width=128, focal_length=17.0, clipping_range=(0.001, 10000000.0), viewport_name=None):
        self._init(relative_prim_path, name, modalities, enabled, image_height, image_width, focal_length, 20.955, viewport_name)  # USD default aperture: 1.1.1 has no argument for it
