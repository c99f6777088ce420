#!/usr/bin/env python3
"""
capture.py: capture a task in OmniGibson (1.1.1 or later: 3.7.x, 3.9.x) and stream it to `esi3d serve`
(docs/protocol.md).

    python3 capture.py TASK.json --paradigm single,gt,multi --server http://127.0.0.1:8080 [--token T]
    python3 capture.py TASK.json --paradigm active --episode '{"explorer": "nbv"}' --server URL

Tasks are esi3d task records with BEHAVIOR-1K scenes and models, in practice the ones `esi3d import esi-bench`
writes from ESI-Bench's released records. For each paradigm it opens a capture session, places a vision
sensor at each pose of the view set, reads RGB, linear depth and instance segmentation, converts them to
esi3d's conventions and uploads them view by view; then it finishes the session and prints the bundle ids
as JSON. Only then does it shut OmniGibson down (og.shutdown() ends the process).

`--paradigm active` serves an episode the server runs (docs/protocol.md "Active sessions"): it opens an
active session with `--episode` (the episode options of the protocol, e.g. {"arm": "3d", "source": "gt",
"explorer": "nbv", "maxSteps": 30}; the server checks them), uploads the view at the initial pose, then for
each action the server gives moves the agent with esi3d's motion model among the task's objects and the
scene's furniture (Capturer.step), renders the view there and uploads it with its pose and whether the move
was blocked, until the server says stop. It prints the episode's bundle id under "active" and its stop
reason and step count under "active_episode".

What changed against the first version of this file, each against OmniGibson's source
(checked against BEHAVIOR-1K's OmniGibson source; the stand-ins in test/bridge/omnigibson/standin/ cite file and commit):
- D1: the external sensor's pose keys are `position` / `orientation` / `pose_frame` (renamed from
  local_position / local_orientation in 1.1.1, commit b2b2fd652); create_sensor() takes no other keys;
- D2: env.external_sensors is a dict up to 3.8 and a list of per-scene dicts from 3.9;
- D3: objects are placed by their bounding-box centre (DatasetObject.set_bbox_center_position_orientation),
  or by their base link where the record stores only that (ESI-Bench's root-link origins); built-in-style
  tasks are sized with bounding_box = extent, imported ones with ESI's scale relative to the native model;
  the real boxes are read back (get_base_aligned_bbox) into the task the bundle records;
- D4: a bare BEHAVIOR model id takes the object's category;
- D5: og.shutdown() after the result is printed; on a failure the process exits with its own status;
- D6: gm.HEADLESS is set before the environment is built;
- D7: an imported task loads only its room (load_room_instances), without ceilings, carpet and walls (as
  ESI-Bench's generators load it), and the scene's furniture becomes obstacles of the agent's motion model;
- D8: poses are set and read in the scene frame;
- D9: render passes after a camera move: --render-passes (4, the count OmniGibson itself uses after camera
  parameter changes).

Imported tasks are rendered at ESI-Bench's camera poses (the candidate views' recorded quaternions) and
intrinsics (the task's image size and field of view: 1280 x 720 at 63.29 deg, 70 deg for Deformable).

THIS FILE WAS RUN ONLY AGAINST OUR STAND-INS of OmniGibson 1.1.1, 3.7.2 and 3.9.2 (test/bridge/omnigibson/standin/, see README.md
here), never against OmniGibson itself: Isaac Sim and the BEHAVIOR-1K assets are not available where esi3d is
built. Everything simulator-independent lives in esi3d_bridge.py and esi3d_agent.py.

Conventions (esi3d's docs/conventions.md):
- world Z up, metres: OmniGibson's world is Z up in metres too, so positions pass through unchanged;
- camera: a USD camera looks down its -Z with +Y up; esi3d's (OpenCV) camera has x right, y down, z forward;
  esi3d_bridge.usd_camera_quat / extrinsic_from_usd_pose convert explicitly (x stays, y and z flip);
- extrinsic: camera-from-world [R | t] from the pose the sensor reports back (not the requested one);
- depth: "depth_linear" is Isaac's distance_to_image_plane, i.e. z-depth, in metres; non-finite -> 0;
- intrinsics: fx = width * focal_length / horizontal_aperture (square pixels), principal point at the image
  centre, (W-1)/2 and (H-1)/2 in esi3d's pixel-centre convention;
- instance ids: objects are loaded with names "esi3d_<id>", so the sensor's instance labels map back to the
  task's ids (16+); a scene object a task names is mapped to its id too; floors map to 1 and walls to 2.
"""
import argparse
import copy
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from esi3d_agent import apply_action, initial_pose, paradigm_views  # noqa: E402
from og_hands import Hands, manipulation_of  # noqa: E402
from esi3d_bridge import ActiveView, Esi3dClient, extrinsic_from_usd_pose, png_gray16, png_rgb8, run_client, serve_episode, usd_camera_quat  # noqa: E402

