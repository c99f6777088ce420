"""
Unit tests of the simulator-independent parts of the OmniGibson bridge (standard library only):
    python3 -m unittest discover -s bridge/omnigibson -p 'test_*.py'
test/src/apps/service/python.test.ts runs them, and checks the rest against the TypeScript code and a live server.
"""
import json
import math
import os
import struct
import sys
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import capture  # noqa: E402  (imports without OmniGibson: the simulator is imported inside capture())
import esi3d_bridge as b  # noqa: E402
from esi3d_agent import Rng, wrap_angle  # noqa: E402
from og_hands import manipulation_of  # noqa: E402


def close(a, b_, tol=1e-12):
    return all(abs(x - y) <= tol for x, y in zip(a, b_))


def matvec(E, p):
    return [E[i][0] * p[0] + E[i][1] * p[1] + E[i][2] * p[2] + E[i][3] for i in range(3)]


class Conventions(unittest.TestCase):
    POSES = [((0.5, -1.2, 1.1), 0.0, 0.0), ((1, 2, 0.4), 2.3, -0.5), ((-2, 0.3, 1.8), -1.9, 0.7), ((0, 0, 1), math.pi, -math.pi / 2 + 1e-3)]

    def test_agent_camera_looks_along_yaw_with_opencv_axes(self):
        E = b.extrinsic_from_pose((1, 2, 1.5), 0.0, 0.0)
        # a point 1 m ahead along +X is at z = 1 on the optical axis
        self.assertTrue(close(matvec(E, (2, 2, 1.5)), (0, 0, 1)))
        # a point to the right (-Y when looking along +X) has x > 0; a point above has y < 0 (y down)
        self.assertGreater(matvec(E, (2, 1, 1.5))[0], 0)
        self.assertLess(matvec(E, (2, 2, 2.5))[1], 0)

    def test_usd_camera_round_trip(self):
        for pos, yaw, pitch in self.POSES:
            q = b.usd_camera_quat(yaw, pitch)
            self.assertAlmostEqual(sum(v * v for v in q), 1.0, places=12)
            E1 = b.extrinsic_from_pose(pos, yaw, pitch)
            E2 = b.extrinsic_from_usd_pose(pos, q)
            for r1, r2 in zip(E1, E2):
                self.assertTrue(close(r1, r2, 1e-9), (E1, E2))

    def test_usd_camera_looks_down_minus_z_with_y_up(self):
        # identity orientation: the USD camera looks along world -Z with +Y up, so a point at -Z is in front
        E = b.extrinsic_from_usd_pose((0, 0, 0), (0, 0, 0, 1))
        self.assertTrue(close(matvec(E, (0, 0, -2)), (0, 0, 2)))
        self.assertLess(matvec(E, (0, 1, -2))[1], 0)  # +Y (up) is image-up: y < 0
        self.assertGreater(matvec(E, (1, 0, -2))[0], 0)  # +X is image-right

    def test_intrinsics(self):
        K = b.intrinsics_from_hfov(518, 392, 70)
        self.assertEqual((K["cx"], K["cy"]), (258.5, 195.5))
        self.assertAlmostEqual(2 * math.degrees(math.atan(259 / K["fx"])), 70, places=10)

    def test_wrap_angle_matches_javascript_remainder(self):
        self.assertAlmostEqual(wrap_angle(3 * math.pi), math.pi)
        self.assertAlmostEqual(wrap_angle(-3 * math.pi + 1e-9), -math.pi + 1e-9)
        self.assertAlmostEqual(wrap_angle(-7.0), -7.0 + 2 * math.pi)

    def test_rng_is_deterministic(self):
        a, c = Rng("seed/x"), Rng("seed/x")
        self.assertEqual([a.next_uint32() for _ in range(5)], [c.next_uint32() for _ in range(5)])
        self.assertTrue(all(0 <= Rng("s").next() < 1 for _ in range(100)))


