"""
esi3d_agent: the agent's motion model and the view sets of esi3d's built-in simulator, in plain Python
(standard library only), so another simulator places its camera exactly where esi3d would:

- bridge/sim/agent.ts: the action vocabulary and step sizes (ESI-Bench's public active-exploration code:
  move 0.25 m, turn 15 deg; pitch 15 deg and height 0.25 m are esi3d's), camera height and pitch limits,
  the body clearance around walls and furniture footprints, blocked actions leaving the pose unchanged;
- bridge/sim/views.ts: `single` (the initial pose), `multi` (30 views along a seeded random walk) and `gt`
  (the initial pose, then one view after each action of the task's ground-truth trajectory; for a task with
  candidate views and no trajectory, imported ESI-Bench tasks, the candidate views whose flags show every
  relevant object: core/task/candidates.ts);
- rooms anywhere in world coordinates (room.bounds, room.floor_z) and per-task camera floors
  (agent_limits.min_camera_height_m), as bridge/sim/agent.ts; a simulator may add its scene's own furniture
  as further obstacles (capture.py does, from the loaded BEHAVIOR scene);
- core/math/rng.ts: the seeded generator (cyrb128 hash + sfc32), bit for bit, so the random walk of a
  task is the same walk in both languages.

test/src/apps/service/python-agent.test.ts checks the poses against the TypeScript implementation.
"""
import math

# ---------------------------------------------------------------- constants (bridge/sim/agent.ts, views.ts)

MOVE_STEP_M = 0.25
TURN_STEP_RAD = 15 * math.pi / 180
PITCH_STEP_RAD = 15 * math.pi / 180
HEIGHT_STEP_M = 0.25
MIN_CAMERA_HEIGHT_M = 0.2
MAX_CAMERA_HEIGHT_M = 2.0
MIN_PITCH_RAD = -90 * math.pi / 180
MAX_PITCH_RAD = 45 * math.pi / 180
BODY_CLEARANCE_M = 0.15
# tolerance of the height and pitch limit checks, as in agent.ts
LIMIT_EPS = 1e-9

MOVE_ACTIONS = ("move_forward", "move_backward", "move_left", "move_right", "move_up", "move_down")
TURN_ACTIONS = ("turn_left", "turn_right", "turn_up", "turn_down")
NAVIGATION_ACTIONS = MOVE_ACTIONS + TURN_ACTIONS

MULTI_VIEW_COUNT = 30
RANDOM_WALK_WEIGHTS = {
    "move_forward": 0.28,
    "move_backward": 0.05,
    "move_left": 0.1,
    "move_right": 0.1,
    "move_up": 0.03,
    "move_down": 0.03,
    "turn_left": 0.16,
    "turn_right": 0.16,
    "turn_up": 0.04,
    "turn_down": 0.05,
}
RANDOM_WALK_MOMENTUM = 0.45
# attempts to find an unblocked random action before falling back to turn_left (views.ts)
RANDOM_WALK_ATTEMPTS = 20

M32 = 0xFFFFFFFF


# ---------------------------------------------------------------- seeded generator (core/math/rng.ts)


def _imul(a, b):
    return ((a & M32) * (b & M32)) & M32


def _cyrb128(text):
    h1, h2, h3, h4 = 1779033703, 3144134277, 1013904242, 2773480762
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        k = units[i] | (units[i + 1] << 8)  # JavaScript's charCodeAt: UTF-16 code units
        h1 = h2 ^ _imul(h1 ^ k, 597399067)
        h2 = h3 ^ _imul(h2 ^ k, 2869860233)
        h3 = h4 ^ _imul(h3 ^ k, 951274213)
        h4 = h1 ^ _imul(h4 ^ k, 2716044179)
    h1 = _imul(h3 ^ (h1 >> 18), 597399067)
    h2 = _imul(h4 ^ (h2 >> 22), 2869860233)
    h3 = _imul(h1 ^ (h3 >> 17), 951274213)
    h4 = _imul(h2 ^ (h4 >> 19), 2716044179)
    h1 ^= h2 ^ h3 ^ h4
    h2 ^= h1
    h3 ^= h1
    h4 ^= h1
    return h1 & M32, h2 & M32, h3 & M32, h4 & M32


class Rng:
    """sfc32 seeded by cyrb128 of a string; the same stream as esi3d's Rng for the same seed."""

    def __init__(self, seed):
        self.seed = str(seed)
        self.a, self.b, self.c, self.d = _cyrb128(self.seed)
        for _ in range(12):
            self.next_uint32()

    def next_uint32(self):
        a, b, c, d = self.a, self.b, self.c, self.d
        t = (a + b) & M32
        a = b ^ (b >> 9)
        b = (c + (c << 3)) & M32
        c = ((c << 21) | (c >> 11)) & M32
        d = (d + 1) & M32
        t = (t + d) & M32
        c = (c + t) & M32
        self.a, self.b, self.c, self.d = a, b, c, d
        return t

    def next(self):
        return self.next_uint32() / 4294967296

    def bool(self, p_true=0.5):
        return self.next() < p_true

    def weighted(self, items, weights):
        total = 0.0
        for w in weights:
            total += w
        r = self.next() * total
        for item, w in zip(items, weights):
            r -= w
            if r < 0:
                return item
        return items[-1]


