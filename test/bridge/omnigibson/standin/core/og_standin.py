"""
Shared machinery of our OmniGibson stand-ins (test/bridge/omnigibson/standin/<version>/omnigibson): written by us,
no upstream code. Each version's package reproduces the signatures and return shapes of the calls
bridge/omnigibson/capture.py makes, as read in upstream's source at that version (each module says which file
and commit), and delegates the behaviour to this module:

- an object registry and scenes (an empty Scene with a ground plane; an InteractiveTraversableScene whose
  furniture comes from a stand-in asset file, filtered by load_room_instances / not_load_object_categories);
- DatasetObject geometry: a native bounding box and a base-link offset per model (BEHAVIOR's ig:nativeBB and
  ig:offsetBaseLink), a scale relative to the native model, poses of the base link, and the bbox-centre setter;
- a VisionSensor that ray-casts the objects' boxes when og.sim.render() runs (like Isaac's replicator, a
  sensor's observation is its last rendered frame) and returns (obs, info) with torch tensors;
- og.shutdown(), which ends the process as Kit's fast shutdown does.

Models and scene furniture come from the JSON file named by $ESI3D_OG_STANDIN_ASSETS:
    {"objects": {"<category>/<model>": {"native_bbox": [x, y, z], "base_link_offset": [x, y, z]}},
     "scenes": {"<scene_model>": [{"name", "category", "aabb": [[min], [max]], "in_rooms": [...]}]}}
"""
import inspect
import json
import math
import os

import numpy as np
import torch as th

ASSETS_ENV = "ESI3D_OG_STANDIN_ASSETS"
_ASSETS = None


def assets():
    global _ASSETS
    if _ASSETS is None:
        path = os.environ.get(ASSETS_ENV)
        _ASSETS = {"objects": {}, "scenes": {}}
        if path:
            with open(path, "r", encoding="utf-8") as f:
                _ASSETS.update(json.load(f))
    return _ASSETS


# ------------------------------------------------------------------------------------ quaternions (x, y, z, w)


def quat2mat(q):
    """Upstream's transform_utils.quat2mat takes a torch tensor: a list has no .to() and fails the same way."""
    q = q.to(dtype=th.float64).reshape(4)
    q = q / th.norm(q)
    x, y, z, w = [float(v) for v in q]
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


class Pose:
    """XFormPrim's pose semantics: set/get_position_orientation(position, orientation, frame) with frame in
    world / parent / scene; lists are accepted (th.as_tensor), the orientation must be a unit quaternion."""

    def __init__(self):
        self._pos = th.zeros(3, dtype=th.float32)
        self._quat = th.tensor([0, 0, 0, 1], dtype=th.float32)
        self.scene = None

    def set_position_orientation(self, position=None, orientation=None, frame="world"):
        assert frame in ["world", "parent", "scene"], f"Invalid frame '{frame}'. Must be 'world', 'parent', or 'scene'."
        if position is None or orientation is None:
            cp, cq = self.get_position_orientation(frame=frame)
            position = cp if position is None else position
            orientation = cq if orientation is None else orientation
        position = th.as_tensor(position, dtype=th.float32)
        orientation = th.as_tensor(orientation, dtype=th.float32)
        if frame == "scene":
            assert self.scene is not None, "cannot set position and orientation relative to scene without a scene"
            position = position + self.scene.origin
        assert math.isclose(th.norm(orientation).item(), 1, abs_tol=1e-3), f"desired orientation {orientation} is not a unit quaternion."
        self._pos, self._quat = position.clone(), orientation.clone()
        self._moved()

    def get_position_orientation(self, frame="world", clone=True):
        assert frame in ["world", "parent", "scene"], f"Invalid frame '{frame}'. Must be 'world', 'parent', or 'scene'."
        if frame == "scene":
            assert self.scene is not None, "Cannot get position and orientation relative to scene without a scene"
            return self._pos - self.scene.origin, self._quat.clone()
        return self._pos.clone(), self._quat.clone()

    def _moved(self):
        pass


# ------------------------------------------------------------------------------------ registry and scenes