SIMULATOR = "omnigibson"
CAMERA_NAME = "esi3d_camera"
OBJECT_PREFIX = "esi3d_"
FLOOR_ID = 1
WALL_ID = 2
# OmniGibson's VisionSensor default focal length (mm); the aperture is set from it for the task's field of view
FOCAL_LENGTH_MM = 17.0
# render passes after moving the camera before reading it: OmniGibson renders 4 times after camera parameter
# changes (sensors/vision_sensor.py) and 3 times after a reset (envs/env_base.py); Isaac's replicator lags
RENDER_PASSES = 4
# the sensor pose keys were renamed in 1.1.1 (commit b2b2fd652): earlier versions would pass them on to create_sensor
MIN_VERSION = (1, 1, 1)
# ESI-Bench's generators load the question's room without these (ESI-Bench's released records)
ESI_EXCLUDED_CATEGORIES = ["ceilings", "carpet", "walls"]
# scene categories that are not obstacles to the agent's body
NOT_OBSTACLES = ("floors", "ceilings", "carpet", "background", "groundPlane")
# the answer formats esi3d's pipeline (and the server's TaskSchema) takes
PIPELINE_FORMATS = ("yes_no", "choice", "integer", "ordering")
# a room without recorded walls: its height is its tallest loaded object, at least this (m)
MIN_ROOM_HEIGHT_M = 2.5
# a room without a recorded or loaded floor encloses the objects and the initial camera with this margin (m)
ROOM_MARGIN_M = 1.0
# the task's lighting field when the scene's own lights render it (the field is for esi3d's renderer only)
SCENE_LIGHTING = {"ambient": 1.0, "sun": None, "lights": []}


class TaskError(Exception):
    """The task cannot be captured (exit 2): names the field and the reason."""


def og_version(og):
    parts = str(getattr(og, "__version__", "0")).split(".")
    out = []
    for p in parts[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out + [0] * (3 - len(out)))


def is_imported(task):
    return (task.get("provenance") or {}).get("dataset") == "esi-bench"


def check_task(task):
    """Refuses what no OmniGibson capture can make into a pipeline task, before starting Isaac Sim."""
    if str(task.get("simulator", "")).startswith("esi3d-builtin"):
        raise TaskError("simulator: a built-in task uses esi3d's own primitive models (e.g. mug/0), which BEHAVIOR-1K does not have; capture imported ESI-Bench tasks (esi3d import esi-bench)")
    if task.get("agent_initial") is None:
        raise TaskError("agent_initial: the record stores no camera for the question")
    if task.get("answer_format") not in PIPELINE_FORMATS:
        raise TaskError(f"answer_format: {task.get('answer_format')} is not one esi3d's reasoners and scorer take ({', '.join(PIPELINE_FORMATS)}); the server refuses such tasks")
    for i, o in enumerate(task["objects"]):
        if not o.get("scene_object") and not o.get("model"):
            raise TaskError(f"objects[{i}].model: no model recorded")


def model_of(o):
    """(category, model) of a task object: '<category>/<model>' or a bare BEHAVIOR model id (D4)."""
    m = o["model"]
    if "/" in m:
        category, _, model = m.partition("/")
        return category or o["category"], model
    return o["category"], m


