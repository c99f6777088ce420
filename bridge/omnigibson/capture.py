#!/usr/bin/env python3
"""
capture.py: capture an ESI-Bench task in OmniGibson and stream it to `esi3d serve` (docs/protocol.md).

    python3 capture.py TASK.json --paradigm single,multi,gt --server http://127.0.0.1:8080 [--token T]

For each paradigm it opens a capture session, places a vision sensor at each pose of the view set (the
same poses as esi3d's built-in simulator: esi3d_agent.py mirrors bridge/sim/agent.ts and views.ts), reads
RGB, linear depth and instance segmentation, converts them to esi3d's conventions and uploads them view by
view; then it finishes the session and prints the bundle id.

THIS FILE WAS NOT RUN: OmniGibson (Isaac Sim, an NVIDIA RTX GPU) is not available where esi3d is built.
It is written against OmniGibson's documented API (Environment configs with "objects" and
"env.external_sensors", VisionSensor modalities "rgb", "depth_linear", "seg_instance", get_obs() returning
(obs, info), set_position_orientation(position, orientation)); everything simulator-independent lives in
esi3d_bridge.py and esi3d_agent.py, which are tested against the server and the TypeScript code. See
README.md in this folder for what was and was not run.

Conventions (README "Conventions" of esi3d):
- world Z up, metres: OmniGibson's world is Z up in metres too, so positions pass through unchanged;
- camera: a USD camera looks down its -Z with +Y up; esi3d's (OpenCV) camera has x right, y down,
  z forward. esi3d_bridge.usd_camera_quat / extrinsic_from_usd_pose convert explicitly (x stays, y and z flip);
- extrinsic: camera-from-world [R | t], computed from the pose the sensor reports back (not the requested
  one), so any rounding in the simulator is what the bundle records;
- depth: "depth_linear" is Isaac's distance_to_image_plane, i.e. z-depth, in metres; non-finite -> 0;
- intrinsics: fx = width * focal_length / horizontal_aperture (square pixels), principal point at the image
  centre, (W-1)/2 and (H-1)/2 in esi3d's pixel-centre convention;
- instance ids: objects are loaded with names "esi3d_<id>", so the sensor's instance labels map back to the
  task's ids (16+); floors map to 1 and walls to 2, as in ESI-Bench tasks; anything else is 0 (no label).
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from esi3d_agent import paradigm_views  # noqa: E402
from esi3d_bridge import Esi3dClient, depth_f32le, extrinsic_from_usd_pose, png_gray16, png_rgb8, run_client, usd_camera_quat  # noqa: E402

SIMULATOR = "omnigibson"
CAMERA_NAME = "esi3d_camera"
OBJECT_PREFIX = "esi3d_"
FLOOR_ID = 1
WALL_ID = 2
# Isaac's default focal length (mm); the aperture is set from it to give the task's horizontal field of view
FOCAL_LENGTH_MM = 17.0
# render passes after moving the camera before reading it (Isaac's replicator lags a frame or two)
RENDER_PASSES = 3


def to_numpy(x):
    """OmniGibson 1.x returns torch tensors, earlier versions numpy arrays."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return x


def env_config(task):
    """An OmniGibson environment config for a task: its scene (or an empty one) and its objects."""
    scene = task.get("scene", "")
    # ESI-Bench scenes are OmniGibson scene models (e.g. "Rs_int"); built-in esi3d tasks name none of them
    scene_cfg = {"type": "InteractiveTraversableScene", "scene_model": scene} if scene and not scene.startswith("builtin") else {"type": "Scene"}
    objects = []
    for o in task["objects"]:
        category, _, model = o["model"].partition("/")
        q = o["orientation"]
        scale = o["scale"] if isinstance(o["scale"], list) else [o["scale"]] * 3
        objects.append({
            "type": "DatasetObject",
            "name": f"{OBJECT_PREFIX}{o['id']}",
            "category": category or o["category"],
            "model": model,
            "scale": scale,
            "fixed_base": True,  # capture renders a static scene; nothing should fall or settle
            # esi3d positions are box centres; a DatasetObject's origin is its base link (close to the box
            # centre for most BEHAVIOR models): a known approximation, see README.md
            "position": list(o["position"]),
            "orientation": [q["x"], q["y"], q["z"], q["w"]],
        })
    cam = task["camera"]
    return {
        "scene": scene_cfg,
        "objects": objects,
        "robots": [],
        "env": {
            "external_sensors": [{
                "sensor_type": "VisionSensor",
                "name": CAMERA_NAME,
                "relative_prim_path": f"/{CAMERA_NAME}",
                "modalities": ["rgb", "depth_linear", "seg_instance"],
                "sensor_kwargs": {"image_height": cam["height"], "image_width": cam["width"]},
                "local_position": list(task["agent_initial"]["position"]),
                "local_orientation": list(usd_camera_quat(task["agent_initial"]["yaw"], task["agent_initial"]["pitch"])),
            }],
        },
    }


def instance_table(task):
    """The id -> category table sent with the session: floor, wall, and the task's objects."""
    table = [{"id": FLOOR_ID, "category": "floor", "structure": True}, {"id": WALL_ID, "category": "wall", "structure": True}]
    table += [{"id": o["id"], "category": o["category"], "structure": False} for o in task["objects"]]
    return sorted(table, key=lambda e: e["id"])


