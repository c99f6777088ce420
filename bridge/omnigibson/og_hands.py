"""
og_hands: the agent's hands in OmniGibson (issue 46; docs/protocol.md "The hands"), for capture.py's active
episodes. The server sends a manipulation as canonical text ("open(n3)", "put_on(red mug, table)") with its
objects beside it ({"text", "near"?}); this module resolves each object among what the camera sees, applies
the manipulation with OmniGibson's own primitives, and says what came of it ("ok", or why not: the step's
`action_result`).

The primitives, with the OmniGibson source each signature was read from (StanfordVL/BEHAVIOR-1K,
OmniGibson/omnigibson/...):
- open / close: `obj.states[object_states.Open].set_value(new_value, fully=False)` and `.get_value()`
  (object_states/open_state.py, Open._set_value(new_value, fully=False)); an object without the Open state
  does not open;
- put_on: `obj.states[object_states.OnTop].set_value(other, True)`, which samples with
  `utils/object_state_utils.sample_kinematics("onTop", objA, objB, max_trials=None, z_offset=0.05,
  skip_falling=False, use_last_ditch_effort=False, use_trav_map=True)` and lets the object fall (object_states/
  on_top.py @ 0130f776, OnTop._set_value(other, new_value, reset_before_sampling=False, use_trav_map=False);
  object_state_utils.py @ 08c9952c); then the settle check: after SETTLE_RENDERS more steps OnTop.get_value(other)
  must still hold;
- put_inside: `obj.states[object_states.Inside].set_value(other, True)` (object_states/inside.py @ 12438e17,
  Inside._set_value(other, new_value, reset_before_sampling=False, use_trav_map=False)), refused while the
  container's Open state says closed; the same settle check with Inside.get_value(other);
- pick_up / put_back: no robot: the object is teleported into a hold pose in front of the camera
  (set_position_orientation(..., frame="scene"), prims/xform_prim.py) and travels with it; put_back teleports
  it to where it was picked up. ESI-Bench's later runner has no simulated grasp either: its "pick up X" moves
  nothing, "place X on top of Y" samples with sample_kinematics("onTop", X, Y, use_last_ditch_effort=True,
  use_trav_map=False), "put back X" sets X's recorded initial pose; here the held object is shown in the hands.

Reach, visibility and hold pose are esi3d's hands' rules (bridge/sim/manipulation/params.ts), so the same
episode means the same thing in both simulators.
"""
import math
import re

# an object is in reach when its box centre is at most this far from where the agent stands, on the floor plan (m)
REACH_M = 1.0
# how far above the eye a hand reaches (m)
REACH_ABOVE_EYE_M = 0.5
# the current view must show at least this many of an object's pixels to act on it (the graph's 25 px mask floor, doubled)
MIN_VISIBLE_PX = 50
# the longest box side one arm carries (m)
GRASP_MAX_EXTENT_M = 0.6
# the hold pose in the camera's body frame (m): ahead along the heading, to the right, below the eye
HOLD_AHEAD_M = 0.4
HOLD_RIGHT_M = 0.18
HOLD_BELOW_M = 0.3
# physics renders after a placement before the settle check (OmniGibson renders 4 times after camera changes)
SETTLE_RENDERS = 4
# a graph node names the object whose box, grown by this much, holds the node's centroid (m; esi3d's
# NODE_REFERENCE_TOLERANCE_M: a reconstruction's node is off by centimetres, a hallucinated one by more)
NODE_REFERENCE_TOLERANCE_M = 0.15
# scene categories the agent never picks up (they carry the scene)
FIXED_CATEGORIES = ("floors", "walls", "ceilings", "carpet")

MANIPULATIONS = {"pick_up": 1, "put_on": 2, "put_inside": 2, "put_back": 1, "open": 1, "close": 1}


def words(s):
    s = str(s).lower().replace("_", " ")
    s = re.sub(r"^(the|a|an)\s+", "", s)
    return re.sub(r"\s+", " ", s).strip()


def manipulation_of(action):
    """'put_on(red mug, table)' -> ('put_on', ['red mug', 'table']); a camera move -> None."""
    m = re.match(r"^([a-z_]+)\((.*)\)$", str(action).strip(), re.S)
    if not m or m.group(1) not in MANIPULATIONS:
        return None
    return m.group(1), [a.strip() for a in m.group(2).split(",")] if m.group(2).strip() else []


