"""
The stand-ins are strict where OmniGibson is (so the bridge's fixes are tested, not assumed), and capture.py's
Capturer does what the fixes say on each version. Run with one version's stand-in first on the path:
    ESI3D_OG_STANDIN_ASSETS=standin/assets.json ESI3D_STANDIN_TASKS=<dir of imported tasks> \\
    PYTHONPATH=standin/v3_9:. python3 -m unittest standin/test_standin.py
(test/src/apps/service/omnigibsonStandin.test.ts runs it for 1.1.1, 3.7.2 and 3.9.2).
"""
import json
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import omnigibson as og  # noqa: E402 (the stand-in of the version on PYTHONPATH)
import torch as th  # noqa: E402

import capture  # noqa: E402
from esi3d_agent import apply_action, Pose, World  # noqa: E402

TASKS = os.environ.get("ESI3D_STANDIN_TASKS", "")
VERSION = capture.og_version(og)


def task(name):
    with open(os.path.join(TASKS, name), "r", encoding="utf-8") as f:
        return json.load(f)


def fresh():
    """A new simulator per environment (the stand-in keeps one per process, as OmniGibson does)."""
    og.sim = None
    og.app = None
    from omnigibson.macros import gm
    gm.HEADLESS = True


class StandinIsStrict(unittest.TestCase):
    """What the first bridge did wrong fails here as it fails in OmniGibson."""

    def setUp(self):
        fresh()

    def config(self, **sensor):
        cfg = capture.env_config(task("esi-0789.json"))
        cfg["env"]["external_sensors"][0].update(sensor)
        return cfg

    def test_pre_111_sensor_pose_keys_reach_create_sensor(self):
        cfg = self.config()
        cam = cfg["env"]["external_sensors"][0]
        cam["local_position"] = cam.pop("position")
        cam["local_orientation"] = cam.pop("orientation")
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'local_position'"):
            og.Environment(configs=cfg)

    def test_external_sensors_shape(self):
        env = og.Environment(configs=self.config())
        es = env.external_sensors
        if VERSION >= (3, 9, 0):
            self.assertIsInstance(es, list)
            with self.assertRaises(TypeError):
                es[capture.CAMERA_NAME]  # the first bridge's dict indexing
        else:
            self.assertIsInstance(es, dict)
        self.assertEqual(capture.external_camera(env).name, capture.CAMERA_NAME)

    def test_not_headless_opens_a_viewport(self):
        from omnigibson.macros import gm
        gm.HEADLESS = False
        with self.assertRaisesRegex(RuntimeError, "viewport"):
            og.Environment(configs=self.config())

    def test_scale_and_bounding_box_are_exclusive(self):
        from omnigibson.objects import DatasetObject
        with self.assertRaisesRegex(Exception, "both scale and bounding box"):
            DatasetObject(name="x", category="footstool", model="sghekm", scale=[1, 1, 1], bounding_box=[1, 1, 1])

    def test_bare_model_ids_need_the_category(self):
        from omnigibson.objects import DatasetObject
        with self.assertRaises(FileNotFoundError):
            DatasetObject(name="x", category="sghekm", model="")  # the first bridge's parse of a bare id

    def test_bbox_centre_setter_needs_tensors(self):
        env = og.Environment(configs=self.config())
        obj = env.scene.object_registry("name", "esi3d_17")
        with self.assertRaises(AttributeError):
            obj.set_bbox_center_position_orientation(position=[0, 0, 0], orientation=[0, 0, 0, 1])

    def test_horizontal_aperture_argument(self):
        from omnigibson.sensors import create_sensor
        if VERSION < (3, 0, 0):
            with self.assertRaises(TypeError):
                create_sensor("VisionSensor", "/c", "c", sensor_kwargs={"horizontal_aperture": 20.955})
        else:
            create_sensor("VisionSensor", "/c", "c", sensor_kwargs={"horizontal_aperture": 20.955})

    def test_observation_is_the_last_rendered_frame(self):
        env = og.Environment(configs=self.config())
        cam = capture.external_camera(env)
        obs, _ = cam.get_obs()
        before = obs["depth_linear"].clone()
        cam.set_position_orientation(position=[0.5, 0.5, 1.0], orientation=[0, 0, 0, 1], frame="scene")
        self.assertTrue(th.equal(cam.get_obs()[0]["depth_linear"], before))  # not rendered yet
        og.sim.render()
        self.assertFalse(th.equal(cam.get_obs()[0]["depth_linear"], before))