class Registry:
    """scene.object_registry(key, value, default_val=None): the object for unique keys (name, prim_path),
    the set of objects for group keys (category, in_rooms, fixed_base)."""

    UNIQUE = ("name", "prim_path")
    GROUP = ("category", "fixed_base", "in_rooms")

    def __init__(self):
        self.objects = []

    def __call__(self, key, value, default_val=None):
        assert key in self.UNIQUE + self.GROUP, f"Invalid key requested! Valid options are: {self.UNIQUE + self.GROUP}, got: {key}"
        if key in self.UNIQUE:
            return next((o for o in self.objects if getattr(o, key) == value), default_val)
        if key == "in_rooms":
            hits = {o for o in self.objects if value in (o.in_rooms or [])}
        else:
            hits = {o for o in self.objects if getattr(o, key) == value}
        return hits if hits else default_val


class StandinScene:
    def __init__(self):
        self._registry = Registry()
        # bumped whenever an object moves (the sensor's frame cache depends on it)
        self.version = 0
        self.origin = th.zeros(3, dtype=th.float32)  # scene 0 sits at the world origin

    @property
    def object_registry(self):
        return self._registry

    @property
    def objects(self):
        return list(self._registry.objects)

    @property
    def robots(self):
        return []

    def add_object(self, obj):
        assert obj.name not in [o.name for o in self._registry.objects], f"Object with name {obj.name} already exists in scene!"
        obj.scene = self
        obj.load()
        self._registry.objects.append(obj)

    def _add_furniture(self, scene_model, rooms, excluded):
        for spec in assets()["scenes"].get(scene_model, []):
            if spec["category"] in (excluded or []):
                continue
            if rooms and not set(spec.get("in_rooms", [])) & set(rooms):
                continue
            self.add_object(SceneFurniture(spec))


class SceneFurniture(Pose):
    """A scene object from the stand-in scene file: an unrotated box with its base link at the box centre."""

    def __init__(self, spec):
        super().__init__()
        self.name = spec["name"]
        self.prim_path = f"/World/scene_0/{self.name}"
        self.category = spec["category"]
        self.model = spec.get("model")
        self.fixed_base = True
        self.in_rooms = spec.get("in_rooms", [])
        lo, hi = np.array(spec["aabb"][0], float), np.array(spec["aabb"][1], float)
        self._pos = th.tensor((lo + hi) / 2, dtype=th.float32)
        self._half = (hi - lo) / 2

    def load(self):
        pass

    @property
    def aabb(self):
        c = self._pos.numpy().astype(float)
        return th.tensor(c - self._half, dtype=th.float32), th.tensor(c + self._half, dtype=th.float32)

    def box(self):
        return self._pos.numpy().astype(float), np.eye(3), self._half

    def get_base_aligned_bbox(self, link_name=None, visual=False, xy_aligned=False):
        return self._pos.clone(), self._quat.clone(), th.tensor(2 * self._half, dtype=th.float32), th.zeros(3)


def filter_kwargs(cls, cfg):
    """Like upstream's create_class_from_registry_and_config: only the constructor's own keyword arguments pass."""
    params = inspect.signature(cls.__init__).parameters
    names = {n for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and n != "self"}
    return {k: v for k, v in cfg.items() if k in names}


# ------------------------------------------------------------------------------------ dataset objects