def read_png(data):
    """Minimal PNG reader for our encoder's output (filter 0 rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    off, idat, ihdr = 8, b"", None
    while off < len(data):
        n = struct.unpack(">I", data[off:off + 4])[0]
        kind, body = data[off + 4:off + 8], data[off + 8:off + 8 + n]
        crc = struct.unpack(">I", data[off + 8 + n:off + 12 + n])[0]
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        off += 12 + n
    return ihdr, zlib.decompress(idat)


class Encoding(unittest.TestCase):
    def test_png_rgb8_and_gray16(self):
        w, h = 3, 2
        rgb = bytes(range(18))
        ihdr, raw = read_png(b.png_rgb8(w, h, rgb))
        self.assertEqual(ihdr[:4], (3, 2, 8, 2))
        self.assertEqual(raw, b"\x00" + rgb[:9] + b"\x00" + rgb[9:])
        ihdr, raw = read_png(b.png_gray16(w, h, [0, 1, 256, 65535, 17, 4000]))
        self.assertEqual(ihdr[:4], (3, 2, 16, 0))
        self.assertEqual(raw, b"\x00" + struct.pack(">HHH", 0, 1, 256) + b"\x00" + struct.pack(">HHH", 65535, 17, 4000))
        with self.assertRaises(ValueError):
            b.png_rgb8(w, h, rgb[:-1])

    def test_depth_layout(self):
        d = b.depth_f32le([1.5, float("inf"), float("nan"), -1.0, 0.0, 2.25])
        self.assertEqual(struct.unpack("<6f", d), (1.5, 0.0, 0.0, 0.0, 0.0, 2.25))

    def test_view_layout(self):
        header = {"intrinsics": {"fx": 1, "fy": 1, "cx": 0, "cy": 0}, "extrinsic": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], "action": None}
        v = b.encode_view(header, b"RGB", b"DEPTH123", b"ID")
        magic, hl, al, dl, il = struct.unpack("<8sIIII", v[:24])
        self.assertEqual(magic, b"ESI3DVW1")
        self.assertEqual((al, dl, il), (3, 8, 2))
        self.assertEqual(json.loads(v[24:24 + hl]), header)
        self.assertEqual(v[24 + hl:], b"RGBDEPTH123ID")
        self.assertEqual(len(v), 24 + hl + al + dl + il)


class CaptureHelpers(unittest.TestCase):
    TASK = {
        "task_id": "t-1",
        "scene": "builtin-living_room",
        "camera": {"width": 64, "height": 48, "hfov_deg": 70},
        "agent_initial": {"position": [0, 0, 1.2], "yaw": 0.5, "pitch": -0.2},
        "objects": [
            {"id": 16, "category": "mug", "model": "mug/0", "scale": 1.1, "extent": [0.1, 0.08, 0.1], "position": [1, 0, 0.05], "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}},
            {"id": 17, "category": "table", "model": "table/2", "scale": [1, 1.2, 1], "position": [1, 1, 0.4], "orientation": {"x": 0, "y": 0, "z": 0.38268343, "w": 0.92387953}},
            {"id": 18, "category": "bottle_of_lime_juice", "model": "ouuhaa", "scale": 1, "extent": None, "position": [2, 1, 0.1], "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}},
        ],
    }

    def test_env_config(self):
        cfg = capture.env_config(self.TASK)
        json.dumps(cfg)  # plain JSON-able data
        self.assertEqual(cfg["scene"], {"type": "Scene"})
        self.assertEqual([o["name"] for o in cfg["objects"]], ["esi3d_16", "esi3d_17", "esi3d_18"])
        # sized by the box where the extent is known (bounding_box), by the native-relative scale otherwise
        self.assertEqual(cfg["objects"][0]["bounding_box"], [0.1, 0.08, 0.1])
        self.assertNotIn("scale", cfg["objects"][0])
        self.assertEqual(cfg["objects"][1]["scale"], [1, 1.2, 1])
        self.assertEqual((cfg["objects"][1]["category"], cfg["objects"][1]["model"]), ("table", "2"))
        # a bare BEHAVIOR model id takes the object's category (D4)
        self.assertEqual((cfg["objects"][2]["category"], cfg["objects"][2]["model"]), ("bottle_of_lime_juice", "ouuhaa"))
        # positions are applied after loading (by box centre), not through the config
        self.assertTrue(all("position" not in o and "orientation" not in o for o in cfg["objects"]))
        cam = cfg["env"]["external_sensors"][0]
        self.assertEqual(cam["modalities"], ["rgb", "depth_linear", "seg_instance"])
        self.assertEqual(cam["sensor_kwargs"], {"image_height": 48, "image_width": 64})
        # D1: OmniGibson >= 1.1.1 pops position / orientation / pose_frame; the pre-1.1.1 keys would reach create_sensor
        self.assertNotIn("local_position", cam)
        self.assertNotIn("local_orientation", cam)
        self.assertEqual(cam["pose_frame"], "scene")
        self.assertTrue(close(cam["orientation"], b.usd_camera_quat(0.5, -0.2)))
        real = dict(self.TASK, scene="Rs_int")
        self.assertEqual(capture.env_config(real)["scene"], {"type": "InteractiveTraversableScene", "scene_model": "Rs_int"})
        imported = dict(self.TASK, scene="Rs_int", room={"id": "kitchen_0"}, provenance={"dataset": "esi-bench"})
        self.assertEqual(capture.env_config(imported)["scene"], {"type": "InteractiveTraversableScene", "scene_model": "Rs_int", "load_room_instances": ["kitchen_0"], "not_load_object_categories": ["ceilings", "carpet", "walls"]})
        self.assertEqual(capture.env_config(imported)["objects"][0]["scale"], [1.1, 1.1, 1.1])

    def test_ids_and_refusals(self):
        self.assertEqual([capture.label_to_id(x) for x in ("esi3d_16", "esi3d_x", "floors_abc", "groundPlane", "walls_1", "ceilings_0", "background")], [16, 0, 1, 1, 2, 0, 0])
        with self.assertRaisesRegex(capture.TaskError, "esi3d's own primitive models"):
            capture.check_task(dict(self.TASK, simulator="esi3d-builtin/1", answer_format="yes_no"))
        with self.assertRaisesRegex(capture.TaskError, "answer_format: parts"):
            capture.check_task(dict(self.TASK, simulator="esi-bench/omnigibson", answer_format="parts"))
        with self.assertRaisesRegex(capture.TaskError, "agent_initial"):
            capture.check_task(dict(self.TASK, simulator="esi-bench/omnigibson", agent_initial=None, answer_format="choice"))

    def test_versions_and_sensor_shapes(self):
        class Og:
            __version__ = "3.9.2"
        self.assertEqual(capture.og_version(Og), (3, 9, 2))
        Og.__version__ = "1.1.0"
        self.assertLess(capture.og_version(Og), capture.MIN_VERSION)

        class Env:
            external_sensors = [{"esi3d_camera": "cam"}]
        self.assertEqual(capture.external_camera(Env), "cam")
        Env.external_sensors = {"esi3d_camera": "cam2"}
        self.assertEqual(capture.external_camera(Env), "cam2")


class HandsText(unittest.TestCase):
    def test_manipulation_of_reads_the_servers_canonical_text(self):
        self.assertEqual(manipulation_of("put_on(red mug, n7)"), ("put_on", ["red mug", "n7"]))
        self.assertEqual(manipulation_of("open(#57)"), ("open", ["#57"]))
        self.assertIsNone(manipulation_of("turn_left"))
        self.assertIsNone(manipulation_of("fly(up)"))

    def test_upload_view_header_carries_the_action_result_and_acted_on(self):
        sent = {}
        client = b.Esi3dClient("http://127.0.0.1:9")
        client._request = lambda method, path, body=None, content_type=None, retry_connect=True: sent.update(body=body) or {}
        client.upload_view("s-1", 1, {"fx": 1, "fy": 1, "cx": 0, "cy": 0}, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], "pick_up(mug)", b"", b"", b"", pose={"position": [0, 0, 1], "yaw": 0, "pitch": 0}, blocked=False, action_result="ok", acted_on=[17])
        _, h_len, _, _, _ = b.VIEW_PREAMBLE.unpack(sent["body"][: b.VIEW_PREAMBLE.size])
        header = json.loads(sent["body"][b.VIEW_PREAMBLE.size : b.VIEW_PREAMBLE.size + h_len])
        self.assertEqual((header["action"], header["action_result"], header["acted_on"]), ("pick_up(mug)", "ok", [17]))
        self.assertNotIn("moved", header)

    def test_upload_view_header_carries_the_moved_objects_as_the_resolved_task_has_them(self):
        sent = {}
        client = b.Esi3dClient("http://127.0.0.1:9")
        client._request = lambda method, path, body=None, content_type=None, retry_connect=True: sent.update(body=body) or {}
        resolved = {"objects": [{"id": 17, "position": [1, 2.5, 0.75], "orientation": {"x": 0, "y": 0, "z": 0.5, "w": 0.866}}, {"id": 18, "position": [0, 0, 0], "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}}]}
        moved = [capture.moved_of(resolved, 17)]
        client.upload_view("s-1", 2, {"fx": 1, "fy": 1, "cx": 0, "cy": 0}, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], "turn_left", b"", b"", b"", pose={"position": [0, 0, 1], "yaw": 0, "pitch": 0}, blocked=False, moved=moved)
        _, h_len, _, _, _ = b.VIEW_PREAMBLE.unpack(sent["body"][: b.VIEW_PREAMBLE.size])
        header = json.loads(sent["body"][b.VIEW_PREAMBLE.size : b.VIEW_PREAMBLE.size + h_len])
        self.assertEqual(header["moved"], [{"id": 17, "position": [1.0, 2.5, 0.75], "orientation": {"x": 0.0, "y": 0.0, "z": 0.5, "w": 0.866}}])
        # an orientation left out stays out (the server keeps the last the object had)
        self.assertEqual(b.moved_entry({"id": 18, "position": [0, 0, 0]}), {"id": 18, "position": [0.0, 0.0, 0.0]})


if __name__ == "__main__":
    unittest.main()