class CapturerOnThisVersion(unittest.TestCase):
    def setUp(self):
        fresh()

    def test_places_by_box_centre_or_base_link_and_reads_real_boxes_back(self):
        t = task("esi-2805.json")  # boxes recorded: placed by box centre
        c = capture.Capturer(og, t, log=lambda *_: None)
        from og_standin import assets
        for o, r in zip(t["objects"], c.resolved["objects"]):
            native = assets()["objects"][o["model"]]["native_bbox"]
            self.assertEqual(r["extent_source"], "capture")
            for a, b in zip(r["position"], o["position"]):
                self.assertAlmostEqual(a, b, places=5)
            for a, b in zip(r["extent"], native):
                self.assertAlmostEqual(a, b, places=5)  # ESI's scale 1 of the native model
        fresh()
        t = task("esi-0789.json")  # no boxes recorded: placed by base link (ESI's root-link origins)
        c = capture.Capturer(og, t, log=lambda *_: None)
        stool = next(o for o in t["objects"] if o["category"] == "music_stool")
        got = next(o for o in c.resolved["objects"] if o["id"] == stool["id"])
        obj = c.scene.object_registry("name", f"esi3d_{stool['id']}")
        base = capture.floats(obj.get_position_orientation(frame="scene")[0])
        for a, b in zip(base, stool["position"]):
            self.assertAlmostEqual(a, b, places=5)
        offset = assets()["objects"]["music_stool/dqvlff"]["base_link_offset"]
        self.assertGreater(math.dist(got["position"], stool["position"]), 0.9 * math.hypot(*offset))
        # the scene's own reference (ESI's scene_native) is found in the scene, with its model and box
        sofa = next(o for o in c.resolved["objects"] if o["category"] == "sofa")
        self.assertEqual(sofa["model"], "sofa/qnnwmp")
        self.assertNotIn("scene_object", sofa)
        for a, b in zip(sofa["extent"], [2.0, 0.9, 0.56]):
            self.assertAlmostEqual(a, b, places=5)
        self.assertEqual(c.resolved["room"]["bounds"], {"min": [-1.0, -1.5], "max": [4.0, 5.0]})

    def test_loads_only_the_room_and_knows_its_furniture(self):
        t = task("esi-0398.json")
        c = capture.Capturer(og, t, log=lambda *_: None)
        names = {o.name for o in c.scene.objects}
        self.assertIn("coffee_table_qlmqyy_0", names)
        self.assertNotIn("table_kitchen_0", names)  # another room
        self.assertNotIn("ceilings_garden_0", names)  # excluded categories
        self.assertEqual(sorted(f["name"] for f in c.furniture), ["breakfast_table_skczfi_0", "coffee_table_qlmqyy_0"])
        # the motion model: a step into the coffee table is blocked, and the scene frame is used
        world = World(c.resolved, c.furniture)
        start = Pose((2.9, 12.3, 1.0), math.pi / 2, 0.0)
        self.assertTrue(world.is_free(start.position))
        self.assertIsNone(apply_action(world, Pose((2.9, 12.55, 1.0), math.pi / 2, 0.0), "move_forward"))
        self.assertIsNone(apply_action(World(c.resolved), Pose((2.9, 20.0, 1.0), 0, 0), "move_forward"))  # outside the room
        self.assertIsNotNone(apply_action(World(c.resolved), Pose((2.9, 12.55, 1.0), math.pi / 2, 0.0), "move_forward"))  # without the furniture

    def test_renders_at_esi_camera_and_intrinsics(self):
        t = task("esi-0398.json")
        c = capture.Capturer(og, t, log=lambda *_: None)
        self.assertAlmostEqual(2 * math.degrees(math.atan(c.width / 2 / c.K["fx"])), t["camera"]["hfov_deg"], places=6)
        self.assertEqual((c.K["cx"], c.K["cy"]), ((1280 - 1) / 2, (720 - 1) / 2))
        views = c.views("gt")
        self.assertEqual([p.quat for p, _ in views], [tuple(v["quaternion_xyzw"]) for v in t["candidate_views"] if v["kind"] == "target_closeup"])
        pos, q = c.sensor.get_position_orientation(frame="scene")
        c.render(views[0][0])
        pos, q = c.sensor.get_position_orientation(frame="scene")
        for a, b in zip(capture.floats(q), views[0][0].quat):
            self.assertAlmostEqual(a, b, places=6)

    def test_refuses_versions_before_111(self):
        saved = og.__version__
        og.__version__ = "1.1.0"
        try:
            with self.assertRaisesRegex(RuntimeError, "1.1.1 or later"):
                capture.Capturer(og, task("esi-0789.json"), log=lambda *_: None)
        finally:
            og.__version__ = saved