def scene_config(task):
    scene = task.get("scene", "")
    if not scene or scene.startswith("builtin"):
        return {"type": "Scene"}
    cfg = {"type": "InteractiveTraversableScene", "scene_model": scene}
    if is_imported(task):
        room = task["room"]["id"]
        if room != "full_scene":  # Cognitive Mapping records use the whole house
            cfg["load_room_instances"] = [room]
        cfg["not_load_object_categories"] = list(ESI_EXCLUDED_CATEGORIES)
    return cfg


def object_config(o, imported):
    category, model = model_of(o)
    cfg = {"type": "DatasetObject", "name": f"{OBJECT_PREFIX}{o['id']}", "category": category, "model": model, "fixed_base": True}
    if imported or o.get("extent") is None or o.get("extent_source") == "record_world_aabb":
        # ESI-Bench's scale is relative to the native BEHAVIOR model, as DatasetObject's is (D3)
        s = o["scale"]
        cfg["scale"] = list(s) if isinstance(s, list) else [s, s, s]
    else:
        # "scale this object such that it fits in the desired (x,y,z) object-aligned bounding box"
        cfg["bounding_box"] = list(o["extent"])
    return cfg


def camera_pose_of(pose):
    """(position, USD camera quaternion xyzw) of an agent pose; a candidate view keeps its recorded quaternion."""
    return list(pose.position), list(pose.quat) if pose.quat is not None else list(usd_camera_quat(pose.yaw, pose.pitch))


def sensor_config(task):
    cam = task["camera"]
    position, orientation = camera_pose_of(initial_pose(task))
    return {
        "sensor_type": "VisionSensor",
        "name": CAMERA_NAME,
        "relative_prim_path": f"/{CAMERA_NAME}",
        "modalities": ["rgb", "depth_linear", "seg_instance"],
        "sensor_kwargs": {"image_height": cam["height"], "image_width": cam["width"]},
        # D1: the keys the environment pops since 1.1.1 (earlier: local_position / local_orientation)
        "position": position,
        "orientation": orientation,
        "pose_frame": "scene",
    }


def env_config(task):
    """An OmniGibson environment config: the scene, the task's objects (placed after loading), the camera."""
    imported = is_imported(task)
    return {
        "scene": scene_config(task),
        "objects": [object_config(o, imported) for o in task["objects"] if not o.get("scene_object")],
        "robots": [],
        "env": {"external_sensors": [sensor_config(task)]},
    }


def external_camera(env):
    """D2: a dict of sensors up to 3.8, a list of per-scene dicts from 3.9."""
    es = env.external_sensors
    return (es[0] if isinstance(es, (list, tuple)) else es)[CAMERA_NAME]


