/**
 * The Python side of the simulator protocol (bridge/omnigibson), run with Debian's /usr/bin/python3 and
 * nothing but its standard library:
 * - the client streams a bundle rendered by the built-in simulator to a live `esi3d serve`, view by view,
 *   and the finished bundle is byte-identical to the original, file by file;
 * - its PNG encoders and view layout are read back by the server's own decoders;
 * - esi3d_agent.py places the camera exactly where bridge/sim/views.ts does (single, multi, gt);
 * - its unit tests (conventions, USD camera conversion, capture.py's helpers) pass.
 */
import { describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import type { Task } from "../../../../core/task/schema.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { writeBundle } from "../../../../core/bundle/io.js";
import { decodePng } from "../../../../core/bundle/png.js";
import { paradigmViews } from "../../../../bridge/sim/views.js";
import { poseToExtrinsic } from "../../../../core/math/camera.js";
import { parseView } from "../../../../src/apps/service/viewCodec.js";
import { REPO_ROOT } from "../cli/helpers.js";
import { importRecords } from "../../../../bridge/esibench/importer.js";
import { proxyTask } from "../../../../bridge/esibench/proxy.js";
import { startServe, tempDir } from "./helpers.js";
import { needs } from "../../../helpers/system.js";

const python = needs("python3");

const PYTHON = "/usr/bin/python3";
const BRIDGE = join(REPO_ROOT, "bridge", "omnigibson");
// stdlib only: no site packages, no user site, no bytecode files left in the repository
const PY_ENV = { ...process.env, PYTHONNOUSERSITE: "1", PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: BRIDGE };
const PY_FLAGS = ["-S"];

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/** Compares esi3d_agent.py's view sets with bridge/sim/views.ts for every paradigm; returns the views compared. */
function sameViewsInPython(tasks: Task[], dir: string): number {
  let views = 0;
  for (const task of tasks) {
    const file = join(dir, `${task.task_id}.json`);
    writeFileSync(file, JSON.stringify(task));
    for (const paradigm of ["single", "multi", "gt"] as const) {
      const ts = paradigmViews(task, paradigm);
      const py = execFileSync(PYTHON, [...PY_FLAGS, join(BRIDGE, "esi3d_agent.py"), file, paradigm], { env: PY_ENV, encoding: "utf8" })
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { action: string | null; extrinsic: number[][] });
      expect(py.length, `${task.task_id} ${paradigm}`).toBe(ts.length);
      ts.forEach((v, k) => {
        expect(py[k]!.action, `${task.task_id} ${paradigm} view ${k}`).toBe(v.action);
        const E = poseToExtrinsic(v.pose);
        E.forEach((row, a) =>
          row.forEach((x, b) => expect(Math.abs(x - py[k]!.extrinsic[a]![b]!), `${task.task_id} ${paradigm} view ${k}`).toBeLessThan(1e-9)),
        );
        views++;
      });
    }
  }
  return views;
}

