"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf: sensors/vision_sensor.py VisionSensor.__init__ (focal_length, focus_distance, fstop, horizontal_aperture=20.995, ...), _post_load (a viewport unless gm.HEADLESS), _get_obs."""
import og_standin as _core


class VisionSensor(_core.StandinVisionSensor):
    def __init__(self, relative_prim_path, name, modalities=["rgb"], enabled=True, noise=None, load_config=None, image_height=128, image_width=128, focal_length=17.0, focus_distance=0.0, fstop=0.0, horizontal_aperture=20.995, clipping_range=(0.001, 10000000.0), viewport_name=None):
        self._init(relative_prim_path, name, modalities, enabled, image_height, image_width, focal_length, horizontal_aperture, viewport_name)