def to_numpy(x):
    """OmniGibson 1.1+ returns torch tensors (earlier versions numpy arrays)."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return x


def floats(x):
    return [float(v) for v in to_numpy(x)]


def set_camera_fov(sensor, hfov_deg):
    sensor.focal_length = FOCAL_LENGTH_MM
    sensor.horizontal_aperture = 2 * FOCAL_LENGTH_MM * math.tan(math.radians(hfov_deg) / 2)


def intrinsics_of(sensor, width, height):
    f = width * float(sensor.focal_length) / float(sensor.horizontal_aperture)
    return {"fx": f, "fy": f, "cx": (width - 1) / 2, "cy": (height - 1) / 2}


class Capturer:
    """One task loaded in OmniGibson: renders views at poses and serves agent steps (the active paradigm)."""

    def __init__(self, og, task, render_passes=RENDER_PASSES, log=print):
        import torch as th
        from omnigibson.macros import gm

        if og_version(og) < MIN_VERSION:
            raise RuntimeError(f"OmniGibson {og.__version__}: this bridge needs {'.'.join(map(str, MIN_VERSION))} or later (the sensor pose keys were renamed then)")
        gm.HEADLESS = True  # D6: no viewport windows on a display-less GPU server
        self.og, self.th, self.task, self.passes, self.log = og, th, task, render_passes, log
        self.env = og.Environment(configs=env_config(task))
        self.scene = self.env.scene
        self.sensor = external_camera(self.env)
        self.width, self.height = task["camera"]["width"], task["camera"]["height"]
        set_camera_fov(self.sensor, task["camera"]["hfov_deg"])
        self.K = intrinsics_of(self.sensor, self.width, self.height)
        self.scene_ids = {}
        self.place_objects()
        self.resolved = self.resolve_task()
        self.furniture = self.scene_furniture()
        self.pose = initial_pose(self.resolved)
        # pixels per instance id in the last rendered view: the hands act on what the camera sees
        self.visible = {}
        self.hands = None

    def tensor(self, v):
        return self.th.tensor([float(x) for x in v], dtype=self.th.float32)

    def place_objects(self):
        """D3/D8: by box centre (or base link, when the record gives only that), in the scene frame (scene 0 is
        at the world origin, so the bbox-centre setter's world frame is the scene frame)."""
        for o in self.task["objects"]:
            if o.get("scene_object"):
                continue
            obj = self.scene.object_registry("name", f"{OBJECT_PREFIX}{o['id']}")
            q = o["orientation"]
            quat = self.tensor([q["x"], q["y"], q["z"], q["w"]])
            if o.get("position_frame") == "base_link":
                obj.set_position_orientation(position=self.tensor(o["position"]), orientation=quat, frame="scene")
            else:
                obj.set_bbox_center_position_orientation(position=self.tensor(o["position"]), orientation=quat)

    def find_scene_object(self, o):
        """The scene's own object a task names (ESI's scene_native reference): nearest of its category."""
        found = self.scene.object_registry("category", o["category"]) or set()
        if not found:
            raise TaskError(f"object {o['id']}: the scene has no {o['category']} (a scene object the task names)")
        p = o["position"]
        return min(found, key=lambda x: sum((a - b) ** 2 for a, b in zip(floats(x.aabb[0]), p)) + sum((a - b) ** 2 for a, b in zip(floats(x.aabb[1]), p)))

    def resolve_task(self):
        """The task as placed: every object's real box read back (D3), the room from the loaded floor."""
        t = copy.deepcopy(self.task)
        for o in t["objects"]:
            if o.get("scene_object"):
                obj = self.find_scene_object(o)
                self.scene_ids[obj.name] = o["id"]
                if getattr(obj, "model", None):
                    o["model"] = f"{obj.category}/{obj.model}"
            else:
                obj = self.scene.object_registry("name", f"{OBJECT_PREFIX}{o['id']}")
            centre, quat, extent, _ = obj.get_base_aligned_bbox(visual=True)
            q = floats(quat)
            o.update(position=floats(centre), orientation={"x": q[0], "y": q[1], "z": q[2], "w": q[3]}, extent=floats(extent), extent_source="capture")
            o.pop("position_frame", None)
            o.pop("scene_object", None)
        room = t["room"]
        floor = self.room_floor(room["id"])
        if not room.get("bounds"):
            if floor is not None:
                lo, hi = floats(floor.aabb[0]), floats(floor.aabb[1])
                room["bounds"] = {"min": lo[:2], "max": hi[:2]}
                room.setdefault("floor_z", hi[2])
            else:
                xs = [t["agent_initial"]["position"][0]] + [o["position"][0] + s * o["extent"][0] / 2 for o in t["objects"] for s in (-1, 1)]
                ys = [t["agent_initial"]["position"][1]] + [o["position"][1] + s * o["extent"][1] / 2 for o in t["objects"] for s in (-1, 1)]
                room["bounds"] = {"min": [min(xs) - ROOM_MARGIN_M, min(ys) - ROOM_MARGIN_M], "max": [max(xs) + ROOM_MARGIN_M, max(ys) + ROOM_MARGIN_M]}
        b = room["bounds"]
        room["size"] = [b["max"][0] - b["min"][0], b["max"][1] - b["min"][1]]
        if room.get("height") is None:
            tops = [floats(x.aabb[1])[2] for x in self.scene.objects if hasattr(x, "aabb")]
            room["height"] = max([MIN_ROOM_HEIGHT_M] + [top - room.get("floor_z", 0.0) for top in tops])
        if t.get("lighting") is None:
            t["lighting"] = dict(SCENE_LIGHTING)
        t["simulator"] = f"{SIMULATOR}/{getattr(self.og, '__version__', 'unknown')}"
        t.setdefault("label_metadata", {})["capture"] = {"lighting": "the scene's own lights", "room": "the loaded floor's AABB" if floor is not None else "objects and camera with a margin", "extents": "read back from the loaded models (get_base_aligned_bbox)"}
        return t

    def room_floor(self, room_id):
        floors = [o for o in (self.scene.object_registry("category", "floors") or set()) if room_id in (getattr(o, "in_rooms", None) or [])]
        return floors[0] if floors else None

    def scene_furniture(self):
        """D7: the scene's own objects as footprints the agent's body cannot enter."""
        ours = {f"{OBJECT_PREFIX}{o['id']}" for o in self.task["objects"]} | set(self.scene_ids)
        out = []
        for x in self.scene.objects:
            if x.name in ours or x.category in NOT_OBSTACLES or not hasattr(x, "aabb"):
                continue
            lo, hi = floats(x.aabb[0]), floats(x.aabb[1])
            out.append({"centre": ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2), "half_x": (hi[0] - lo[0]) / 2, "half_y": (hi[1] - lo[1]) / 2, "yaw": 0.0, "name": x.name})
        return out

    def instance_table(self):
        table = [{"id": FLOOR_ID, "category": "floor", "structure": True}, {"id": WALL_ID, "category": "wall", "structure": True}]
        table += [{"id": o["id"], "category": o["category"], "structure": False} for o in self.resolved["objects"]]
        return sorted(table, key=lambda e: e["id"])

    def label_to_id(self, label):
        name = str(label)
        if name in self.scene_ids:
            return self.scene_ids[name]
        return label_to_id(name)

    def render(self, pose):
        """(rgb PNG, depth float32 LE, id PNG, extrinsic) at a pose (D8: scene frame)."""
        import numpy as np

        position, quat = camera_pose_of(pose)
        self.sensor.set_position_orientation(position=position, orientation=quat, frame="scene")
        for _ in range(self.passes):
            self.og.sim.render()
        res = self.sensor.get_obs()
        obs, info = res if isinstance(res, tuple) else (res, {})
        rgb = to_numpy(obs["rgb"])[:, :, :3].astype(np.uint8)
        depth = to_numpy(obs["depth_linear"]).astype(np.float32)
        depth = np.where(np.isfinite(depth) & (depth > 0), depth, 0).astype("<f4")
        seg = to_numpy(obs["seg_instance"]).astype(np.int64)
        labels = info.get("seg_instance", {}) if isinstance(info, dict) else {}
        ids = np.zeros(seg.shape, dtype=np.uint16)
        for raw_id, label in labels.items():
            ids[seg == int(raw_id)] = self.label_to_id(label)
        found, counts = np.unique(ids, return_counts=True)
        self.visible = {int(i): int(c) for i, c in zip(found, counts) if i != 0}
        pos, q = self.sensor.get_position_orientation(frame="scene")
        extrinsic = extrinsic_from_usd_pose(floats(pos), floats(q))
        return png_rgb8(self.width, self.height, rgb.tobytes()), depth.tobytes(), png_gray16(self.width, self.height, ids.ravel().tolist()), extrinsic

    def views(self, paradigm):
        return paradigm_views(self.resolved, paradigm, self.furniture)

    def step(self, action):
        """The active paradigm's hook for a camera move: the agent's next pose (None when blocked), as esi3d's
        motion model moves it among the task's objects and the scene's furniture; render() it to see it. A held
        object travels with the camera."""
        from esi3d_agent import World

        held = self.hands.held if self.hands else None
        nxt = apply_action(World(self.without(held), self.furniture), self.pose, action)
        if nxt is not None:
            self.pose = nxt
            if self.hands:
                self.hands.carry(self.pose)
        return nxt

    def without(self, oid):
        """The task without one object (a held object is no obstacle to the body)."""
        if oid is None:
            return self.resolved
        return {**self.resolved, "objects": [o for o in self.resolved["objects"] if o["id"] != oid]}

    def act(self, action, objects):
        """The active paradigm's hook for a manipulation (og_hands.py): (action_result, acted_on ids or None)
        for the objects the server sent beside the action, resolved among those the last view showed."""
        if self.hands is None:
            from omnigibson import object_states

            by_id = {}
            for o in self.resolved["objects"]:
                name = next((n for n, i in self.scene_ids.items() if i == o["id"]), f"{OBJECT_PREFIX}{o['id']}")
                by_id[o["id"]] = (o, self.scene.object_registry("name", name))
            self.hands = Hands(self.og, object_states, by_id, log=self.log)
        result, acted_on = self.hands.apply(action, objects, self.pose, self.visible)
        for oid in acted_on or []:
            self.read_back(oid)
        return result, acted_on

    def read_back(self, oid):
        """An object the hands moved: its box read back into the resolved task, where the motion model finds its obstacles."""
        o = next(x for x in self.resolved["objects"] if x["id"] == oid)
        centre, quat, extent, _ = self.hands.objects[oid][1].get_base_aligned_bbox(visual=True)
        q = floats(quat)
        o.update(position=floats(centre), orientation={"x": q[0], "y": q[1], "z": q[2], "w": q[3]}, extent=floats(extent))


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


