#!/usr/bin/env python3
"""
esi3d_bridge: a client for the esi3d capture protocol (docs/protocol.md), standard library only
(urllib, json, struct, zlib), so any simulator's Python can stream views to `esi3d serve`.

    client = Esi3dClient("http://127.0.0.1:8080", token=None)
    s = client.open_session(task=task_record, paradigm="gt", simulator="omnigibson/1.1")
    for n, view in enumerate(views):
        client.upload_view(s["id"], n, intrinsics, extrinsic, action, rgb_png, depth_f32le, inst_png)
    bundle = client.finish(s["id"], views=len(views))["bundle"]

and, for the active paradigm, serves the steps of an episode the server runs (the server chooses each action):

    s = client.open_session(task=task_record, paradigm="active", simulator="omnigibson/3.9", episode={"explorer": "nbv"})
    out = serve_episode(client, s["id"], first_view, step)   # first_view() / step(action, objects) -> ActiveView

An action is canonical text: a camera move ("turn_left") or a manipulation with its objects ("open(n3)",
"put_on(red mug, table)"); a manipulation's objects also come beside it, each {"text", "near"?}, `near` being
the agent's graph node ({"node", "point", "label"}) when the text names one (docs/protocol.md "The hands").

It also has the pieces a simulator needs to produce views in esi3d's conventions (docs/conventions.md):
PNG encoders for 8-bit RGB and 16-bit greyscale, the float32 little-endian depth layout, the camera of an
agent pose, and the conversion from a USD / Isaac Sim / OmniGibson camera pose (looks down -Z, +Y up) to
the OpenCV camera-from-world extrinsic esi3d uses (x right, y down, z forward).

Command line:
    python3 esi3d_bridge.py upload BUNDLE_DIR --server URL [--token T]   stream an existing bundle view by view
    python3 esi3d_bridge.py health --server URL
"""
import argparse
import json
import math
import os
import struct
import sys
import time
import urllib.error
import urllib.request
import zlib
from array import array

VIEW_CONTENT_TYPE = "application/vnd.esi3d.view"
VIEW_MAGIC = b"ESI3DVW1"
# magic, then uint32 LE lengths of: JSON header, RGB PNG, depth, instance PNG
VIEW_PREAMBLE = struct.Struct("<8sIIII")

# Retries of a request the server refused with 503 (honouring Retry-After) or that failed to connect.
DEFAULT_MAX_RETRIES = 8
# Longest wait between retries (s), whatever Retry-After says.
MAX_RETRY_WAIT_S = 60.0
# Per-request socket timeout (s): finishing a 30-view bundle or building a graph takes seconds.
DEFAULT_TIMEOUT_S = 300.0
# GET .../action long-polls this long (s) per request (the server's default; at most 30)
ACTION_WAIT_S = 20
# zlib level of our PNG encoder: fast; the server re-encodes bundles with its own level anyway.
PNG_ZLIB_LEVEL = 1


class Esi3dError(Exception):
    """An error answer of the server: HTTP status, error code, message naming the field."""

    def __init__(self, status, code, message, field=None):
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


# ------------------------------------------------------------------------------------------ binary layout


def encode_view(header, rgb_png, depth_f32le, inst_png):
    """The binary view layout: preamble, JSON header (intrinsics, extrinsic, action), RGB PNG, depth, id PNG."""
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    pre = VIEW_PREAMBLE.pack(VIEW_MAGIC, len(h), len(rgb_png), len(depth_f32le), len(inst_png))
    return b"".join([pre, h, bytes(rgb_png), bytes(depth_f32le), bytes(inst_png)])


def _png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _png(width, height, bit_depth, colour_type, row_bytes, raw):
    if len(raw) != row_bytes * height:
        raise ValueError(f"expected {row_bytes * height} bytes of pixels for {width}x{height}, got {len(raw)}")
    # filter type 0 (none) on every row
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        rows += raw[y * row_bytes:(y + 1) * row_bytes]
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return b"".join([b"\x89PNG\r\n\x1a\n", _png_chunk(b"IHDR", ihdr), _png_chunk(b"IDAT", zlib.compress(bytes(rows), PNG_ZLIB_LEVEL)), _png_chunk(b"IEND", b"")])


