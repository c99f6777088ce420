import { describe, expect, it, beforeAll } from "vitest";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../bridge/sim/capture.js";
import { BundleError, readBundle, writeBundle } from "../../bridge/bundle/io.js";
import { encodePng } from "../../bridge/bundle/png.js";
import type { Task } from "../../bridge/task/schema.js";

let task: Task;
let root: string;
let good: string;

beforeAll(() => {
  task = generateTask("physical_contact", "bundle-test", 0);
  root = mkdtempSync(join(tmpdir(), "esi3d-bundle-"));
  good = join(root, "good");
  const { manifest, payloads } = captureBundle(task, "gt");
  writeBundle(good, manifest, payloads);
});

/** A copy of the good bundle, changed by `edit`, then read: returns the error. */
function broken(name: string, edit: (dir: string, manifest: Record<string, any>) => void): BundleError {
  const dir = join(root, name);
  cpSync(good, dir, { recursive: true });
  const mf = join(dir, "bundle.json");
  const m = JSON.parse(readFileSync(mf, "utf8"));
  edit(dir, m);
  if (existsSync(mf)) writeFileSync(mf, JSON.stringify(m));
  try {
    readBundle(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(BundleError);
    return e as BundleError;
  }
  throw new Error(`${name}: bundle was read without error`);
}

describe("frame bundles", () => {
  it("round-trips exactly what was captured", () => {
    const { manifest, payloads } = captureBundle(task, "gt");
    const b = readBundle(good);
    expect(b.manifest).toEqual(JSON.parse(JSON.stringify(manifest)));
    expect(b.views.length).toBe(payloads.length);
    b.views.forEach((v, i) => {
      expect(Buffer.from(v.rgb).equals(Buffer.from(payloads[i]!.rgb))).toBe(true);
      expect(Buffer.from(v.depth.buffer, v.depth.byteOffset, v.depth.byteLength).equals(Buffer.from(payloads[i]!.depth.buffer))).toBe(true);
      expect(Array.from(v.ids)).toEqual(Array.from(payloads[i]!.ids));
    });
  });

  it("names the file and field of each bad input", () => {
    const cases: Array<[string, (dir: string, m: Record<string, any>) => void, RegExp]> = [
      ["truncated-png", (d, m) => truncateSync(join(d, m.views[0].rgb), 100), /000_rgb\.png: views\.0\.rgb: .*truncated/],
      ["wrong-size-image", (d, m) => writeFileSync(join(d, m.views[1].rgb), encodePng(10, 10, 3, 8, new Uint8Array(300))), /001_rgb\.png: views\.1\.rgb: image is 10x10, expected 518x392/],
      ["short-depth", (d, m) => truncateSync(join(d, m.views[0].depth), 1000), /000_depth\.f32: views\.0\.depth: file has 1000 bytes, expected 812224/],
      ["non-finite-rotation", (_d, m) => (m.views[0].extrinsic[0][0] = "NaN"), /bundle\.json: views\.0\.extrinsic/],
      ["non-orthonormal", (_d, m) => (m.views[2].extrinsic[0][0] *= 1.1), /views\.2\.extrinsic: rotation is not orthonormal/],
      ["intrinsics-off-image", (_d, m) => (m.views[0].intrinsics.cx = 900), /views\.0\.intrinsics: principal point \(900, .*\) lies outside the 518x392 image/],
      ["missing-view-file", (d, m) => rmSync(join(d, m.views[1].instances)), /001_inst\.png: views\.1\.instances: file is missing/],
      ["unknown-id", (_d, m) => (m.instances = m.instances.filter((e: { id: number }) => e.id !== 1)), /views\.0\.instances: pixel \(\d+, \d+\) has id 1, which is not in bundle.json "instances"/],
      ["missing-manifest", (d) => rmSync(join(d, "bundle.json")), /bundle\.json: bundle\.json: missing/],
      ["views-out-of-order", (_d, m) => (m.views[1].index = 5), /views\.1\.index: expected 1/],
      ["bad-format", (_d, m) => (m.format = "other"), /bundle\.json: format/],
    ];
    for (const [name, edit, pattern] of cases) expect(broken(name, edit).message, name).toMatch(pattern);
  });

  it("writes atomically: a failed write leaves nothing that looks like a bundle", () => {
    const { manifest, payloads } = captureBundle(task, "single");
    const dir = join(root, "atomic");
    const bad = [{ ...payloads[0]!, rgb: new Uint8Array(5) }];
    expect(() => writeBundle(dir, manifest, bad)).toThrow();
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(root).filter((f) => f.includes("tmp"))).toEqual([]);
    // and a good write replaces an existing bundle in one rename
    writeBundle(dir, manifest, payloads);
    writeBundle(dir, manifest, payloads);
    expect(readBundle(dir).views.length).toBe(1);
    expect(readdirSync(root).filter((f) => f.includes("tmp") || f.includes(".old-"))).toEqual([]);
  });
});