class StandinDatasetObject(Pose):
    def _init(self, name, category, model, scale, bounding_box, fixed_base, in_rooms, relative_prim_path):
        if bounding_box is not None and scale is not None:
            raise Exception("You cannot define both scale and bounding box size for an DatasetObject")
        key = f"{category}/{model}"
        spec = assets()["objects"].get(key)
        if spec is None:
            # upstream loads {dataset}/objects/{category}/{model}/usd/{model}.usd and fails when it is not there
            raise FileNotFoundError(f"stand-in: no USD for {key} (objects/{category}/{model}/usd/{model}.usd)")
        super().__init__()
        self.name = name
        self.prim_path = f"/World/scene_0/{relative_prim_path or '/' + name}".replace("//", "/")
        self.category = category
        self._model = model
        self.fixed_base = fixed_base
        self.in_rooms = [in_rooms] if isinstance(in_rooms, str) else in_rooms
        self._native = th.tensor(spec["native_bbox"], dtype=th.float32)
        self._offset = th.tensor(spec.get("base_link_offset", [0, 0, 0]), dtype=th.float32)
        if bounding_box is not None:
            self._scale = th.as_tensor(bounding_box, dtype=th.float32) / self._native
        elif scale is not None:
            s = th.as_tensor(scale, dtype=th.float32)
            self._scale = s.repeat(3) if s.numel() == 1 else s.reshape(3)
        else:
            self._scale = th.ones(3)

    def load(self):
        pass

    def _moved(self):
        if self.scene is not None:
            self.scene.version += 1

    @property
    def model(self):
        return self._model

    @property
    def scale(self):
        return self._scale.clone()

    @property
    def native_bbox(self):
        return self._native.clone()

    @property
    def base_link_offset(self):
        return self._offset.clone()

    @property
    def scaled_bbox_center_in_base_frame(self):
        return -self.scale * self.base_link_offset

    def set_bbox_center_position_orientation(self, position=None, orientation=None):
        if orientation is None:
            orientation = self.get_position_orientation()[1]
        if position is not None:
            R = quat2mat(orientation)  # fails on lists, as upstream's T.pose_transform does
            rotated_offset = th.tensor(R @ self.scaled_bbox_center_in_base_frame.numpy().astype(float), dtype=th.float32)
            position = position + rotated_offset
        self.set_position_orientation(position=position, orientation=orientation)

    def box(self):
        """The model's box in the world. Upstream's bbox-centre setter puts the base link at
        centre + R (scaled_bbox_center_in_base_frame), i.e. that vector is the base link's offset from the box
        centre ("where the base_link origin is wrt. the bounding box center"): the centre is base - R (it)."""
        R = quat2mat(self._quat)
        base_from_centre = self.scaled_bbox_center_in_base_frame.numpy().astype(float)
        centre = self._pos.numpy().astype(float) - R @ base_from_centre
        return centre, R, (self._native * self._scale).numpy().astype(float) / 2

    def get_base_aligned_bbox(self, link_name=None, visual=False, xy_aligned=False):
        centre, R, half = self.box()
        return th.tensor(centre, dtype=th.float32), self._quat.clone(), th.tensor(2 * half, dtype=th.float32), -self.scaled_bbox_center_in_base_frame

    @property
    def aabb(self):
        centre, R, half = self.box()
        ext = np.abs(R) @ half
        return th.tensor(centre - ext, dtype=th.float32), th.tensor(centre + ext, dtype=th.float32)

    @property
    def aabb_extent(self):
        lo, hi = self.aabb
        return hi - lo


# ------------------------------------------------------------------------------------ vision sensor


def ray_boxes(origins, dirs, boxes):
    """z-depth factor t (ray = o + t d) of the nearest box hit per ray, and the hit box's index (-1: none)."""
    n = dirs.shape[0]
    best = np.full(n, np.inf)
    idx = np.full(n, -1, dtype=np.int64)
    for k, (c, R, half) in enumerate(boxes):
        o = (origins - c) @ R  # into the box frame
        d = dirs @ R
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (-half - o) / d
            t2 = (half - o) / d
        tmin = np.nanmax(np.minimum(t1, t2), axis=1)
        tmax = np.nanmin(np.maximum(t1, t2), axis=1)
        hit = (tmax >= np.maximum(tmin, 0)) & (tmax > 0)
        t = np.where(tmin > 0, tmin, tmax)
        closer = hit & (t < best)
        best[closer] = t[closer]
        idx[closer] = k
    return best, idx


