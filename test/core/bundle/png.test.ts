import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { decode as fastPngDecode, encode as fastPngEncode } from "fast-png";
import { decodePng, encodePng, PngError, rgbOf } from "../../../core/bundle/png.js";
import { pngChunk } from "../../../core/bundle/pngChunk.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { render } from "../../../bridge/sim/raster.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../../../core/math/camera.js";
import { needs } from "../../helpers/system.js";

const pil = needs("python3-numpy", "python3-pil");

/** The encoder's scanlines, written plainly: each row's filter byte 0 (none), then its samples (16-bit big-endian). */
function referenceScanlines(width: number, height: number, channels: 1 | 3, bitDepth: 8 | 16, data: Uint8Array | Uint16Array): Buffer {
  const bpp = (channels * bitDepth) / 8,
    rowBytes = width * bpp;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (rowBytes + 1);
    raw[o] = 0;
    for (let k = 0; k < width * channels; k++) {
      const v = data[y * width * channels + k]!;
      if (bitDepth === 8) raw[o + 1 + k] = v;
      else raw.writeUInt16BE(v, o + 1 + 2 * k);
    }
  }
  return raw;
}

describe("PNG codec", () => {
  it("gives a rendered view's exact pixels back at the bundle's zlib level (our decoder and fast-png)", () => {
    const task = generateTask("material_transparency", "png", 0);
    const { width: W, height: H, hfov_deg } = task.camera;
    const a = task.agent_initial;
    const out = render(buildScene(task), {
      width: W,
      height: H,
      K: intrinsicsFromHfov(W, H, hfov_deg),
      E: poseToExtrinsic({ position: a.position, yaw: a.yaw, pitch: a.pitch }),
    });
    const rgbPng = encodePng(W, H, 3, 8, out.rgb!),
      idsPng = encodePng(W, H, 1, 16, out.ids);
    expect(Buffer.from(decodePng(rgbPng).data).equals(Buffer.from(out.rgb!))).toBe(true);
    expect(decodePng(idsPng).data).toEqual(out.ids);
    expect(Array.from(fastPngDecode(idsPng).data)).toEqual(Array.from(out.ids));
    expect(Buffer.from(fastPngDecode(rgbPng).data).equals(Buffer.from(out.rgb!))).toBe(true);
  });

  it("writes unfiltered scanlines, deflated at the bundle's level, at 8 and 16 bits, 1 and 3 channels", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (const [w, h] of [
      [1, 1],
      [1, 5],
      [6, 3],
      [65, 4],
    ] as const) {
      for (const channels of [1, 3] as const) {
        for (const bitDepth of [8, 16] as const) {
          const data = bitDepth === 8 ? new Uint8Array(w * h * channels) : new Uint16Array(w * h * channels);
          for (let i = 0; i < data.length; i++) data[i] = next() % (bitDepth === 8 ? 256 : 65536);
          const png = encodePng(w, h, channels, bitDepth, data);
          // IDAT starts after the signature (8) and the IHDR chunk (25)
          const idatLen = png.readUInt32BE(33);
          expect(png.toString("ascii", 37, 41)).toBe("IDAT");
          expect(zlib.inflateSync(png.subarray(41, 41 + idatLen)).equals(referenceScanlines(w, h, channels, bitDepth, data))).toBe(true);
          // zlib level 3, the bundle's measured choice: another level changes every bundle's bytes
          expect(png.subarray(41, 41 + idatLen).equals(zlib.deflateSync(referenceScanlines(w, h, channels, bitDepth, data), { level: 3 }))).toBe(true);
        }
      }
    }
  });

  it("round-trips 8-bit RGB and 16-bit grey, and an independent decoder agrees", () => {
    const W = 37,
      H = 23;
    const rgb = new Uint8Array(W * H * 3).map((_, i) => (i * 37) % 256);
    const grey = new Uint16Array(W * H).map((_, i) => (i * 2654435761) % 65536);
    const a = encodePng(W, H, 3, 8, rgb),
      b = encodePng(W, H, 1, 16, grey);
    expect(decodePng(a).data).toEqual(rgb);
    expect(decodePng(b).data).toEqual(grey);
    const fa = fastPngDecode(a),
      fb = fastPngDecode(b);
    expect([fa.width, fa.height, fa.channels, fa.depth]).toEqual([W, H, 3, 8]);
    expect(Array.from(fa.data)).toEqual(Array.from(rgb));
    expect(fb.depth).toBe(16);
    expect(Array.from(fb.data)).toEqual(Array.from(grey));
  });

  it("rejects truncated and corrupt files with a clear message", () => {
    const png = encodePng(8, 8, 3, 8, new Uint8Array(192));
    expect(() => decodePng(png.subarray(0, png.length - 20))).toThrow(PngError);
    const bad = Buffer.from(png);
    bad[40] = bad[40]! ^ 0xff;
    expect(() => decodePng(bad)).toThrow(/CRC|corrupt/);
    expect(() => decodePng(Buffer.from("hello"))).toThrow(/not a PNG/);
  });

  it("reads an RGBA PNG from another encoder as RGB, alpha dropped", () => {
    const W = 9,
      H = 5;
    const rgba = new Uint8Array(W * H * 4).map((_, i) => (i * 53 + 7) % 256);
    const png = decodePng(fastPngEncode({ width: W, height: H, data: rgba, channels: 4, depth: 8 }));
    expect(png.channels).toBe(4);
    const rgb = rgbOf(png.data as Uint8Array, png.channels, W * H);
    expect(rgb.length).toBe(W * H * 3);
    for (let p = 0; p < W * H; p++) expect([rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]]).toEqual([rgba[4 * p], rgba[4 * p + 1], rgba[4 * p + 2]]);
    const three = new Uint8Array(6);
    expect(rgbOf(three, 3, 2)).toBe(three);
  });

  it.skipIf(pil.skip)(pil.title("decodes Pillow's adaptively filtered PNGs to Pillow's own pixels"), () => {
    // Pillow (Debian python3-pil) picks a filter per row; on this image it uses Sub, Up and Paeth (the next
    // test covers None and Average). The raw pixels come back as .bin files.
    const dir = mkdtempSync(join(tmpdir(), "esi3d-png-pil-"));
    execFileSync("/usr/bin/python3", [
      "-c",
      `
import numpy as np
from PIL import Image
rng = np.random.default_rng(3)
h, w = 61, 47
yy, xx = np.mgrid[0:h, 0:w]
smooth = (xx * 5 + yy * 3) % 256
rgb = np.stack([smooth, (smooth * 7 + yy) % 256, rng.integers(0, 256, (h, w))], axis=2).astype(np.uint8)
rgb[h // 2:] = np.where(rng.random((h - h // 2, w, 1)) < 0.5, rgb[h // 2:], 255 - rgb[h // 2:])
Image.fromarray(rgb, "RGB").save("${dir}/rgb.png")
rgb.tofile("${dir}/rgb.bin")
grey = ((xx * 977 + yy * 131 + rng.integers(0, 40, (h, w))) % 65536).astype(np.uint16)
Image.fromarray(grey.astype(np.int32), "I").save("${dir}/grey16.png")
np.asarray(Image.open("${dir}/grey16.png"), dtype=np.uint16).tofile("${dir}/grey16.bin")
`,
    ]);
    const filtersUsed = new Set<number>();
    for (const name of ["rgb", "grey16"]) {
      const png = readFileSync(join(dir, `${name}.png`));
      const decoded = decodePng(png);
      const expected = readFileSync(join(dir, `${name}.bin`));
      const got = decoded.bitDepth === 16 ? new Uint16Array(decoded.data) : decoded.data;
      expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(expected), name).toBe(true);
      // Which filters did Pillow write? Inflate the IDAT data and read each row's filter byte.
      const idat: Buffer[] = [];
      for (let off = 8; off < png.length; ) {
        const len = png.readUInt32BE(off);
        if (png.toString("ascii", off + 4, off + 8) === "IDAT") idat.push(png.subarray(off + 8, off + 8 + len));
        off += 12 + len;
      }
      const raw = zlib.inflateSync(Buffer.concat(idat));
      const stride = raw.length / decoded.height;
      for (let y = 0; y < decoded.height; y++) filtersUsed.add(raw[y * stride]!);
    }
    expect([...filtersUsed].sort()).toEqual([1, 2, 4]);
  });

  it("undoes each of the five row filters, chosen per row, at 8 and 16 bits", () => {
    // The forward filters, written the plain way (PNG spec §9.2), on rows whose filter cycles 0..4.
    const paeth = (a: number, b: number, c: number): number => {
      const p = a + b - c,
        pa = Math.abs(p - a),
        pb = Math.abs(p - b),
        pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    };
    const encodeFiltered = (w: number, h: number, colorType: 0 | 2, bitDepth: 8 | 16, bytes: Uint8Array): Buffer => {
      const bpp = ((colorType === 2 ? 3 : 1) * bitDepth) / 8,
        rowBytes = w * bpp;
      const raw = Buffer.alloc((rowBytes + 1) * h);
      for (let y = 0; y < h; y++) {
        const f = y % 5;
        raw[y * (rowBytes + 1)] = f;
        for (let x = 0; x < rowBytes; x++) {
          const cur = bytes[y * rowBytes + x]!;
          const a = x >= bpp ? bytes[y * rowBytes + x - bpp]! : 0;
          const b = y > 0 ? bytes[(y - 1) * rowBytes + x]! : 0;
          const c = y > 0 && x >= bpp ? bytes[(y - 1) * rowBytes + x - bpp]! : 0;
          const pred = [0, a, b, (a + b) >>> 1, paeth(a, b, c)][f]!;
          raw[y * (rowBytes + 1) + 1 + x] = (cur - pred) & 255;
        }
      }
      const ihdr = Buffer.from([0, 0, 0, w, 0, 0, 0, h, bitDepth, colorType, 0, 0, 0]);
      return Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        pngChunk("IHDR", ihdr),
        pngChunk("IDAT", zlib.deflateSync(raw)),
        pngChunk("IEND", Buffer.alloc(0)),
      ]);
    };
    const W = 29,
      H = 17;
    const rgb = new Uint8Array(W * H * 3).map((_, i) => (i * 2654435761) >>> 24);
    expect(decodePng(encodeFiltered(W, H, 2, 8, rgb)).data).toEqual(rgb);
    const grey = new Uint16Array(W * H).map((_, i) => (i * 40503 + ((i * 2654435761) >>> 20)) & 0xffff);
    const be = new Uint8Array(W * H * 2);
    grey.forEach((v, i) => {
      be[2 * i] = v >>> 8;
      be[2 * i + 1] = v & 255;
    });
    expect(decodePng(encodeFiltered(W, H, 0, 16, be)).data).toEqual(grey);
  });
});