describe.skipIf(python.skip)(python.title("bridge/omnigibson (Python, standard library only)"), () => {
  it("streams a built-in bundle to a live server view by view; the finished bundle is byte-identical", async () => {
    const dir = tempDir("py-upload");
    const original = join(dir, "original");
    const task = generateTask("counting_with_occlusion", "python-client", 0);
    const { manifest, payloads } = captureBundle(task, "gt");
    writeBundle(original, manifest, payloads);
    const s = await startServe(["--cpu-jobs", "1"]);
    try {
      const r = spawnSync(PYTHON, [...PY_FLAGS, join(BRIDGE, "esi3d_bridge.py"), "upload", original, "--server", s.url], {
        env: PY_ENV,
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ task_id: task.task_id, paradigm: "gt", views: manifest.views.length });
      expect(r.stderr.split("\n").filter((l) => /^view \d+: \d+ bytes$/.test(l)).length).toBe(manifest.views.length);
      const served = join(s.data, "bundles", out.bundle);
      const names = files(original);
      expect(files(served)).toEqual(names);
      expect(names.length).toBe(1 + 3 * manifest.views.length);
      for (const f of names) expect(readFileSync(join(served, f)).equals(readFileSync(join(original, f))), relative(dir, join(served, f))).toBe(true);
      // the client's errors name the field and exit 2
      const bad = spawnSync(PYTHON, [...PY_FLAGS, join(BRIDGE, "esi3d_bridge.py"), "upload", join(dir, "nowhere"), "--server", s.url], {
        env: PY_ENV,
        encoding: "utf8",
      });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/No such file/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("encodes PNGs, depth and the view layout as the server reads them", () => {
    const dir = tempDir("py-encode");
    const script = `
import esi3d_bridge as b
W, H = 7, 5
rgb = bytes((i * 37) % 256 for i in range(W * H * 3))
ids = [(i * 997) % 65536 for i in range(W * H)]
depth = [0.5 + i / 10 for i in range(W * H)]
K = b.intrinsics_from_hfov(W, H, 60)
E = b.extrinsic_from_usd_pose([1, 2, 1.5], b.usd_camera_quat(0.3, -0.2))
open("${dir}/view.bin", "wb").write(b.encode_view({"intrinsics": K, "extrinsic": E, "action": "turn_left"}, b.png_rgb8(W, H, rgb), b.depth_f32le(depth), b.png_gray16(W, H, ids)))
`;
    execFileSync(PYTHON, [...PY_FLAGS, "-c", script], { env: PY_ENV });
    const W = 7,
      H = 5;
    const parts = parseView(readFileSync(join(dir, "view.bin")), 0, { width: W, height: H });
    expect(parts.header.action).toBe("turn_left");
    expect(parts.header.intrinsics).toEqual({
      fx: expect.closeTo(W / 2 / Math.tan(Math.PI / 6), 12),
      fy: expect.closeTo(W / 2 / Math.tan(Math.PI / 6), 12),
      cx: 3,
      cy: 2,
    });
    const E = poseToExtrinsic({ position: [1, 2, 1.5], yaw: 0.3, pitch: -0.2 });
    parts.header.extrinsic.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(E[i]![j]!, 9)));
    const rgb = decodePng(parts.rgb);
    expect(rgb).toMatchObject({ width: W, height: H, channels: 3, bitDepth: 8 });
    expect([...rgb.data]).toEqual(Array.from({ length: W * H * 3 }, (_, i) => (i * 37) % 256));
    const ids = decodePng(parts.inst);
    expect(ids).toMatchObject({ width: W, height: H, channels: 1, bitDepth: 16 });
    expect([...ids.data]).toEqual(Array.from({ length: W * H }, (_, i) => (i * 997) % 65536));
    const depth = new Float32Array(parts.depth.buffer.slice(parts.depth.byteOffset, parts.depth.byteOffset + parts.depth.byteLength));
    expect([...depth]).toEqual(Array.from({ length: W * H }, (_, i) => Math.fround(0.5 + i / 10)));
  });

  it("places the camera where the built-in simulator does: single, multi (the seeded walk) and gt", () => {
    const tasks = (
      [
        ["spatial_distance", 0],
        ["counting_with_occlusion", 1],
        ["spatial_segmentation", 0],
        ["linear_alignment", 2],
      ] as const
    ).map(([sub, i]) => generateTask(sub, "python-agent", i));
    expect(sameViewsInPython(tasks, tempDir("py-agent"))).toBeGreaterThan(4 * 31);
  });

  it("places the camera where the built-in simulator does for imported ESI-Bench tasks (rooms at world bounds, 0.02 m camera floor, gt from candidate views)", () => {
    const imported = importRecords(join(REPO_ROOT, "fixtures", "esi-bench")).imported;
    const tasks = ["2805", "0398", "1145"].map((id) => {
      const p = proxyTask(imported.find((x) => x.record.raw.id === id)!.task!);
      if ("skip" in p) throw new Error(p.skip);
      return p.task;
    });
    expect(sameViewsInPython(tasks, tempDir("py-agent-esi"))).toBeGreaterThan(3 * 31);
  });

  it("passes its own unit tests (conventions, USD camera conversion, capture.py helpers without OmniGibson)", () => {
    const r = spawnSync(PYTHON, [...PY_FLAGS, "-m", "unittest", "discover", "-s", BRIDGE, "-p", "test_*.py"], { env: PY_ENV, encoding: "utf8", cwd: BRIDGE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Ran \d+ tests/);
    expect(r.stderr).toMatch(/\nOK\n?$/);
  });
});