def png_rgb8(width, height, rgb):
    """An 8-bit RGB PNG from width*height*3 bytes (row-major, R G B)."""
    return _png(width, height, 8, 2, width * 3, bytes(rgb))


def png_gray16(width, height, ids):
    """A 16-bit greyscale PNG from width*height instance ids (any sequence of ints 0..65535)."""
    a = array("H", ids)
    if sys.byteorder == "little":
        a.byteswap()  # PNG samples are big-endian
    return _png(width, height, 16, 0, width * 2, a.tobytes())


def depth_f32le(depth):
    """Depth (m, z-depth) as float32 little-endian bytes; non-finite or negative values become 0 (no measurement)."""
    a = array("f", (float(d) if math.isfinite(d) and d > 0 else 0.0 for d in depth))
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


# ------------------------------------------------------------------------------------------ conventions


def intrinsics_from_hfov(width, height, hfov_deg):
    """A centred pinhole camera with square pixels; pixel (i, j) has its centre at (u, v) = (i, j)."""
    f = width / 2 / math.tan(hfov_deg * math.pi / 360)
    return {"fx": f, "fy": f, "cx": (width - 1) / 2, "cy": (height - 1) / 2}


def camera_axes(yaw, pitch):
    """Camera x (right), y (down), z (forward) in the world (Z up) for an agent yaw / pitch (roll 0)."""
    cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    forward = [cp * cy, cp * sy, sp]
    right = [sy, -cy, 0.0]
    down = [
        forward[1] * right[2] - forward[2] * right[1],
        forward[2] * right[0] - forward[0] * right[2],
        forward[0] * right[1] - forward[1] * right[0],
    ]
    return right, down, forward


def _extrinsic(rows, centre):
    t = [-(r[0] * centre[0] + r[1] * centre[1] + r[2] * centre[2]) for r in rows]
    return [[rows[i][0], rows[i][1], rows[i][2], t[i]] for i in range(3)]


def extrinsic_from_pose(position, yaw, pitch):
    """Camera-from-world [R | t] (OpenCV axes) of an agent pose: X_cam = R X_world + t."""
    right, down, forward = camera_axes(yaw, pitch)
    return _extrinsic([right, down, forward], position)


def quat_to_mat(x, y, z, w):
    """Rotation matrix (row-major) of a quaternion, scalar last; normalises implicitly."""
    s = 2 / (x * x + y * y + z * z + w * w)
    return [
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ]


