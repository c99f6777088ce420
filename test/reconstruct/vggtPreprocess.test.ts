import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelRgbOf, modelToSourcePixel, planPreprocess, preprocessViews } from "../../reconstruct/vggt/preprocess.js";
import { compositeOnWhite, resizeBicubicPil } from "../../reconstruct/vggt/pillow.js";
import { roundHalfEven } from "../../reconstruct/vggt/roundHalfEven.js";
import { needs, PYTHON } from "../helpers/system.js";

/** Deterministic test image: byte i = (37 i + 11) mod 256, with pure extremes in two corners (exercise clipping). */
function pattern(w: number, h: number): Uint8Array {
  const a = Uint8Array.from({ length: w * h * 3 }, (_, i) => (i * 37 + 11) % 256);
  a.set([0, 255, 0], 0);
  a.set([255, 0, 255], (w * h - 1) * 3);
  return a;
}

describe("VGGT preprocessing sizes (worked examples of load_fn.py's crop mode)", () => {
  it("1024x768 crop -> 518x392", () => {
    const p = planPreprocess(1024, 768, "crop");
    expect([p.width, p.height, p.resizedWidth, p.resizedHeight, p.cropTop]).toEqual([518, 392, 518, 392, 0]);
  });
  it("1920x1080 crop -> 518 wide, 294 high", () => {
    const p = planPreprocess(1920, 1080, "crop");
    expect([p.width, p.height]).toEqual([518, 294]);
  });
  it("1080x1920 crop -> resized 518x924, centre-cropped to 518x518", () => {
    const p = planPreprocess(1080, 1920, "crop");
    expect([p.resizedWidth, p.resizedHeight, p.width, p.height, p.cropTop]).toEqual([518, 924, 518, 518, 203]);
  });
  it("1920x1080 pad -> 518x294 padded with 112 rows above and 112 below to 518x518", () => {
    const p = planPreprocess(1920, 1080, "pad");
    expect([p.resizedWidth, p.resizedHeight, p.width, p.height, p.padTop, p.padLeft]).toEqual([518, 294, 518, 518, 112, 0]);
  });
  it("portrait pad makes the height 518 and pads left/right", () => {
    const p = planPreprocess(1080, 1920, "pad");
    expect([p.resizedWidth, p.resizedHeight, p.padLeft, p.padTop]).toEqual([294, 518, 112, 0]);
  });
  it("rounds half to even like Python's round", () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, 27.5, 28.5, 2.4999, 2.5001].map(roundHalfEven)).toEqual([0, 2, 2, 0, -2, 28, 28, 2, 3]);
    // 518 x 518 * 7 / 518 / 14 = 18.5 exactly: Python gives 18 * 14 = 252, Math.round would give 266.
    expect(planPreprocess(518, 259, "crop").height).toBe(252);
  });
});