def label_to_id(label):
    """esi3d id of an instance label (object name) reported by OmniGibson's seg_instance."""
    name = str(label)
    if name.startswith(OBJECT_PREFIX) and name[len(OBJECT_PREFIX):].isdigit():
        return int(name[len(OBJECT_PREFIX):])
    if name.startswith("floors") or name == "groundPlane":
        return FLOOR_ID
    if name.startswith("walls"):
        return WALL_ID
    return 0


def set_camera_fov(sensor, width, hfov_deg):
    sensor.focal_length = FOCAL_LENGTH_MM
    sensor.horizontal_aperture = 2 * FOCAL_LENGTH_MM * math.tan(math.radians(hfov_deg) / 2)


def intrinsics_of(sensor, width, height):
    f = width * float(sensor.focal_length) / float(sensor.horizontal_aperture)
    return {"fx": f, "fy": f, "cx": (width - 1) / 2, "cy": (height - 1) / 2}


def read_view(og, sensor, width, height):
    """(rgb bytes, depth float32 LE bytes, id PNG, extrinsic) of the sensor's current view."""
    import numpy as np

    for _ in range(RENDER_PASSES):
        og.sim.render()
    res = sensor.get_obs()
    obs, info = res if isinstance(res, tuple) else (res, {})
    rgb = to_numpy(obs["rgb"])[:, :, :3].astype(np.uint8)
    depth = to_numpy(obs["depth_linear"]).astype(np.float32)
    depth = np.where(np.isfinite(depth) & (depth > 0), depth, 0).astype("<f4")
    seg = to_numpy(obs["seg_instance"]).astype(np.int64)
    labels = info.get("seg_instance", {}) if isinstance(info, dict) else {}
    ids = np.zeros(seg.shape, dtype=np.uint16)
    for raw_id, label in labels.items():
        ids[seg == int(raw_id)] = label_to_id(label)
    pos, quat = sensor.get_position_orientation()
    extrinsic = extrinsic_from_usd_pose([float(v) for v in to_numpy(pos)], [float(v) for v in to_numpy(quat)])
    return png_rgb8(width, height, rgb.tobytes()), depth.tobytes(), png_gray16(width, height, ids.ravel().tolist()), extrinsic


def capture(task, paradigms, client, log=print):
    import omnigibson as og  # noqa: F401 (imported here so the rest of this file loads without OmniGibson)

    env = og.Environment(configs=env_config(task))
    sensor = env.external_sensors[CAMERA_NAME]
    width, height = task["camera"]["width"], task["camera"]["height"]
    set_camera_fov(sensor, width, task["camera"]["hfov_deg"])
    K = intrinsics_of(sensor, width, height)
    bundles = {}
    for paradigm in paradigms:
        views = paradigm_views(task, paradigm)
        s = client.open_session(paradigm=paradigm, simulator=f"{SIMULATOR}/{getattr(og, '__version__', 'unknown')}", task=task, image={"width": width, "height": height}, instances=instance_table(task))
        for n, (pose, action) in enumerate(views):
            sensor.set_position_orientation(position=list(pose.position), orientation=list(usd_camera_quat(pose.yaw, pose.pitch)))
            rgb_png, depth, inst_png, extrinsic = read_view(og, sensor, width, height)
            client.upload_view(s["id"], n, K, extrinsic, action, rgb_png, depth, inst_png)
            log(f"{task['task_id']} {paradigm}: view {n + 1}/{len(views)}")
        bundles[paradigm] = client.finish(s["id"], views=len(views))["bundle"]
        log(f"{task['task_id']} {paradigm}: bundle {bundles[paradigm]}")
    og.shutdown()
    return bundles


def main(argv=None):
    p = argparse.ArgumentParser(description="capture an ESI-Bench task in OmniGibson and stream it to esi3d serve")
    p.add_argument("task", help="task record (JSON, esi3d-task/1)")
    p.add_argument("--paradigm", default="single,multi,gt", help="comma-separated view sets: single, multi, gt")
    p.add_argument("--server", default="http://127.0.0.1:8080")
    p.add_argument("--token", help="bearer token (default $ESI3D_TOKEN)")
    a = p.parse_args(argv)
    try:
        with open(a.task, "r", encoding="utf-8") as f:
            task = json.load(f)
    except (OSError, ValueError) as e:
        print(f"capture: {a.task}: cannot read the task record (expected esi3d-task/1 JSON): {e}", file=sys.stderr)
        return 2
    try:
        import omnigibson  # noqa: F401 (capture() uses it; checked here for a clear message)
    except ImportError as e:
        print(f"capture: OmniGibson is not importable ({e}); run this script with OmniGibson's Python (see README.md here)", file=sys.stderr)
        return 1
    paradigms = [x.strip() for x in a.paradigm.split(",") if x.strip()]
    client = Esi3dClient(a.server, token=a.token, log=lambda line: print(line, file=sys.stderr))
    return run_client("capture", lambda: capture(task, paradigms, client, log=lambda line: print(line, file=sys.stderr)))


if __name__ == "__main__":
    sys.exit(main())
