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