describe("PIL-compatible BICUBIC resize", () => {
  // Expected bytes from Pillow 9.4.0 (Debian python3-pil): Image.fromarray(pattern).resize((ow, oh), Image.BICUBIC).
  it("matches Pillow upscaling height while downscaling width (7x5 -> 4x9)", () => {
    const out = resizeBicubicPil(pattern(7, 5), 7, 5, 3, 4, 9);
    expect(Array.from(out)).toEqual([
      58, 218, 80, 177, 63, 117, 136, 177, 72, 117, 154, 184, 63, 180, 100, 180, 68, 118, 139, 180, 75, 120, 157, 192, 72, 112, 136, 185, 79, 121, 145, 186, 81,
      126, 163, 199, 79, 100, 148, 198, 85, 126, 150, 199, 90, 131, 168, 137, 83, 113, 150, 195, 90, 131, 155, 196, 100, 136, 173, 62, 84, 118, 155, 119, 97,
      136, 162, 120, 106, 139, 183, 50, 86, 123, 160, 57, 104, 141, 169, 59, 109, 148, 166, 82, 92, 129, 166, 64, 110, 147, 174, 71, 109, 174, 87, 172, 95, 132,
      169, 72, 113, 150, 176, 82, 109, 187, 43, 221,
    ]);
  });
  it("matches Pillow's antialiased downscale (13x9 -> 5x4)", () => {
    const out = resizeBicubicPil(pattern(13, 9), 13, 9, 3, 5, 4);
    expect(Array.from(out)).toEqual([
      112, 147, 130, 151, 127, 120, 125, 150, 114, 118, 125, 128, 123, 119, 122, 134, 133, 115, 119, 135, 142, 140, 123, 130, 137, 109, 122, 121, 132, 109, 114,
      118, 137, 134, 119, 124, 129, 140, 125, 125, 129, 141, 144, 128, 132, 129, 106, 124, 122, 130, 117, 117, 123, 131, 133, 128, 122, 154, 118, 155,
    ]);
  });
  it("returns a copy when the size is unchanged", () => {
    const a = pattern(6, 4);
    const b = resizeBicubicPil(a, 6, 4, 3, 6, 4);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
  });

  const py = PYTHON;
  const pil = needs("python3-numpy", "python3-pil");
  it.skipIf(pil.skip)(pil.title("matches Pillow live on a random 37x23 -> 518x322 upscale and 61x47 -> 19x14 downscale"), () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-pil-"));
    const cases = [
      [37, 23, 518, 322],
      [61, 47, 19, 14],
    ] as const;
    const srcs = cases.map(([w, h], k) => Uint8Array.from({ length: w * h * 3 }, (_, i) => ((i + k) * 2654435761) % 251));
    srcs.forEach((src, k) => writeFileSync(join(dir, `in${k}.bin`), src));
    // One interpreter for both cases (starting Python with PIL and numpy is the slow part).
    execFileSync(py, [
      "-c",
      `
import numpy as np
from PIL import Image
for k, (w, h, ow, oh) in enumerate(${JSON.stringify(cases)}):
    a = np.fromfile("${dir}/in%d.bin" % k, dtype=np.uint8).reshape(h, w, 3)
    np.asarray(Image.fromarray(a, "RGB").resize((ow, oh), Image.BICUBIC)).tofile("${dir}/out%d.bin" % k)
`,
    ]);
    cases.forEach(([w, h, ow, oh], k) => {
      const want = new Uint8Array(readFileSync(join(dir, `out${k}.bin`)));
      const got = resizeBicubicPil(srcs[k]!, w, h, 3, ow, oh);
      expect(got.length).toBe(want.length);
      let differing = 0; // (a plain loop: deep equality on 500k elements is slow)
      for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) differing++;
      expect(differing).toBe(0);
    });
  });
});