# ---------------------------------------------------------------- geometry


def wrap_angle(a):
    """Wraps to (-pi, pi] (JavaScript's % is math.fmod)."""
    x = math.fmod(a, 2 * math.pi)
    if x <= -math.pi:
        x += 2 * math.pi
    if x > math.pi:
        x -= 2 * math.pi
    return x


def quat_to_mat(q):
    x, y, z, w = q["x"], q["y"], q["z"], q["w"]
    s = 2 / (x * x + y * y + z * z + w * w)
    return [
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ]


class Pose:
    """Camera optical centre (world, Z up), yaw (0 along +X, counter-clockwise from above), pitch (up > 0).
    `quat` is the exact recorded camera orientation (USD camera, xyzw) of a candidate view, when there is one."""

    __slots__ = ("position", "yaw", "pitch", "quat")

    def __init__(self, position, yaw, pitch, quat=None):
        self.position = tuple(position)
        self.yaw = yaw
        self.pitch = pitch
        self.quat = tuple(quat) if quat is not None else None

    def __repr__(self):
        return f"Pose({self.position}, yaw={self.yaw}, pitch={self.pitch})"


class World:
    """The room's floor rectangle and height, and the footprints the agent's body cannot enter: the task's
    objects (those with a known extent) plus `furniture`, footprints a simulator adds for its scene's own
    objects ({"centre": (x, y), "half_x", "half_y", "yaw"})."""

    def __init__(self, task, furniture=()):
        room = task["room"]
        bounds = room.get("bounds")
        self.room_size = room["size"]
        self.centre = ((bounds["min"][0] + bounds["max"][0]) / 2, (bounds["min"][1] + bounds["max"][1]) / 2) if bounds else (0.0, 0.0)
        self.floor_z = room.get("floor_z", 0.0)
        self.min_height = (task.get("agent_limits") or {}).get("min_camera_height_m", MIN_CAMERA_HEIGHT_M)
        self.obstacles = []
        for o in task["objects"]:
            if o.get("extent") is None:
                continue
            R = quat_to_mat(o["orientation"])
            self.obstacles.append({
                "centre": (o["position"][0], o["position"][1]),
                "half_x": o["extent"][0] / 2,
                "half_y": o["extent"][1] / 2,
                "yaw": math.atan2(R[1][0], R[0][0]),
            })
        self.obstacles.extend(furniture)

    def is_free(self, p):
        if self.room_size is not None:
            hx = self.room_size[0] / 2 - BODY_CLEARANCE_M
            hy = self.room_size[1] / 2 - BODY_CLEARANCE_M
            if abs(p[0] - self.centre[0]) > hx or abs(p[1] - self.centre[1]) > hy:
                return False
        h = p[2] - self.floor_z
        if h < self.min_height - LIMIT_EPS or h > MAX_CAMERA_HEIGHT_M + LIMIT_EPS:
            return False
        for o in self.obstacles:
            dx, dy = p[0] - o["centre"][0], p[1] - o["centre"][1]
            c, s = math.cos(o["yaw"]), math.sin(o["yaw"])
            lx, ly = c * dx + s * dy, -s * dx + c * dy
            if abs(lx) < o["half_x"] + BODY_CLEARANCE_M and abs(ly) < o["half_y"] + BODY_CLEARANCE_M:
                return False
        return True


def apply_action(world, pose, action):
    """The pose after `action`, or None when it is blocked (the agent then stays where it is)."""
    x, y, z = pose.position
    fwd = (math.cos(pose.yaw), math.sin(pose.yaw))
    left = (-fwd[1], fwd[0])
    if action == "move_forward":
        nxt = (x + MOVE_STEP_M * fwd[0], y + MOVE_STEP_M * fwd[1], z)
    elif action == "move_backward":
        nxt = (x - MOVE_STEP_M * fwd[0], y - MOVE_STEP_M * fwd[1], z)
    elif action == "move_left":
        nxt = (x + MOVE_STEP_M * left[0], y + MOVE_STEP_M * left[1], z)
    elif action == "move_right":
        nxt = (x - MOVE_STEP_M * left[0], y - MOVE_STEP_M * left[1], z)
    elif action == "move_up":
        nxt = (x, y, z + HEIGHT_STEP_M)
    elif action == "move_down":
        nxt = (x, y, z - HEIGHT_STEP_M)
    elif action == "turn_left":
        return Pose(pose.position, wrap_angle(pose.yaw + TURN_STEP_RAD), pose.pitch)
    elif action == "turn_right":
        return Pose(pose.position, wrap_angle(pose.yaw - TURN_STEP_RAD), pose.pitch)
    elif action == "turn_up":
        p = pose.pitch + PITCH_STEP_RAD
        return None if p > MAX_PITCH_RAD + LIMIT_EPS else Pose(pose.position, pose.yaw, p)
    elif action == "turn_down":
        p = pose.pitch - PITCH_STEP_RAD
        return None if p < MIN_PITCH_RAD - LIMIT_EPS else Pose(pose.position, pose.yaw, p)
    else:
        raise ValueError(f'unknown action "{action}"')
    return Pose(nxt, pose.yaw, pose.pitch) if world.is_free(nxt) else None