def mat_to_quat(m):
    """Quaternion (x, y, z, w) of a rotation matrix, w >= 0 (Shepperd's method)."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1) * 2
        w, x, y, z = 0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]) * 2
        w, x, y, z = (m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1 + m[1][1] - m[0][0] - m[2][2]) * 2
        w, x, y, z = (m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s
    else:
        s = math.sqrt(1 + m[2][2] - m[0][0] - m[1][1]) * 2
        w, x, y, z = (m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s
    if w < 0:
        x, y, z, w = -x, -y, -z, -w
    return x, y, z, w


def usd_camera_quat(yaw, pitch):
    """
    World orientation (x, y, z, w) to give a USD / Isaac Sim / OmniGibson camera so it sees what our agent
    pose sees. A USD camera looks down its -Z axis with +Y up and +X right, so its axes in the world are
    (right, -down, -forward) of our OpenCV camera: columns of the world-from-USD-camera rotation.
    """
    right, down, forward = camera_axes(yaw, pitch)
    up = [-d for d in down]
    back = [-f for f in forward]
    m = [[right[i], up[i], back[i]] for i in range(3)]
    return mat_to_quat(m)


def extrinsic_from_usd_pose(position, quat_xyzw):
    """
    Camera-from-world extrinsic (OpenCV axes) of a USD camera with world position and orientation (x, y, z,
    w). Columns of the world-from-USD rotation are the camera's +X (right), +Y (up), +Z (backward) in the
    world; OpenCV's x right, y down, z forward are +X, -Y, -Z, so R (camera-from-world) has rows X, -Y, -Z.
    """
    m = quat_to_mat(*quat_xyzw)
    x_axis = [m[0][0], m[1][0], m[2][0]]
    y_axis = [m[0][1], m[1][1], m[2][1]]
    z_axis = [m[0][2], m[1][2], m[2][2]]
    rows = [x_axis, [-v for v in y_axis], [-v for v in z_axis]]
    return _extrinsic(rows, position)


# ------------------------------------------------------------------------------------------ HTTP client


class Esi3dClient:
    def __init__(self, base_url, token=None, timeout=DEFAULT_TIMEOUT_S, max_retries=DEFAULT_MAX_RETRIES, log=None):
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else os.environ.get("ESI3D_TOKEN")
        self.timeout = timeout
        self.max_retries = max_retries
        self.log = log or (lambda line: None)

    def _request(self, method, path, body=None, content_type=None, retry_connect=True):
        """One request with retries: 503 waits Retry-After; connection failures retry when `retry_connect`."""
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            if isinstance(body, (bytes, bytearray)):
                data = bytes(body)
                headers["Content-Type"] = content_type or "application/octet-stream"
            else:
                data = json.dumps(body).encode("utf-8")
                headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        attempt = 0
        while True:
            req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    raw = res.read()
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as e:
                raw = e.read()
                try:
                    err = json.loads(raw).get("error", {})
                except ValueError:
                    err = {"code": "http_error", "message": raw.decode("utf-8", "replace")[:300]}
                if e.code == 503 and attempt < self.max_retries:
                    wait = min(MAX_RETRY_WAIT_S, float(e.headers.get("Retry-After") or 1))
                    self.log(f"{method} {path}: 503 busy, retrying in {wait:.0f} s")
                    time.sleep(wait)
                    attempt += 1
                    continue
                raise Esi3dError(e.code, err.get("code", "error"), err.get("message", ""), err.get("field")) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                if retry_connect and attempt < self.max_retries:
                    wait = min(MAX_RETRY_WAIT_S, 0.5 * 2 ** attempt)
                    self.log(f"{method} {path}: {e}; retrying in {wait:.1f} s")
                    time.sleep(wait)
                    attempt += 1
                    continue
                raise

    def health(self):
        return self._request("GET", "/healthz")

    def put_task(self, task):
        return self._request("PUT", f"/v1/tasks/{task['task_id']}", task)

    def open_session(self, paradigm, simulator, task=None, task_id=None, image=None, instances=None, episode=None, view_timeout_s=None):
        body = {"paradigm": paradigm, "simulator": simulator}
        if episode is not None:
            body["episode"] = episode
        if view_timeout_s is not None:
            body["view_timeout_s"] = view_timeout_s
        if task is not None:
            body["task"] = task
        if task_id is not None:
            body["task_id"] = task_id
        if image is not None:
            body["image"] = image
        if instances is not None:
            body["instances"] = instances
        # not idempotent: a retry after a lost answer would open a second session (it expires unused)
        return self._request("POST", "/v1/sim/sessions", body, retry_connect=False)

    def upload_view(self, session_id, n, intrinsics, extrinsic, action, rgb_png, depth, inst_png, pose=None, blocked=None, action_result=None, acted_on=None, moved=None):
        """Uploads view n (idempotent: the same n replaces an earlier upload; in an active session the same bytes
        are accepted again). Active sessions also give the agent pose ({position, yaw, pitch}) and `blocked`, and
        may say what came of the action (`action_result`: "ok" or why not), for a manipulation that happened,
        the instance ids it acted on (`acted_on`), and for an action that happened, the objects it moved where
        they are now (`moved`: [{id, position, orientation?}], as the task gives positions; the diagnosis
        judges the graph against them)."""
        header = {"intrinsics": intrinsics, "extrinsic": extrinsic, "action": action}
        if pose is not None:
            header["pose"] = pose
        if blocked is not None:
            header["blocked"] = blocked
        if action_result is not None:
            header["action_result"] = action_result
        if acted_on:
            header["acted_on"] = [int(i) for i in acted_on]
        if moved:
            header["moved"] = [moved_entry(m) for m in moved]
        payload = encode_view(header, rgb_png, depth, inst_png)
        return self._request("PUT", f"/v1/sim/sessions/{session_id}/views/{n}", payload, VIEW_CONTENT_TYPE)

    def finish(self, session_id, views=None, instances=None):
        """Writes the session as a bundle (idempotent: a finished session answers with its bundle)."""
        body = {}
        if views is not None:
            body["views"] = views
        if instances is not None:
            body["instances"] = instances
        return self._request("POST", f"/v1/sim/sessions/{session_id}/finish", body)

    def session(self, session_id):
        return self._request("GET", f"/v1/sim/sessions/{session_id}")

    def next_action(self, session_id, after, wait=ACTION_WAIT_S):
        """The action after view `after` of an active session: asks again while the server answers `wait` (the
        agent is still deciding), so the answer is `act` (apply `action`, upload view `view`), `stop` or `failed`.
        Asking is idempotent: a retry after a lost answer gets the same answer."""
        while True:
            a = self._request("GET", f"/v1/sim/sessions/{session_id}/action?after={int(after)}&wait={wait}")
            if a["next"] != "wait":
                return a

    def item(self, session_id):
        """The item record of an active session's finished episode (the record `esi3d run` writes)."""
        return self._request("GET", f"/v1/sim/sessions/{session_id}/item")

    def graph(self, bundle, **options):
        return self._request("POST", "/v1/graphs", dict(options, bundle=bundle))

    def answer(self, reasoner, graph=None, bundle=None, **options):
        body = dict(options, reasoner=reasoner)
        if graph is not None:
            body["graph"] = graph
        if bundle is not None:
            body["bundle"] = bundle
        return self._request("POST", "/v1/answers", body)