# the view sets capture.py renders itself; `active` is served step by step for the server's agent
PASSIVE_PARADIGMS = ("single", "gt", "multi")
PARADIGMS = PASSIVE_PARADIGMS + ("active",)


def pose_json(pose):
    return {"position": [float(x) for x in pose.position], "yaw": float(pose.yaw), "pitch": float(pose.pitch)}


# the manipulations that move the object they act on (the first); open and close swing a part of it, its base stays
MOVING_MANIPULATIONS = ("pick_up", "put_on", "put_inside", "put_back")


def moved_of(resolved, oid):
    """An object the hands moved, where the resolved task now has it (read back: its box centre and orientation),
    as an entry of the view header's `moved` (the server's diagnosis judges the graph against it)."""
    o = next(x for x in resolved["objects"] if x["id"] == oid)
    return {"id": oid, "position": o["position"], "orientation": o["orientation"]}


def capture_active(c, client, episode, log=print):
    """Serves one active episode: the server's agent chooses, Capturer.step moves, render() shows."""
    s = client.open_session(paradigm="active", simulator=c.resolved["simulator"], task=c.resolved, image={"width": c.width, "height": c.height}, instances=c.instance_table(), episode=episode)

    def observe(blocked, result=None, acted_on=None, moved=None):
        rgb_png, depth, inst_png, extrinsic = c.render(c.pose)
        return ActiveView(c.K, extrinsic, pose_json(c.pose), blocked, rgb_png, depth, inst_png, action_result=result, acted_on=acted_on, moved=moved)

    def step(action, objects):
        m = manipulation_of(action)
        if m is not None:
            result, acted_on = c.act(action, objects)
            moved = [moved_of(c.resolved, acted_on[0])] if result == "ok" and m[0] in MOVING_MANIPULATIONS else None
            return observe(result != "ok", result, acted_on, moved)
        # a camera move's result is the server's default ("ok", or "blocked" when blocked); a held object travels with it
        held = c.hands.held if c.hands else None
        blocked = c.step(action) is None
        if held is None or blocked:
            return observe(blocked)
        c.read_back(held)
        return observe(False, moved=[moved_of(c.resolved, held)])

    return serve_episode(client, s["id"], lambda: observe(False), step, log=log)