describe("model input and the pixel map", () => {
  it("pad mode: white rows above and below, RGB/255 planes in between (NCHW)", () => {
    const w = 56,
      h = 28; // -> 518 x 252 + 133 rows of padding above, 133 below
    const p = planPreprocess(w, h, "pad");
    expect([p.resizedWidth, p.resizedHeight, p.padTop]).toEqual([518, 252, 133]);
    const rgb = new Uint8Array(w * h * 3).fill(51); // 51/255 = 0.2
    const x = preprocessViews([rgb], p);
    expect(x.length).toBe(3 * 518 * 518);
    const at = (c: number, y: number, xx: number) => x[c * 518 * 518 + y * 518 + xx]!;
    expect(at(0, 0, 0)).toBe(1);
    expect(at(2, 132, 517)).toBe(1);
    expect(at(1, 133, 0)).toBe(Math.fround(0.2));
    expect(at(2, 133 + 251, 300)).toBe(Math.fround(0.2));
    expect(at(0, 133 + 252, 10)).toBe(1);
  });
  it("crop mode with an identity resize feeds the pixels unchanged", () => {
    const w = 518,
      h = 28;
    const p = planPreprocess(w, h, "crop");
    const rgb = pattern(w, h);
    const x = preprocessViews([rgb], p);
    const P = w * h;
    for (const i of [0, 1, 777, P - 1]) for (let c = 0; c < 3; c++) expect(x[c * P + i]).toBe(Math.fround(rgb[3 * i + c]! / 255));
  });
  it("maps model pixels back to source pixels (pad -> -1)", () => {
    const p = planPreprocess(56, 28, "pad"); // scale 518/56 = 9.25 both ways
    const map = modelToSourcePixel(p);
    expect(map[0]).toBe(-1);
    expect(map[133 * 518 + 0]).toBe(0); // first resized row/col -> source (0, 0)
    expect(map[(133 + 251) * 518 + 517]).toBe(27 * 56 + 55); // last -> last
    // model column 100: resized 100, centre (100.5)·56/518 = 10.86 -> source column 10
    expect(map[(133 + 10) * 518 + 100]).toBe(1 * 56 + 10);
    const crop = planPreprocess(1080, 1920, "crop");
    const cm = modelToSourcePixel(crop);
    // model row 0 is resized row 203: centre 203.5·1920/924 = 422.9 -> source row 422;
    // column 0: centre 0.5·1080/518 = 1.04 -> source column 1 (downscaling skips source pixels)
    expect(cm[0]).toBe(422 * 1080 + 1);
  });
});

describe("RGBA onto white (load_fn.py: Image.alpha_composite(white, img).convert('RGB'))", () => {
  // Expected: Pillow 9.4 (Debian python3-pil), alpha_composite of these RGBA pixels over opaque white, printed
  // with numpy. The contract test (vggt-contract.test.ts) compares all 256 x 256 (value, alpha) pairs with Pillow.
  const rgbs = [
    [0, 0, 0],
    [255, 255, 255],
    [10, 128, 250],
    [200, 37, 99],
    [1, 2, 3],
    [254, 0, 77],
  ];
  const alphas = [0, 1, 127, 128, 200, 254, 255];
  const pillow = [
    [255, 255, 255],
    [254, 254, 254],
    [128, 128, 128],
    [127, 127, 127],
    [55, 55, 55],
    [1, 1, 1],
    [0, 0, 0],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [255, 255, 255],
    [254, 255, 255],
    [133, 192, 253],
    [132, 191, 252],
    [63, 155, 251],
    [11, 128, 250],
    [10, 128, 250],
    [255, 255, 255],
    [255, 254, 254],
    [228, 146, 177],
    [227, 146, 177],
    [212, 84, 133],
    [200, 38, 100],
    [200, 37, 99],
    [255, 255, 255],
    [254, 254, 254],
    [128, 129, 129],
    [128, 128, 129],
    [56, 57, 57],
    [2, 3, 4],
    [1, 2, 3],
    [255, 255, 255],
    [255, 254, 254],
    [255, 128, 166],
    [254, 127, 166],
    [254, 55, 115],
    [254, 1, 78],
    [254, 0, 77],
  ];
  it("matches Pillow's integer compositing", () => {
    const px = rgbs.flatMap((c) => alphas.map((a) => [c, a] as const));
    const out = compositeOnWhite(Uint8Array.from(px.flatMap(([c]) => c)), Uint8Array.from(px.map(([, a]) => a)));
    expect(Array.from({ length: px.length }, (_, i) => Array.from(out.subarray(3 * i, 3 * i + 3)))).toEqual(pillow);
  });
  it("the vggt source feeds the composited image for a view with transparency, the RGB as is otherwise", () => {
    const rgb = Uint8Array.from([10, 128, 250, 10, 128, 250]),
      alpha = Uint8Array.from([127, 255]);
    expect(Array.from(modelRgbOf({ rgb, alpha }))).toEqual([133, 192, 253, 10, 128, 250]);
    expect(modelRgbOf({ rgb })).toBe(rgb);
  });
});