class HandsFailed(Exception):
    """A manipulation that did not happen; the message is the step's action_result."""


class Hands:
    """The hands of one Capturer: `objects` maps each task object id to (task record entry, OmniGibson object)."""

    def __init__(self, og, object_states, objects, log=None):
        self.og, self.S, self.objects = og, object_states, objects
        self.log = log or (lambda line: None)
        self.held = None
        # where each picked-up object was taken from: (position, orientation) in the scene frame
        self.origin = {}

    # ------------------------------------------------------------------ references

    def label(self, oid):
        return words(self.objects[oid][0].get("name") or self.objects[oid][0]["category"])

    def names_of(self, o):
        cat = words(o["category"])
        return [words(o.get("name") or cat)] + ([f"{words(o['color'])} {cat}"] if o.get("color") else []) + [cat]

    def resolve(self, ref, visible):
        """The id a reference names among the objects the view shows (and the held one)."""
        text = str(ref.get("text", "")).strip()
        shown = [i for i in self.objects if i == self.held or visible.get(i, 0) >= MIN_VISIBLE_PX]
        m = re.match(r"^#(\d+)$", text)
        if m:
            oid = int(m.group(1))
            if oid not in self.objects:
                raise HandsFailed(f"no object has instance id {oid}")
            if oid not in shown:
                raise HandsFailed(f"{self.label(oid)} is not in view")
            return oid
        near = ref.get("near")
        if near:
            p = near["point"]
            cands = [(self.box_distance(i, p), i) for i in shown]
            cands = [c for c in cands if c[0] <= NODE_REFERENCE_TOLERANCE_M]
            if not cands:
                raise HandsFailed(f"nothing in view is where node {near['node']} ({near['label']}) is")
            same = [c for c in cands if words(self.objects[c[1]][0]["category"]) == words(near["label"])]
            return min(same or cands)[1]
        t = words(text)
        fits = [i for i in shown if words(self.objects[i][0].get("name") or "") == t] or [i for i in shown if t in self.names_of(self.objects[i][0])]
        if not fits:
            raise HandsFailed(f'nothing in view is called "{text}"')
        if len(fits) > 1:
            raise HandsFailed(f'"{text}" could be {len(fits)} objects ({", ".join(self.label(i) for i in fits)}): name one of them')
        return fits[0]

    def box(self, oid):
        lo, hi = self.objects[oid][1].aabb
        return [float(v) for v in lo], [float(v) for v in hi]

    def box_distance(self, oid, p):
        lo, hi = self.box(oid)
        return math.sqrt(sum(max(lo[k] - p[k], 0, p[k] - hi[k]) ** 2 for k in range(3)))

    # ------------------------------------------------------------------ rules

    def reachable(self, oid, pose):
        lo, hi = self.box(oid)
        c = [(lo[k] + hi[k]) / 2 for k in range(3)]
        d = math.hypot(c[0] - pose.position[0], c[1] - pose.position[1])
        if d > REACH_M:
            raise HandsFailed(f"{self.label(oid)} is out of reach ({d:.2f} m away; reach {REACH_M} m)")
        if lo[2] > pose.position[2] + REACH_ABOVE_EYE_M:
            raise HandsFailed(f"{self.label(oid)} is out of reach (too high: {lo[2]:.2f} m)")

    def state(self, oid, name):
        """The object's OmniGibson state `name` (Open, OnTop, Inside), or None when it has none."""
        cls = getattr(self.S, name)
        states = getattr(self.objects[oid][1], "states", {}) or {}
        return states[cls] if cls in states else None

    def settle(self):
        for _ in range(SETTLE_RENDERS):
            self.og.sim.render()

    # ------------------------------------------------------------------ actions

    def apply(self, action, refs, pose, visible):
        """Applies one manipulation; returns (action_result, acted_on ids or None)."""
        name, texts = manipulation_of(action)
        if len(refs) != MANIPULATIONS[name]:
            return f"{name} names {MANIPULATIONS[name]} object(s), got {len(refs)}", None
        try:
            ids = [self.resolve(r, visible) for r in refs]
            getattr(self, name)(*ids, pose=pose)
        except HandsFailed as e:
            return str(e), None
        self.log(f"hands: {action} -> ok {ids}")
        return "ok", ids

    def hold_pose(self, pose):
        cy, sy = math.cos(pose.yaw), math.sin(pose.yaw)
        x, y, z = pose.position
        return [x + HOLD_AHEAD_M * cy + HOLD_RIGHT_M * sy, y + HOLD_AHEAD_M * sy - HOLD_RIGHT_M * cy, z - HOLD_BELOW_M]

    def carry(self, pose):
        """A camera move: the held object travels with the camera."""
        if self.held is not None:
            obj = self.objects[self.held][1]
            obj.set_position_orientation(position=self.tensor(self.hold_pose(pose)), frame="scene")

    def tensor(self, v):
        import torch as th

        return th.tensor([float(x) for x in v], dtype=th.float32)

    def graspable(self, oid, pose):
        if self.held is not None and self.held != oid:
            raise HandsFailed(f"the hands already hold {self.label(self.held)}")
        o = self.objects[oid][0]
        if o.get("role") in ("furniture", "support", "divider") or o["category"] in FIXED_CATEGORIES:
            raise HandsFailed(f"{self.label(oid)} is furniture and cannot be picked up")
        lo, hi = self.box(oid)
        longest = max(hi[k] - lo[k] for k in range(3))
        if longest > GRASP_MAX_EXTENT_M:
            raise HandsFailed(f"{self.label(oid)} is too large to pick up ({longest:.2f} m; at most {GRASP_MAX_EXTENT_M} m)")
        self.reachable(oid, pose)

    def pick_up(self, oid, pose):
        if self.held == oid:
            raise HandsFailed(f"the hands already hold {self.label(oid)}")
        self.graspable(oid, pose)
        obj = self.objects[oid][1]
        pos, quat = obj.get_position_orientation(frame="scene")
        self.origin[oid] = (pos.clone(), quat.clone())
        obj.set_position_orientation(position=self.tensor(self.hold_pose(pose)), frame="scene")
        self.held = oid

    def put_back(self, oid, pose):
        if self.held != oid:
            raise HandsFailed(f"the hands do not hold {self.label(oid)}")
        pos, quat = self.origin.pop(oid)
        self.objects[oid][1].set_position_orientation(position=pos, orientation=quat, frame="scene")
        self.held = None
        self.settle()

    def place(self, oid, other, pose, state_name, verb):
        if oid == other:
            raise HandsFailed(f"an object cannot be put {verb} itself")
        if self.held != oid:  # an object in reach is picked up and placed in one go
            self.graspable(oid, pose)
        self.reachable(other, pose)
        st = self.state(oid, state_name)
        if st is None:
            raise HandsFailed(f"{self.label(oid)} cannot be placed {verb} objects in this simulator (no {state_name} state)")
        target = self.objects[other][1]
        try:
            placed = st.set_value(target, True)
        except (AssertionError, ValueError, NotImplementedError):  # OmniGibson's refusals: no fillable volume, a cloth
            raise HandsFailed(f"{self.label(oid)} cannot be put {verb} {self.label(other)}") from None
        if not placed:
            raise HandsFailed(f"there is no room {verb} {self.label(other)}")
        self.held = None
        self.origin.pop(oid, None)
        self.settle()
        if not st.get_value(target):
            raise HandsFailed(f"{self.label(oid)} did not stay {verb} {self.label(other)}")

    def put_on(self, oid, other, pose):
        self.place(oid, other, pose, "OnTop", "on")

    def put_inside(self, oid, other, pose):
        opened = self.state(other, "Open")
        if opened is not None and not opened.get_value():
            raise HandsFailed(f"{self.label(other)} is closed: open it first")
        self.place(oid, other, pose, "Inside", "inside")

    def set_open(self, oid, pose, value):
        st = self.state(oid, "Open")
        if st is None:
            raise HandsFailed(f"{self.label(oid)} does not {'open' if value else 'close'}")
        if bool(st.get_value()) == value:
            raise HandsFailed(f"{self.label(oid)} is already {'open' if value else 'closed'}")
        self.reachable(oid, pose)
        if not st.set_value(value, fully=True) or bool(st.get_value()) != value:
            raise HandsFailed(f"{self.label(oid)} did not {'open' if value else 'close'}")
        self.settle()

    def open(self, oid, pose):
        self.set_open(oid, pose, True)

    def close(self, oid, pose):
        self.set_open(oid, pose, False)