def capture(og, task, paradigms, client, render_passes=RENDER_PASSES, log=print, episode=None):
    c = Capturer(og, task, render_passes=render_passes, log=log)
    plans = {}
    for paradigm in [p for p in paradigms if p != "active"]:  # every view set first: nothing is uploaded for a task that cannot be captured
        try:
            plans[paradigm] = c.views(paradigm)
        except ValueError as e:
            raise TaskError(f"--paradigm {paradigm}: {e}") from None
    bundles = {}
    for paradigm, views in plans.items():
        s = client.open_session(paradigm=paradigm, simulator=c.resolved["simulator"], task=c.resolved, image={"width": c.width, "height": c.height}, instances=c.instance_table())
        for n, (pose, action) in enumerate(views):
            rgb_png, depth, inst_png, extrinsic = c.render(pose)
            client.upload_view(s["id"], n, c.K, extrinsic, action, rgb_png, depth, inst_png)
            log(f"{task['task_id']} {paradigm}: view {n + 1}/{len(views)}")
        bundles[paradigm] = client.finish(s["id"], views=len(views))["bundle"]
        log(f"{task['task_id']} {paradigm}: bundle {bundles[paradigm]}")
    if "active" in paradigms:
        out = capture_active(c, client, episode or {}, log=log)
        bundles["active"] = out["bundle"]
        bundles["active_episode"] = {
            "session": out["session"],
            "stop_reason": out["stop_reason"],
            "views": out["views"],
            "actions": [a for a, _ in out["actions"]],
            "blocked": [b for _, b in out["actions"]],
            "action_results": out["results"],
        }
        log(f"{task['task_id']} active: bundle {out['bundle']} ({out['views']} views, {out['stop_reason']})")
    return bundles


