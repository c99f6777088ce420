import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { writeBundle } from "../../../bridge/bundle/io.js";
import { readPly } from "../../../reconstruct/ply.js";
import { readRecords } from "../../../src/eval/records.js";
import { writeTinyVggt } from "../../helpers/tiny-vggt-onnx.js";
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

  it("esi3d run --source vggt completes with the model given", () => {
    const r = esi3d(["run", "--per-subcategory", "1", "--subcategories", "linear_alignment", "--paradigm", "single", "--source", "vggt", "--vggt-model", model, "--device", "cpu", "--out", join(dir, "run")]);
    expect(r.code, r.stderr).toBe(0);
    const recs = readRecords(join(dir, "run", "items.jsonl")).records;
    expect(recs.map((x) => x.key).sort()).toEqual(["linear_alignment-000|single|2d", "linear_alignment-000|single|3d:vggt"]);
    expect(r.stdout).toMatch(/VGGT-3D/);
  });
});