# ------------------------------------------------------------------------------------------ active episodes


def moved_entry(m):
    """One entry of a view header's `moved`: {id, position: [x, y, z], orientation?: {x, y, z, w}} as JSON numbers."""
    out = {"id": int(m["id"]), "position": [float(x) for x in m["position"]]}
    if m.get("orientation") is not None:
        out["orientation"] = {k: float(m["orientation"][k]) for k in ("x", "y", "z", "w")}
    return out


class EpisodeFailed(Esi3dError):
    """The server ended an active episode with an error (the simulator was too slow, a view broke a rule)."""

    def __init__(self, message):
        super().__init__(0, "episode_failed", message)


class ActiveView:
    """One observation a simulator serves: the camera, the agent pose it was taken from ({position: [x, y, z],
    yaw, pitch}, world Z up, m, rad), whether the action was blocked (did not happen), and the encoded images;
    after an action, what came of it (`action_result`: "ok" or why not), for a manipulation that happened,
    the instance ids it acted on (`acted_on`, in the action's order), and for an action that happened, the
    objects it moved where they are now (`moved`: [{id, position, orientation?}])."""

    __slots__ = ("intrinsics", "extrinsic", "pose", "blocked", "rgb_png", "depth", "inst_png", "action_result", "acted_on", "moved")

    def __init__(self, intrinsics, extrinsic, pose, blocked, rgb_png, depth, inst_png, action_result=None, acted_on=None, moved=None):
        self.intrinsics, self.extrinsic, self.pose, self.blocked = intrinsics, extrinsic, pose, blocked
        self.rgb_png, self.depth, self.inst_png = rgb_png, depth, inst_png
        self.action_result, self.acted_on, self.moved = action_result, acted_on, moved