def shutdown(og, rc):
    """D5: og.shutdown() ends the process with status 0 (Kit's fast shutdown, or exit(0) without an app), so
    it runs only after the result is printed, and a failure exits with its own status instead."""
    sys.stdout.flush()
    sys.stderr.flush()
    if og is None:
        return rc
    if rc != 0:
        os._exit(rc)
    og.shutdown()
    return rc


def main(argv=None):
    p = argparse.ArgumentParser(description="capture a task in OmniGibson and stream it to esi3d serve")
    p.add_argument("task", help="task record (JSON, esi3d-task/1), e.g. from esi3d import esi-bench")
    p.add_argument("--paradigm", default="single,gt,multi", help="comma-separated view sets: single, gt, multi; active (the server's agent chooses the views)")
    p.add_argument("--episode", default="{}", help='active: the episode options as JSON (docs/protocol.md "Active sessions"), e.g. \'{"explorer": "random", "maxSteps": 10}\'')
    p.add_argument("--server", default="http://127.0.0.1:8080")
    p.add_argument("--token", help="bearer token (default $ESI3D_TOKEN)")
    p.add_argument("--render-passes", type=int, default=RENDER_PASSES, help=f"renders after each camera move before reading it (default {RENDER_PASSES})")
    a = p.parse_args(argv)
    err = lambda line: print(line, file=sys.stderr)  # noqa: E731
    try:
        with open(a.task, "r", encoding="utf-8") as f:
            task = json.load(f)
        check_task(task)
    except (OSError, ValueError) as e:
        err(f"capture: {a.task}: cannot read the task record (expected esi3d-task/1 JSON): {e}")
        return 2
    except (TaskError, KeyError) as e:
        err(f"capture: {a.task}: {e}")
        return 2
    paradigms = [x.strip() for x in a.paradigm.split(",") if x.strip()]
    for x in paradigms:
        if x not in PARADIGMS:
            err(f"capture: --paradigm: {x} is not one of {', '.join(PARADIGMS)}")
            return 2
    try:
        episode = json.loads(a.episode)
        if not isinstance(episode, dict):
            raise ValueError(f"expected a JSON object, got {type(episode).__name__}")
    except ValueError as e:
        err(f"capture: --episode: {e} (the episode options of docs/protocol.md, a JSON object)")
        return 2
    try:
        import omnigibson as og
    except ImportError as e:
        err(f"capture: OmniGibson is not importable ({e}); run this script with OmniGibson's Python (see README.md here)")
        return 1
    client = Esi3dClient(a.server, token=a.token, log=err)
    try:
        rc = run_client("capture", lambda: capture(og, task, paradigms, client, render_passes=a.render_passes, log=err, episode=episode))
    except TaskError as e:
        err(f"capture: {a.task}: {e}")
        rc = 2
    except Exception as e:  # noqa: BLE001 (a simulator failure: report it, then exit with its status)
        err(f"capture: {type(e).__name__}: {e}")
        rc = 1
    return shutdown(og, rc)


if __name__ == "__main__":
    sys.exit(main())