class StandinVisionSensor(Pose):
    INSTANCE_REGISTRY = {0: "background", 1: "unlabelled"}

    def _init(self, relative_prim_path, name, modalities, enabled, image_height, image_width, focal_length, horizontal_aperture, viewport_name):
        super().__init__()
        import omnigibson as og
        from omnigibson.macros import gm

        self._og = og
        self._gm = gm
        self.name = name
        self.prim_path = relative_prim_path
        modalities = set([modalities]) if isinstance(modalities, str) else set(modalities)
        if {"seg_instance", "seg_instance_id"} & modalities:
            modalities.add("seg_semantic")  # upstream adds it for the instance remapping
        self.modalities = modalities
        self._enabled = enabled
        self.image_height, self.image_width = image_height, image_width
        self._focal_length = float(focal_length)
        self._horizontal_aperture = float(horizontal_aperture)
        self._viewport_name = viewport_name
        self._frame = None
        self._frame_key = None
        self._pending = None
        self.initialized = False

    def load(self, scene):
        self.scene = scene
        if not self._gm.HEADLESS and self._viewport_name is None:
            # a non-headless VisionSensor creates and docks a viewport window: no display on a GPU server
            raise RuntimeError("stand-in: gm.HEADLESS is False, so this VisionSensor would open a viewport window (no display here)")
        self._og.sim.sensors.append(self)

    def initialize(self):
        self.initialized = True

    @property
    def focal_length(self):
        return self._focal_length

    @focal_length.setter
    def focal_length(self, length):
        self._focal_length = float(length)

    @property
    def horizontal_aperture(self):
        return self._horizontal_aperture

    @horizontal_aperture.setter
    def horizontal_aperture(self, length):
        self._horizontal_aperture = float(length)

    def render(self):
        """What og.sim.render() does for this sensor: the frame is taken at the current pose (the ray cast itself
        runs when the frame is first read, so repeated passes cost nothing); moving without rendering leaves the
        observation at the old pose, as Isaac's replicator does."""
        # the scene's version: a moved object is rendered anew too, as every render pass of Isaac does
        key = (tuple(self._pos.tolist()), tuple(self._quat.tolist()), self.image_width, self.image_height, self._focal_length, self._horizontal_aperture, self.scene.version)
        if self._frame is None or self._frame_key != key:
            self._frame_key = key
            self._frame = None
            self._pending = (self._pos.clone(), self._quat.clone())

    def _cast(self):
        pos, quat = self._pending
        W, H = self.image_width, self.image_height
        f = W * self._focal_length / self._horizontal_aperture  # square pixels, centre (W/2, H/2) in continuous coords
        u = (np.arange(W) + 0.5 - W / 2) / f
        v = (np.arange(H) + 0.5 - H / 2) / f
        uu, vv = np.meshgrid(u, v)
        local = np.stack([uu.ravel(), -vv.ravel(), -np.ones(W * H)], axis=1)  # USD camera: -Z forward, +Y up
        R = quat2mat(quat)
        dirs = local @ R.T
        origin = pos.numpy().astype(float)
        objs = [o for o in self.scene.objects if hasattr(o, "box")]
        boxes = [o.box() for o in objs]
        t, idx = ray_boxes(np.broadcast_to(origin, dirs.shape), dirs, boxes)
        names = [o.name for o in objs]
        if self.scene.ground_plane:
            with np.errstate(divide="ignore", invalid="ignore"):
                tg = -origin[2] / dirs[:, 2]
            g = (tg > 0) & (tg < t)
            t = np.where(g, tg, t)
            idx = np.where(g, len(objs), idx)
            names.append("groundPlane")
        ids = np.zeros(W * H, dtype=np.int32)
        for k, name in enumerate(names):
            if name not in self.INSTANCE_REGISTRY.values():
                self.INSTANCE_REGISTRY[len(self.INSTANCE_REGISTRY)] = name
            rid = next(i for i, n in self.INSTANCE_REGISTRY.items() if n == name)
            ids[idx == k] = rid
        depth = np.where(np.isfinite(t), t, np.inf).astype(np.float32)  # z-depth: local z is -1
        shade = (40 + (ids * 53) % 200).astype(np.uint8)
        rgb = np.stack([shade, (shade * 3) % 255, (shade * 7) % 255, np.full(W * H, 255, np.uint8)], axis=1).astype(np.uint8)
        self._frame = {
            "rgb": th.from_numpy(rgb.reshape(H, W, 4)),
            "depth_linear": th.from_numpy(depth.reshape(H, W)),
            "seg_instance": th.from_numpy(ids.reshape(H, W)),
            "info": {int(i): self.INSTANCE_REGISTRY[int(i)] for i in np.unique(ids)},
        }

    def get_obs(self):
        if not self._enabled:
            return dict()
        assert self.initialized, "Cannot grab vision observations without first initializing this VisionSensor!"
        assert self._pending is not None, "stand-in: no frame rendered yet (call og.sim.render())"
        if self._frame is None:
            self._cast()
        obs = {m: self._frame[m].clone() for m in ("rgb", "depth_linear", "seg_instance") if m in self.modalities}
        info = {"seg_instance": dict(self._frame["info"])} if "seg_instance" in self.modalities else {}
        return obs, info