def serve_episode(client, session_id, first_view, step, log=None):
    """Serves an active session's episode (docs/protocol.md "Active sessions"): uploads view 0 from
    first_view(), then asks for each action and uploads the view step(action, objects) gives (objects: the
    manipulation's object references, [] for a camera move), until the server says stop. Returns {"session",
    "bundle", "stop_reason", "views", "actions": [(action, blocked)], "results": [action_result], "item"};
    raises EpisodeFailed when the server failed the episode."""
    log = log or (lambda line: None)
    view, action, n, actions, results = first_view(), None, 0, [], []
    while True:
        try:
            client.upload_view(
                session_id, n, view.intrinsics, view.extrinsic, action, view.rgb_png, view.depth, view.inst_png,
                pose=view.pose, blocked=bool(view.blocked), action_result=view.action_result if n > 0 else None, acted_on=view.acted_on if n > 0 and not view.blocked else None,
                moved=view.moved if n > 0 and not view.blocked else None,
            )
        except Esi3dError as e:
            if e.status != 409:
                raise
            # refused because the episode failed meanwhile (e.g. this simulator was slower than view_timeout_s)
            a = client.next_action(session_id, after=max(0, n - 1), wait=0)
            if a["next"] == "failed":
                raise EpisodeFailed(a.get("error") or e.message) from None
            raise
        a = client.next_action(session_id, after=n)
        if a["next"] == "failed":
            raise EpisodeFailed(a.get("error") or "the episode failed")
        if a["next"] == "stop":
            log(f"episode {session_id}: stop after {n + 1} views ({a['stop_reason']})")
            return {"session": session_id, "bundle": a["bundle"], "stop_reason": a["stop_reason"], "views": n + 1, "actions": actions, "results": results, "item": client.item(session_id)}
        action = a["action"]
        view = step(action, a.get("objects") or [])
        actions.append((action, bool(view.blocked)))
        results.append(view.action_result)
        n += 1
        log(f"episode {session_id}: view {n} after {action}{f' (blocked: {view.action_result})' if view.blocked else ''}")


# ------------------------------------------------------------------------------------------ bundles


def upload_bundle(client, bundle_dir, simulator=None, log=None):
    """Streams an existing frame bundle view by view (its files as they are) and finishes the session."""
    log = log or (lambda line: None)
    with open(os.path.join(bundle_dir, "bundle.json"), "r", encoding="utf-8") as f:
        m = json.load(f)
    s = client.open_session(paradigm=m["paradigm"], simulator=simulator or m["simulator"], task=m["task"], image=m["image"], instances=m["instances"])
    for n, v in enumerate(m["views"]):
        def read(rel):
            with open(os.path.join(bundle_dir, rel), "rb") as fh:
                return fh.read()
        r = client.upload_view(s["id"], n, v["intrinsics"], v["extrinsic"], v["action"], read(v["rgb"]), read(v["depth"]), read(v["instances"]))
        log(f"view {n}: {r['bytes']} bytes")
    return client.finish(s["id"], views=len(m["views"]))


def main(argv=None):
    p = argparse.ArgumentParser(description="esi3d capture-protocol client (docs/protocol.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("upload", help="stream an existing frame bundle to esi3d serve, view by view")
    up.add_argument("bundle", help="frame bundle directory")
    up.add_argument("--simulator", help="simulator name to record (default: the bundle's)")
    for q in (up, sub.add_parser("health", help="GET /healthz")):
        q.add_argument("--server", default="http://127.0.0.1:8080", help="esi3d serve base URL")
        q.add_argument("--token", help="bearer token (default $ESI3D_TOKEN)")
    a = p.parse_args(argv)
    client = Esi3dClient(a.server, token=a.token, log=lambda line: print(line, file=sys.stderr))
    if a.cmd == "health":
        return run_client("esi3d_bridge", client.health)
    return run_client("esi3d_bridge", lambda: upload_bundle(client, a.bundle, simulator=a.simulator, log=lambda line: print(line, file=sys.stderr)))


def run_client(prog, work):
    """Runs work() and prints its result as JSON; a failure becomes one line on stderr and the exit code:
    2 when the server refused the request (4xx: the input is wrong), 1 for a server, file or connection failure."""
    try:
        out = work()
    except Esi3dError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2 if 400 <= e.status < 500 else 1
    except (OSError, urllib.error.URLError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
