import { describe, expect, it } from "vitest";
import { decode as fastPngDecode, encode as fastPngEncode } from "fast-png";
import { decodePng, encodePng, PngError, rgbOf } from "../../bridge/bundle/png.js";

describe("PNG codec", () => {
  it("round-trips 8-bit RGB and 16-bit grey, and an independent decoder agrees", () => {
    const W = 37, H = 23;
    const rgb = new Uint8Array(W * H * 3).map((_, i) => (i * 37) % 256);
    const grey = new Uint16Array(W * H).map((_, i) => (i * 2654435761) % 65536);
    const a = encodePng(W, H, 3, 8, rgb), b = encodePng(W, H, 1, 16, grey);
    expect(decodePng(a).data).toEqual(rgb);
    expect(decodePng(b).data).toEqual(grey);
    const fa = fastPngDecode(a), fb = fastPngDecode(b);
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
    const W = 9, H = 5;
    const rgba = new Uint8Array(W * H * 4).map((_, i) => (i * 53 + 7) % 256);
    const png = decodePng(fastPngEncode({ width: W, height: H, data: rgba, channels: 4, depth: 8 }));
    expect(png.channels).toBe(4);
    const rgb = rgbOf(png.data as Uint8Array, png.channels, W * H);
    expect(rgb.length).toBe(W * H * 3);
    for (let p = 0; p < W * H; p++) expect([rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]]).toEqual([rgba[4 * p], rgba[4 * p + 1], rgba[4 * p + 2]]);
    const three = new Uint8Array(6);
    expect(rgbOf(three, 3, 2)).toBe(three);
  });
});