# ------------------------------------------------------------------------------------ simulator, app, env


def launch(og):
    """og.launch(): the simulator singleton and the Kit app."""
    og.sim = StandinSim()
    og.app = StandinApp()
    return og.sim


def shutdown(og, due_to_signal=False):
    """og.shutdown(): cleanup, then app.close() (ends the process), or exit(0) when no app was launched."""
    if og.app is not None:
        og.app.close()
    elif not due_to_signal:
        exit(0)


def create_sensor(classes, sensor_type, relative_prim_path, name, modalities, enabled, sensor_kwargs):
    """create_sensor(): the class by prim type or registered name, constructed with **sensor_kwargs."""
    assert isinstance(sensor_type, str), "Inputted sensor_type must be a string!"
    if sensor_type not in classes:
        raise ValueError(f"No sensor found with corresponding sensor_type: {sensor_type}")
    sensor_kwargs = dict() if sensor_kwargs is None else sensor_kwargs
    return classes[sensor_type](relative_prim_path=relative_prim_path, name=name, modalities=modalities, enabled=enabled, noise=None, **sensor_kwargs)


class StandinTraversableScene(StandinScene):
    """InteractiveTraversableScene: the scene file's furniture, filtered by rooms and excluded categories."""

    ground_plane = False

    def _init(self, scene_model, load_room_instances, not_load_object_categories):
        StandinScene.__init__(self)
        self.scene_model = scene_model
        self._add_furniture(scene_model, load_room_instances, not_load_object_categories)


class StandinSim:
    device = "cpu"

    def __init__(self):
        self.sensors = []
        self.renders = 0

    def render(self):
        self.renders += 1
        for s in self.sensors:
            s.render()

    def is_stopped(self):
        return True


class StandinApp:
    def close(self):
        # Kit's SimulationApp.close() with /app/fastShutdown ends the process at once (exit status 0)
        os._exit(0)


