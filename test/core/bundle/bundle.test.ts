import { describe, expect, it, beforeAll } from "vitest";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import zlib from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { readBundle, writeBundle } from "../../../core/bundle/io.js";
import { BundleError } from "../../../core/bundle/errors.js";
import { encodePng } from "../../../core/bundle/png.js";
import type { Task } from "../../../core/task/schema.js";
import { esi3d } from "../../src/apps/cli/helpers.js";
import { BOX_ID, MIRROR_ID, mirrorRoomObjects, mirrorTask } from "../../helpers/mirrorScene.js";

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

/** A copy of the good bundle (or of `from`), changed by `edit`, then read: returns the error. */
function broken(name: string, edit: (dir: string, manifest: Record<string, any>) => void, from = good): BundleError {
  const dir = join(root, name);
  cpSync(from, dir, { recursive: true });
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
      [
        "wrong-size-image",
        (d, m) => writeFileSync(join(d, m.views[1].rgb), encodePng(10, 10, 3, 8, new Uint8Array(300))),
        /001_rgb\.png: views\.1\.rgb: image is 10x10, expected 518x392/,
      ],
      ["short-depth", (d, m) => truncateSync(join(d, m.views[0].depth), 1000), /000_depth\.f32: views\.0\.depth: file has 1000 bytes, expected 812224/],
      ["non-finite-rotation", (_d, m) => (m.views[0].extrinsic[0][0] = "NaN"), /bundle\.json: views\.0\.extrinsic/],
      ["non-orthonormal", (_d, m) => (m.views[2].extrinsic[0][0] *= 1.1), /views\.2\.extrinsic: rotation is not orthonormal/],
      ["intrinsics-off-image", (_d, m) => (m.views[0].intrinsics.cx = 900), /views\.0\.intrinsics: principal point \(900, .*\) lies outside the 518x392 image/],
      ["missing-view-file", (d, m) => rmSync(join(d, m.views[1].instances)), /001_inst\.png: views\.1\.instances: file is missing/],
      [
        "unknown-id",
        (_d, m) => (m.instances = m.instances.filter((e: { id: number }) => e.id !== 1)),
        /views\.0\.instances: pixel \(\d+, \d+\) has id 1, which is not in bundle.json "instances"/,
      ],
      ["missing-manifest", (d) => rmSync(join(d, "bundle.json")), /bundle\.json: bundle\.json: missing/],
      ["views-out-of-order", (_d, m) => (m.views[1].index = 5), /views\.1\.index: expected 1/],
      ["bad-format", (_d, m) => (m.format = "other"), /bundle\.json: format/],
      [
        "absurd-depth",
        (d, m) => writeFileSync(join(d, m.views[0].depth), Buffer.from(new Float32Array(518 * 392).fill(1e30).buffer)),
        /000_depth\.f32: views\.0\.depth: pixel \(0, 0\) has depth 1\.0000000150474662e\+30 m; expected metres up to 10000/,
      ],
      ["view-path-is-a-directory", (_d, m) => (m.views[0].rgb = "views"), /views: views\.0\.rgb: .*is a directory/],
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

/** A PNG whose header declares W x H but whose image data inflates to `factor` times that (a decompression bomb). */
function inflatingPng(W: number, H: number, channels: 1 | 3, factor: number): Buffer {
  const png = encodePng(W, H * factor, channels, 8, new Uint8Array(W * H * factor * channels));
  png.writeUInt32BE(H, 20); // IHDR height
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)) >>> 0, 29); // IHDR CRC over type + data
  return png;
}

