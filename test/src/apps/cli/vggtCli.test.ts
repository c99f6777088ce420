import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { readBundle, writeBundle } from "../../../../core/bundle/io.js";
import { readPly } from "../../../reconstruct/readPly.js";
import { readRecords } from "../../../../src/eval/records.js";
import { writeTinyVggt } from "../../../helpers/tinyVggtOnnx.js";
import { esi3d } from "./helpers.js";

describe("the vggt source from the command line (tiny ONNX model with VGGT's I/O, built here)", () => {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-vggt-cli-"));
  const model = writeTinyVggt({ shape: "dynamic" });

  it("esi3d points --source vggt runs ONNX Runtime, falls back from CUDA to CPU once, and writes the cloud", () => {
    const task = generateTask("linear_alignment", "vggt-cli", 0);
    const { manifest, payloads } = captureBundle(task, "single");
    writeBundle(join(dir, "b"), manifest, payloads);
    const r = esi3d(["points", join(dir, "b"), "--source", "vggt", "--vggt-model", model, "--device", "cuda", "-o", join(dir, "c.ply")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/falling back to CPU/g)?.length).toBe(1);
    expect(r.stdout).toMatch(/source vggt/);
    expect(r.stdout).toMatch(/alignScale=/);
    const c = readPly(join(dir, "c.ply"));
    // VGGT's demo default drops the lowest 50 % of confidences (ties at the percentile are kept, as numpy's rule does)
    expect(c.count).toBeGreaterThan(0);
    expect(c.count).toBeLessThan(518 * 392);
  });

  it("esi3d points --cameras writes the decoded cameras (schema-checked JSON); other sources refuse it before any work", () => {
    const cams = join(dir, "cams.json");
    const r = esi3d(["points", join(dir, "b"), "--source", "vggt", "--vggt-model", model, "--device", "cpu", "-o", join(dir, "c2.ply"), "--cameras", cams]);
    expect(r.code, r.stderr).toBe(0);
    // the writer checks the file against its schema before writing; here, what it says
    const file = JSON.parse(readFileSync(cams, "utf8")) as {
      format: string;
      conventions: { frame: string };
      views: Array<{ view: number; extrinsic: number[][]; width: number; height: number; cx: number; cy: number; fx: number; model: object }>;
      droppedViews: unknown[];
    };
    expect(file.format).toBe("esi3d-vggt-cameras/1");
    expect(file.droppedViews).toEqual([]);
    const manifest = readBundle(join(dir, "b")).manifest;
    expect(file.views.map((v) => v.view)).toEqual(manifest.views.map((v) => v.index));
    expect(file.conventions.frame).toMatch(/^world/);
    // One view: aligned by camera 0's known pose, so the decoded extrinsic is the bundle's.
    const E = manifest.views[0]!.extrinsic;
    file.views[0]!.extrinsic.forEach((row, i) => row.forEach((x, k) => expect(x).toBeCloseTo(E[i]![k]!, 5)));
    // The tiny model's FoV 2·atan(0.5) gives f = the model width and height; 518x392 crops 1:1, principal point W/2, H/2.
    expect(file.views[0]).toMatchObject({ width: 518, height: 392, cx: 259, cy: 196 });
    expect(file.views[0]!.fx).toBeCloseTo(518, 3);
    expect(file.views[0]!.model).toMatchObject({ width: 518, height: 392, cx: 259, cy: 196 });
    const gt = esi3d(["points", join(dir, "b"), "--source", "gt", "-o", join(dir, "gt.ply"), "--cameras", join(dir, "gt-cams.json")]);
    expect(gt.code).toBe(2);
    expect(gt.stderr).toMatch(/--cameras: only --source vggt decodes cameras/);
    expect(existsSync(join(dir, "gt.ply"))).toBe(false);
  });

  it("a missing, truncated or wrong-shape model exits 2 before any work, naming the file and the expected inputs and outputs", () => {
    const bad = mkdtempSync(join(tmpdir(), "esi3d-vggt-badmodel-"));
    const good = writeTinyVggt({ shape: "dynamic", externalData: { location: "vggt.onnx_data" } }, "vggt.onnx");
    const truncatedGraph = join(bad, "cut.onnx");
    const bytes = readFileSync(good);
    writeFileSync(truncatedGraph, bytes.subarray(0, bytes.length >> 1));
    const truncatedData = join(mkdtempSync(join(tmpdir(), "esi3d-vggt-cutdata-")), "vggt.onnx");
    writeFileSync(truncatedData, bytes);
    writeFileSync(join(truncatedData, "..", "vggt.onnx_data"), readFileSync(join(good, "..", "vggt.onnx_data")).subarray(0, 64));
    const wrongShape = writeTinyVggt({ shape: "dynamic", declaredDims: { world_points: [1, "S", "H", "W", 4] } });
    const cases: [string, RegExp][] = [
      [join(bad, "missing.onnx"), /VGGT model not found/],
      [truncatedGraph, /not a complete ONNX file.*truncated/],
      [truncatedData, /has 64 bytes, but the graph reads up to byte/],
      [wrongShape, /output "world_points" ends in 4, expected 3/],
    ];
    for (const [path, why] of cases) {
      for (const cmd of [
        ["points", join(dir, "b"), "--source", "vggt", "--vggt-model", path, "--device", "cpu", "-o", join(bad, "x.ply")],
        [
          "run",
          "--per-subcategory",
          "1",
          "--subcategories",
          "linear_alignment",
          "--paradigm",
          "single",
          "--source",
          "vggt",
          "--vggt-model",
          path,
          "--device",
          "cpu",
          "--out",
          join(bad, "run"),
        ],
      ]) {
        const r = esi3d(cmd);
        expect(r.code, `${cmd[0]} ${path}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(why);
        expect(r.stderr).toContain(path);
        expect(r.stderr).toContain('input "input_images" float32 [S,3,H,W]');
        expect(r.stderr).toContain('"world_points" [1,S,H,W,3]');
        expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      }
      expect(existsSync(join(bad, "x.ply"))).toBe(false);
      expect(existsSync(join(bad, "run", "items.jsonl"))).toBe(false);
    }
  });

  it("esi3d run --source vggt completes with the model given, and says once that CUDA fell back to CPU", () => {
    const r = esi3d([
      "run",
      "--per-subcategory",
      "2",
      "--subcategories",
      "linear_alignment",
      "--paradigm",
      "single",
      "--source",
      "vggt",
      "--vggt-model",
      model,
      "--device",
      "cuda",
      "--out",
      join(dir, "run"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    // two units, two 3D arms each: one line, from the first session
    expect(r.stderr.match(/CUDA execution provider unavailable[^\n]*falling back to CPU/g)?.length, r.stderr).toBe(1);
    const recs = readRecords(join(dir, "run", "items.jsonl")).records;
    expect(recs.map((x) => x.key).sort()).toEqual(
      ["000", "001"].flatMap((i) => [
        `linear_alignment-${i}|single|2d`,
        `linear_alignment-${i}|single|3d:vggt`,
        `linear_alignment-${i}|single|3d:vggt-appearance`,
        `linear_alignment-${i}|single|shortcut`,
      ]),
    );
    expect(r.stdout).toMatch(/VGGT-3D/);
  });
});