def merge(base, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


class StandinEnvironment:
    """The parts of Environment the bridge uses: scene, objects (position/orientation popped and applied in the
    scene frame), external sensors (create_sensor(**cfg) after popping the pose keys), env.scene."""

    SENSOR_POSE_KEYS = ("position", "orientation", "pose_frame")

    def _init(self, configs, external_as_list, scene_classes, object_classes, create_sensor):
        import omnigibson as og

        if og.sim is None:
            og.launch()
        self.config = merge({"env": {"external_sensors": None}, "scene": {}, "robots": [], "objects": [], "task": {"type": "DummyTask"}}, json.loads(json.dumps(configs)))
        sc = dict(self.config["scene"])
        cls = scene_classes[sc.pop("type")]
        self._scene = cls(**filter_kwargs(cls, sc))
        for i, oc in enumerate(self.config["objects"]):
            oc = dict(oc)
            oc.setdefault("name", f"obj{i}")
            position, orientation = oc.pop("position", None), oc.pop("orientation", None)
            ocls = object_classes[oc.pop("type")]
            obj = ocls(**filter_kwargs(ocls, oc))
            self._scene.add_object(obj)
            obj.set_position_orientation(position=position, orientation=orientation, frame="scene")
        sensors = self.config["env"]["external_sensors"]
        self._external_sensors = None
        if sensors is not None:
            made = {}
            for i, scfg in enumerate(sensors):
                scfg = dict(scfg)
                scfg.setdefault("name", f"external_sensor{i}")
                scfg.setdefault("relative_prim_path", f"/{scfg['name']}")
                position, orientation = scfg.pop("position", None), scfg.pop("orientation", None)
                frame = scfg.pop("pose_frame", "scene")
                scfg.pop("include_in_obs", True)
                sensor = create_sensor(**scfg)  # no **kwargs: an unknown key is a TypeError
                sensor.load(self._scene)
                sensor.initialize()
                sensor.set_position_orientation(position=position, orientation=orientation, frame=frame)
                made[sensor.name] = sensor
            self._external_sensors = [made] if external_as_list else made
        og.sim.render()

    @property
    def scene(self):
        return self._scene

    @property
    def external_sensors(self):
        return self._external_sensors


# ------------------------------------------------------------------------------------ object states (3.9 stand-in)
# Behaviour of Open, OnTop and Inside and of sample_kinematics on the stand-in's boxes: a model is openable or a
# container when assets.json says so ("openable": true, "fillable": true, as BEHAVIOR's openable ability and
# fillable meta link); opening changes no geometry (the stand-in renders boxes), placing moves the box.

# OnTop holds when A's bottom is this close to B's top (m) and their footprints overlap
ON_TOP_TOLERANCE_M = 0.01


def _box_of(obj):
    lo, hi = obj.aabb
    return lo.numpy().astype(float), hi.numpy().astype(float)


def _overlaps(a, b, margin=1e-4):
    (alo, ahi), (blo, bhi) = a, b
    return all(alo[k] < bhi[k] - margin and blo[k] < ahi[k] - margin for k in range(3))


def model_spec(obj):
    return assets()["objects"].get(f"{obj.category}/{getattr(obj, 'model', None)}", {})


def sample_kinematics(predicate, objA, objB):
    """Puts objA's box on top of objB's (predicate onTop: centred over B, resting on B's top) or inside it
    (inside: centred, on the bottom of B's box); False, with objA where it was, when A would overlap another object."""
    pos0, quat0 = objA.get_position_orientation()
    lo, hi = _box_of(objB)
    alo, ahi = _box_of(objA)
    half = (ahi - alo) / 2
    centre = (lo + hi) / 2
    if predicate == "onTop":
        target = [centre[0], centre[1], hi[2] + half[2]]
    elif predicate == "inside":
        if any(half[k] * 2 >= hi[k] - lo[k] for k in range(3)):
            return False
        target = [centre[0], centre[1], lo[2] + half[2] + 0.001]
    else:
        raise ValueError(f"predicate must be onTop or inside for the stand-in, got: {predicate}")
    objA.set_bbox_center_position_orientation(position=th.tensor(target, dtype=th.float32))
    mine = _box_of(objA)
    for other in objA.scene.objects:
        if other is objA or other is objB or not hasattr(other, "aabb") or other.category in ("floors", "walls", "ceilings"):
            continue
        if _overlaps(mine, _box_of(other)):
            objA.set_position_orientation(position=pos0, orientation=quat0)
            return False
    return True


class StandinOpen:
    def __init__(self, obj):
        self.obj = obj
        self._open = False

    def get_value(self):
        return self._open

    def set_value(self, new_value, fully=False):
        self._open = bool(new_value)
        return True


class StandinOnTop:
    def __init__(self, obj):
        self.obj = obj

    def get_value(self, other):
        (alo, ahi), (blo, bhi) = _box_of(self.obj), _box_of(other)
        footprint = all(alo[k] < bhi[k] and blo[k] < ahi[k] for k in range(2))
        return footprint and abs(alo[2] - bhi[2]) <= ON_TOP_TOLERANCE_M

    def set_value(self, other, new_value, reset_before_sampling=False, use_trav_map=False):
        if not new_value:
            raise NotImplementedError("OnTop does not support set_value(False)")
        return sample_kinematics("onTop", self.obj, other) and self.get_value(other)


class StandinInside:
    def __init__(self, obj):
        self.obj = obj

    def get_value(self, other):
        (alo, ahi), (blo, bhi) = _box_of(self.obj), _box_of(other)
        c = (alo + ahi) / 2
        return bool(all(blo[k] <= c[k] <= bhi[k] for k in range(3)))

    def set_value(self, other, new_value, reset_before_sampling=False, use_trav_map=False):
        if not new_value:
            raise NotImplementedError("Inside does not support set_value(False)")
        assert model_spec(other).get("fillable"), f"Container object {other.name} must have a fillable meta link"
        return sample_kinematics("inside", self.obj, other) and self.get_value(other)


def object_states_of(obj, classes):
    """obj.states: {state class: state} with Open only for openable models; OnTop and Inside for every object."""
    out = {classes["OnTop"]: classes["OnTop"](obj), classes["Inside"]: classes["Inside"](obj)}
    if model_spec(obj).get("openable"):
        out[classes["Open"]] = classes["Open"](obj)
    return out