def replay(world, start, actions):
    poses = [start]
    pose = start
    for a in actions:
        pose = apply_action(world, pose, a) or pose
        poses.append(pose)
    return poses


def random_trajectory(world, start, rng, n_views=MULTI_VIEW_COUNT):
    views = [(start, None)]
    pose = start
    prev = None
    weights = [RANDOM_WALK_WEIGHTS[a] for a in NAVIGATION_ACTIONS]
    while len(views) < n_views:
        nxt = None
        action = "turn_left"
        attempt = 0
        while attempt < RANDOM_WALK_ATTEMPTS and nxt is None:
            if prev is not None and attempt == 0 and rng.bool(RANDOM_WALK_MOMENTUM):
                action = prev
            else:
                action = rng.weighted(NAVIGATION_ACTIONS, weights)
            nxt = apply_action(world, pose, action)
            attempt += 1
        if nxt is None:
            action = "turn_left"
            nxt = apply_action(world, pose, action)
        pose = nxt
        prev = action
        views.append((pose, action))
    return views


def gt_candidate_views(task):
    """core/task/candidates.ts gtCandidateViews: the candidate views whose flags show every relevant object;
    else the fewest flagged views covering them all (greedy, in the record's order); None when impossible."""
    views = task.get("candidate_views") or []
    need = list(dict.fromkeys(task["relevant_object_ids"]))
    if not need or not views:
        return None

    def shown(v):
        return {f["id"] for f in v["visibility"] if f["visible"]}

    every = [v for v in views if all(i in shown(v) for i in need)]
    if every:
        return every
    left, chosen = set(need), []
    while left:
        best, gain = None, 0
        for v in views:
            g = len(shown(v) & left)
            if g > gain:
                best, gain = v, g
        if best is None:
            return None
        chosen.append(best)
        left -= shown(best)
    return [v for v in views if any(v is c for c in chosen)]


def initial_pose(task):
    """The initial pose; the exact recorded camera orientation when it is a candidate view."""
    a = task["agent_initial"]
    name = task.get("initial_view")
    view = next((v for v in task.get("candidate_views") or [] if v["name"] == name), None) if name else None
    return Pose(a["position"], a["yaw"], a["pitch"], view["quaternion_xyzw"] if view else None)


def paradigm_views(task, paradigm, furniture=()):
    """[(Pose, action or None)] of a view set: single, multi or gt (views.ts paradigmViews)."""
    start = initial_pose(task)
    world = World(task, furniture)
    if paradigm == "single":
        return [(start, None)]
    if paradigm == "multi":
        return random_trajectory(world, start, Rng(f"{task['seed']}/{task['task_id']}/multi"))
    if paradigm == "gt":
        traj = task["action_trajectory"]
        if task.get("candidate_views") and not traj:
            views = gt_candidate_views(task)
            if views is None:
                raise ValueError(f"{task['task_id']}: no gt view set: the candidate views' flags do not show every relevant object")
            return [(Pose(v["position"], v["yaw"], v["pitch"], v["quaternion_xyzw"]), None) for v in views]
        poses = replay(world, start, traj)
        return [(p, None if i == 0 else traj[i - 1]) for i, p in enumerate(poses)]
    raise ValueError(f"paradigm {paradigm!r}: expected single, multi or gt (active needs an agent choosing actions)")


if __name__ == "__main__":
    # python3 esi3d_agent.py TASK.json PARADIGM  ->  JSON lines: position, yaw, pitch, action, extrinsic
    import json
    import sys

    from esi3d_bridge import extrinsic_from_pose

    with open(sys.argv[1], "r", encoding="utf-8") as f:
        task = json.load(f)
    for pose, action in paradigm_views(task, sys.argv[2]):
        print(json.dumps({"position": pose.position, "yaw": pose.yaw, "pitch": pose.pitch, "action": action, "extrinsic": extrinsic_from_pose(pose.position, pose.yaw, pose.pitch)}))