def with_box(t):
    """esi-2805 with an openable packing box (a stand-in model: openable, fillable) on the floor beside the ball."""
    t = json.loads(json.dumps(t))
    t["objects"].append({
        "id": 18, "name": "the packing box", "category": "packing_box", "model": "packing_box/qbxwmx", "role": "target",
        "position": [-8.6, 8.15, 0.15], "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "extent": [0.4, 0.3, 0.3], "scale": 1, "color": "brown", "transparent": False,
    })
    # a second ball in the open (the recorded baseball lies within the skateboard deck's box, which the stand-in renders)
    t["objects"].append({
        "id": 19, "name": "the toy ball", "category": "baseball", "model": "baseball/zanmar", "role": "target",
        "position": [-8.45, 8.4, 0.04], "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}, "extent": [0.076, 0.074, 0.076], "scale": 1, "color": "white", "transparent": False,
    })
    return t


@unittest.skipIf(VERSION < (3, 9, 0), "the hands are tested on the 3.9.2 stand-in, which has the object states")
class HandsOnThisVersion(unittest.TestCase):
    """capture.py's hands (og_hands.py) through OmniGibson's object states and sample_kinematics on the stand-in:
    each manipulation changes the scene or changes nothing and says why."""

    def setUp(self):
        fresh()
        self.c = capture.Capturer(og, with_box(task("esi-2805.json")), log=lambda *_: None)
        self.c.render(self.c.pose)

    def act(self, action, *texts):
        return self.c.act(action, [{"text": t} for t in texts])

    def box_of(self, oid):
        lo, hi = self.c.scene.object_registry("name", f"esi3d_{oid}").aabb
        return [float(v) for v in lo], [float(v) for v in hi]

    def test_the_view_shows_what_the_hands_may_name(self):
        self.assertGreaterEqual(self.c.visible.get(19, 0), 50)
        self.assertGreaterEqual(self.c.visible.get(18, 0), 50)
        # the recorded baseball lies inside the deck's box: hidden, so no reference reaches it
        self.assertEqual(self.c.visible.get(16, 0), 0)
        self.assertEqual(self.act("pick_up(#16)", "#16"), ("baseball is not in view", None))
        # "baseball" fits both; only the toy ball is in view, so it names that one
        self.assertEqual(self.act("pick_up(baseball)", "baseball"), ("ok", [19]))

    def test_open_and_close_through_the_open_state(self):
        from omnigibson import object_states

        box = self.c.scene.object_registry("name", "esi3d_18")
        self.assertEqual(self.act("open(packing box)", "packing box"), ("ok", [18]))
        self.assertTrue(box.states[object_states.Open].get_value())
        self.assertEqual(self.act("open(packing box)", "packing box"), ("packing box is already open", None))
        self.assertEqual(self.act("close(#18)", "#18"), ("ok", [18]))
        self.assertFalse(box.states[object_states.Open].get_value())
        self.assertEqual(self.act("open(toy ball)", "toy ball"), ("toy ball does not open", None))

    def test_pick_up_carries_and_put_back_returns(self):
        before = self.box_of(19)
        self.assertEqual(self.act("pick_up(toy ball)", "toy ball"), ("ok", [19]))
        held = self.box_of(19)
        self.assertGreater(math.dist(held[0], before[0]), 0.2)
        # the next view shows it in the hands (lower right): a render after an object moved is a new frame
        seen = self.c.visible[19]
        self.c.render(self.c.pose)
        self.assertNotEqual(self.c.visible.get(19, 0), seen)
        # the held object travels with the camera
        self.assertIsNotNone(self.c.step("turn_left"))
        self.assertGreater(math.dist(self.box_of(19)[0], held[0]), 0.05)
        self.assertEqual(self.act("pick_up(packing box)", "packing box"), ("the hands already hold toy ball", None))
        self.assertEqual(self.act("put_back(toy ball)", "toy ball"), ("ok", [19]))
        for a, b in zip(self.box_of(19)[0], before[0]):
            self.assertAlmostEqual(a, b, places=5)
        self.assertEqual(self.act("put_back(toy ball)", "toy ball"), ("the hands do not hold toy ball", None))
        # too large to carry: the world is unchanged
        self.c.step("turn_right")
        self.c.render(self.c.pose)
        deck = self.box_of(17)
        result, ids = self.act("pick_up(skateboard deck)", "skateboard deck")
        self.assertRegex(result, r"^skateboard deck is too large to pick up \(1\.05 m; at most 0\.6 m\)$")
        self.assertIsNone(ids)
        self.assertEqual(self.box_of(17), deck)

    def test_put_on_and_put_inside_settle_through_the_kinematic_states(self):
        from omnigibson import object_states

        ball = self.c.scene.object_registry("name", "esi3d_19")
        deck = self.c.scene.object_registry("name", "esi3d_17")
        box = self.c.scene.object_registry("name", "esi3d_18")
        before = self.box_of(19)
        # the deck has no fillable volume: OmniGibson's Inside refuses, nothing moves
        self.assertEqual(self.act("put_inside(toy ball, skateboard deck)", "toy ball", "skateboard deck"), ("toy ball cannot be put inside skateboard deck", None))
        self.assertEqual(self.act("put_inside(toy ball, packing box)", "toy ball", "packing box"), ("packing box is closed: open it first", None))
        self.assertEqual(self.box_of(19), before)
        self.assertEqual(self.act("put_on(toy ball, packing box)", "toy ball", "packing box"), ("ok", [19, 18]))
        # the motion model's obstacles follow: the resolved task has the ball where it now is
        placed = next(o for o in self.c.resolved["objects"] if o["id"] == 19)
        lo, hi = self.box_of(19)
        for k in range(3):
            self.assertAlmostEqual(placed["position"][k], (lo[k] + hi[k]) / 2, places=5)
        self.assertTrue(ball.states[object_states.OnTop].get_value(box))
        self.assertFalse(ball.states[object_states.OnTop].get_value(deck))
        self.c.render(self.c.pose)
        self.assertEqual(self.act("open(packing box)", "packing box")[0], "ok")
        self.assertEqual(self.act("put_inside(toy ball, packing box)", "toy ball", "packing box"), ("ok", [19, 18]))
        self.assertTrue(ball.states[object_states.Inside].get_value(box))
        self.c.render(self.c.pose)
        self.assertEqual(self.act("pick_up(sofa)", "sofa"), ('nothing in view is called "sofa"', None))

if __name__ == "__main__":
    unittest.main()