describe("frame bundles: what the reader refuses before reading", () => {
  it("refuses a view file that is a symlink leaving the bundle (B17)", () => {
    const outside = join(root, "outside.png");
    writeFileSync(outside, readFileSync(join(good, "views", "000_rgb.png")));
    const e = broken("symlink-out", (d, m) => {
      rmSync(join(d, m.views[0].rgb));
      symlinkSync(outside, join(d, m.views[0].rgb));
    });
    expect(e.message).toMatch(/views\.0\.rgb: .*leaves the bundle directory/);
    expect(e.field).toBe("views.0.rgb");
  });

  it("still reads a symlink that stays inside the bundle", () => {
    const dir = join(root, "symlink-in");
    cpSync(good, dir, { recursive: true });
    const m = JSON.parse(readFileSync(join(dir, "bundle.json"), "utf8"));
    mkdirSync(join(dir, "shared"));
    cpSync(join(dir, m.views[0].rgb), join(dir, "shared", "rgb.png"));
    rmSync(join(dir, m.views[0].rgb));
    symlinkSync(join("..", "shared", "rgb.png"), join(dir, m.views[0].rgb));
    expect(readBundle(dir).views.length).toBe(m.views.length);
  });

  it("compares paths by segment: '../b-evil/' does not pass for bundle 'b' (B20)", () => {
    const parent = mkdtempSync(join(tmpdir(), "esi3d-prefix-"));
    const b = join(parent, "b");
    cpSync(good, b, { recursive: true });
    mkdirSync(join(parent, "b-evil"));
    cpSync(join(b, "views", "000_rgb.png"), join(parent, "b-evil", "rgb.png"));
    const m = JSON.parse(readFileSync(join(b, "bundle.json"), "utf8"));
    m.views[0].rgb = "../b-evil/rgb.png";
    writeFileSync(join(b, "bundle.json"), JSON.stringify(m));
    expect(() => readBundle(b)).toThrow(BundleError);
    expect(() => readBundle(b)).toThrow(/views\.0\.rgb: path "\.\.\/b-evil\/rgb\.png" leaves the bundle directory/);
  });

  it("refuses a PNG that inflates beyond the size its header declares, at once (B28)", () => {
    const W = 518,
      H = 392;
    const e = broken("bomb", (d, m) => writeFileSync(join(d, m.views[0].rgb), inflatingPng(W, H, 3, 64)));
    expect(e.field).toBe("views.0.rgb");
    expect(e.message).toMatch(/000_rgb\.png: views\.0\.rgb: image data inflates to more than \d+ bytes/);
  });

  it("esi3d graph exits 2 on a decompression bomb, naming the file and field, writing nothing", () => {
    const dir = join(root, "bomb-cli");
    cpSync(good, dir, { recursive: true });
    const m = JSON.parse(readFileSync(join(dir, "bundle.json"), "utf8"));
    writeFileSync(join(dir, m.views[0].instances), inflatingPng(518, 392, 1, 256));
    const out = join(root, "bomb-cli.json");
    const t = performance.now();
    const r = esi3d(["graph", dir, "-o", out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/000_inst\.png: views\.0\.instances: image data inflates to more than/);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(existsSync(out)).toBe(false);
    expect(performance.now() - t).toBeLessThan(30_000);
  });
});

describe("bundles of scenes with mirrors", () => {
  let mirrored: string;
  beforeAll(() => {
    mirrored = join(root, "mirrored");
    const { manifest, payloads } = captureBundle(mirrorTask(mirrorRoomObjects(), ["turn_right"]), "gt");
    writeBundle(mirrored, manifest, payloads);
  });

  it("round-trip the reflection images and the mirror's plane beside the views", () => {
    const { manifest, payloads } = captureBundle(mirrorTask(mirrorRoomObjects(), ["turn_right"]), "gt");
    const b = readBundle(mirrored);
    expect(b.manifest).toEqual(JSON.parse(JSON.stringify(manifest)));
    expect(b.manifest.mirrors?.map((m) => m.id)).toEqual([MIRROR_ID]);
    expect(b.manifest.views.map((v) => v.reflection)).toEqual([
      { instances: "views/000_refl_inst.png", depth: "views/000_refl_depth.f32" },
      { instances: "views/001_refl_inst.png", depth: "views/001_refl_depth.f32" },
    ]);
    b.views.forEach((v, i) => {
      expect(Array.from(v.reflectedIds!)).toEqual(Array.from(payloads[i]!.reflectedIds!));
      expect(
        Buffer.from(v.reflectedDepth!.buffer, v.reflectedDepth!.byteOffset, v.reflectedDepth!.byteLength).equals(
          Buffer.from(payloads[i]!.reflectedDepth!.buffer),
        ),
      ).toBe(true);
    });
    expect(b.views[0]!.reflectedIds!.includes(BOX_ID)).toBe(true);
  });

  it("leave a scene without mirrors as bundles always were: no mirrors, no reflection files", () => {
    const dir = join(root, "plain");
    const { manifest, payloads } = captureBundle(mirrorTask(mirrorRoomObjects().filter((o) => o.category !== "mirror")), "gt");
    writeBundle(dir, manifest, payloads);
    const m = JSON.parse(readFileSync(join(dir, "bundle.json"), "utf8"));
    expect("mirrors" in m).toBe(false);
    expect(m.views.every((v: object) => !("reflection" in v))).toBe(true);
    const b = readBundle(dir);
    expect(b.views[0]!.reflectedIds).toBeUndefined();
    expect(b.views[0]!.reflectedDepth).toBeUndefined();
  });

  it("names the file and field of a bad reflection image", () => {
    const cases: Array<[string, (dir: string, m: Record<string, any>) => void, RegExp]> = [
      ["missing", (d, m) => rmSync(join(d, m.views[1].reflection.instances)), /001_refl_inst\.png: views\.1\.reflection\.instances: file is missing/],
      [
        "short-depth",
        (d, m) => truncateSync(join(d, m.views[0].reflection.depth), 400),
        /000_refl_depth\.f32: views\.0\.reflection\.depth: file has 400 bytes, expected 120000/,
      ],
      [
        "unknown-id",
        (d, m) => writeFileSync(join(d, m.views[0].reflection.instances), encodePng(200, 150, 1, 16, new Uint16Array(200 * 150).fill(999))),
        /000_refl_inst\.png: views\.0\.reflection\.instances: pixel \(0, 0\) has id 999, which is not in bundle.json "instances"/,
      ],
      [
        "colour-ids",
        (d, m) => writeFileSync(join(d, m.views[0].reflection.instances), encodePng(200, 150, 3, 8, new Uint8Array(200 * 150 * 3))),
        /views\.0\.reflection\.instances: expected a single-channel \(greyscale\) 16- or 8-bit PNG/,
      ],
      ["one-file", (_d, m) => delete m.views[0].reflection.depth, /bundle\.json: views\.0\.reflection\.depth/],
      ["mirror-not-an-instance", (_d, m) => (m.mirrors[0].id = 999), /bundle\.json: mirrors\.0\.id: mirror id 999 is not in "instances"/],
      ["leaves-bundle", (_d, m) => (m.views[0].reflection.depth = "../x.f32"), /views\.0\.reflection\.depth: path "\.\.\/x\.f32" leaves the bundle directory/],
    ];
    for (const [name, edit, pattern] of cases) expect(broken(`mirror-${name}`, edit, mirrored).message, name).toMatch(pattern);
  });
});
