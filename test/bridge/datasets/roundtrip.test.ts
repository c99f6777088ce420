/**
 * Each dataset layout round-trips: a rendered scene written in the layout's exact files (layouts.ts) and
 * imported back gives the same cameras (to the text files' 9 decimals), intrinsics, depth (to the layout's
 * quantisation), colour and, for ScanNet, instance masks and their categories.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBundle, type FrameBundle, type ViewData } from "../../../core/bundle/io.js";
import { importDataset } from "../../../bridge/datasets/importer.js";
import * as importedImages from "../../../bridge/datasets/images.js";
import { DatasetImportOptionsSchema } from "../../../bridge/datasets/options.js";
import { generatedBundle } from "../../scenegraph/helpers.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import { writeArkitscenes, writeReplica, writeScannet, writeScannetpp, writeTum } from "./layouts.js";
import { needs } from "../../helpers/system.js";

const pil = needs("python3-pil");

const source = generatedBundle("counting_with_occlusion", "datasets", 0, "multi");
const VIEWS = [0, 7, 14, 21].map((i) => source.views[i]!);
const tmp = () => mkdtempSync(join(tmpdir(), "esi3d-datasets-"));
const defaults = DatasetImportOptionsSchema.parse({});
/** jpeg-js vs libjpeg on a 4:4:4 JPEG: IDCT rounding, measured at most 3 levels (of 255) on a synthetic image. */
const JPEG_IDCT_TOLERANCE = 3;
/** With 4:2:0 chroma ours may be this much farther from the original than libjpeg (measured: 0.89x, closer). */
const JPEG_CHROMA_SLACK = 1.1;
/** Mean level error of quality-95 JPEG colour against the rendered image, after resampling to the depth grid. */
const JPEG_MEAN_LEVEL_ERROR = 3;

/** Text files print 9 decimals; angle-axis and quaternions add a few ulps. */
const POSE_TOL = 1e-7;

function expectSameCameras(got: FrameBundle, want: ViewData[]): void {
  expect(got.views.length).toBe(want.length);
  got.views.forEach((v, i) => {
    const w = want[i]!;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) expect(Math.abs(v.E[r]![c]! - w.E[r]![c]!), `view ${i} E[${r}][${c}]`).toBeLessThan(POSE_TOL);
    for (const k of ["fx", "fy", "cx", "cy"] as const) expect(v.K[k]).toBeCloseTo(w.K[k], 6);
  });
}

/** Depth back within half a quantisation step (0 stays 0; beyond 16 bits the layout cannot store it). */
function expectSameDepth(got: FrameBundle, want: ViewData[], unitsPerMetre: number): void {
  got.views.forEach((v, i) => {
    const w = want[i]!.depth;
    let worst = 0,
      compared = 0,
      notZero = 0;
    for (let p = 0; p < w.length; p++) {
      const d = w[p]!;
      if (!(d > 0) || !Number.isFinite(d) || d * unitsPerMetre > 65535) {
        if (v.depth[p] !== 0) notZero++;
        continue;
      }
      worst = Math.max(worst, Math.abs(v.depth[p]! - d));
      compared++;
    }
    expect(notZero, `view ${i}: pixels without a measurement that got one`).toBe(0);
    expect(compared).toBeGreaterThan(w.length / 2);
    expect(worst).toBeLessThanOrEqual(0.5 / unitsPerMetre + 1e-6);
  });
}

const expectSameColour = (got: FrameBundle, want: ViewData[]) =>
  got.views.forEach((v, i) => expect(Buffer.from(v.rgb).equals(Buffer.from(want[i]!.rgb)), `view ${i} rgb`).toBe(true));

describe("dataset layouts round-trip into frame bundles", () => {
  it("scannet: c2w pose files, mm depth, colour at twice the depth size, instance masks with their labels", () => {
    const dir = join(tmp(), "scene0000_00");
    const { names, maskToId } = writeScannet(dir, source, VIEWS);
    const out = join(tmp(), "b");
    const s = importDataset("scannet", dir, out, defaults);
    expect(s.masks).toBe(true);
    expect(s.world).toBe("z-up-metres");
    const b = readBundle(out);
    expect(b.manifest.task).toBeUndefined();
    expect(b.manifest.imported!.frames).toEqual(names); // numeric order: 0, 2, 20, 120
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 1000);
    expectSameColour(b, VIEWS); // 2x pixel-replicated colour resampled back exactly
    const category = (id: number, bundle: FrameBundle) => bundle.manifest.instances.find((e) => e.id === id)?.category;
    let wrongId = 0,
      wrongCategory = 0,
      objectPixels = 0;
    b.views.forEach((v, i) => {
      for (let p = 0; p < v.ids.length; p++) {
        const orig = VIEWS[i]!.ids[p]!;
        if (orig === 0) wrongId += v.ids[p] === 0 ? 0 : 1;
        else {
          objectPixels++;
          if (maskToId.get(v.ids[p]!) !== orig) wrongId++;
          if (category(v.ids[p]!, b) !== category(orig, source)) wrongCategory++;
        }
      }
    });
    expect(objectPixels).toBeGreaterThan(0);
    expect({ wrongId, wrongCategory }).toEqual({ wrongId: 0, wrongCategory: 0 });
    expect(
      b.manifest.instances
        .filter((e) => e.structure)
        .map((e) => e.category)
        .sort(),
    ).toEqual(
      source.manifest.instances
        .filter((e) => e.structure)
        .map((e) => e.category)
        .sort(),
    );
  });

  it.skipIf(pil.skip)(pil.title("scannet with its own JPEG colour: decoded as libjpeg (Pillow) decodes it, and close to the rendered colour"), () => {
    const dir = join(tmp(), "scene0001_00");
    writeScannet(dir, source, VIEWS);
    // reader.py writes color/<i>.jpg: Pillow (libjpeg) converts our PNGs to that (quality 95, Pillow's default
    // 4:2:0 chroma), and beside each writes the original pixels (.orig), libjpeg's decoding (.pil), and a
    // 4:4:4 JPEG with its decoding (.444.jpg, .444.pil) to check the decoder without chroma upsampling.
    execFileSync("/usr/bin/python3", [
      "-c",
      `
import os, sys
from PIL import Image
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    if f.endswith(".png"):
        p, stem = os.path.join(d, f), os.path.join(d, f[:-4])
        im = Image.open(p).convert("RGB")
        open(stem + ".orig", "wb").write(im.tobytes())
        im.save(stem + ".jpg", quality=95)
        im.save(stem + ".444.jpg", quality=95, subsampling=0)
        for j in (".jpg", ".444.jpg"):
            open(stem + j[:-4] + ".pil", "wb").write(Image.open(stem + j).convert("RGB").tobytes())
        os.remove(p)
`,
      join(dir, "color"),
    ]);
    expect(readdirSync(join(dir, "color")).filter((f) => f.endsWith(".png"))).toEqual([]);
    const { readColour, colourSize } = importedImages;
    const read = (file: string) => readColour(file, colourSize(file));
    const meanAbs = (x: Uint8Array, y: Uint8Array) => {
      expect(x.length).toBe(y.length);
      let sum = 0;
      for (let k = 0; k < x.length; k++) sum += Math.abs(x[k]! - y[k]!);
      return sum / x.length;
    };
    for (const f of readdirSync(join(dir, "color")).filter((x) => /^\d+\.jpg$/.test(x))) {
      const stem = join(dir, "color", f.slice(0, -4));
      // without chroma subsampling the two decoders differ only by IDCT rounding
      const ours444 = read(`${stem}.444.jpg`),
        pil444 = readFileSync(`${stem}.444.pil`);
      let worst = 0;
      for (let k = 0; k < pil444.length; k++) worst = Math.max(worst, Math.abs(ours444[k]! - pil444[k]!));
      expect(worst, f).toBeLessThanOrEqual(JPEG_IDCT_TOLERANCE);
      // with 4:2:0 they upsample chroma differently (jpeg-js replicates, libjpeg interpolates); neither is the
      // truth, so ours must be as close to the original pixels as libjpeg's decoding is
      const orig = readFileSync(`${stem}.orig`);
      expect(meanAbs(read(`${stem}.jpg`), orig), f).toBeLessThanOrEqual(JPEG_CHROMA_SLACK * meanAbs(readFileSync(`${stem}.pil`), orig));
    }
    const out = join(tmp(), "b");
    importDataset("scannet", dir, out, defaults);
    const b = readBundle(out);
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 1000);
    // the imported colour (resampled to the depth grid) within JPEG's loss of the rendered image
    b.views.forEach((v, i) => expect(meanAbs(v.rgb, VIEWS[i]!.rgb), `view ${i}`).toBeLessThan(JPEG_MEAN_LEVEL_ERROR));
  });

  it("scannet: the imported scene's graph is the rendered scene's (same nodes and relation triples, boxes within 5 mm; viewpoint = the first camera)", async () => {
    const dir = join(tmp(), "scene0002_00");
    writeScannet(dir, source, VIEWS);
    const out = join(tmp(), "b");
    importDataset("scannet", dir, out, defaults);
    const views = VIEWS.map((v, index) => ({ ...v, index }));
    const original: FrameBundle = {
      dir: "",
      manifest: { ...source.manifest, views: VIEWS.map((v, index) => ({ ...source.manifest.views[v.index]!, index })) },
      views,
    };
    const want = (await graphOfBundle(original, GraphPipelineOptionsSchema.parse({}), { diagnose: false })).graph;
    const got = (await graphOfBundle(readBundle(out), GraphPipelineOptionsSchema.parse({}), { diagnose: false })).graph;
    expect(got.nodes.map((n) => n.label)).toEqual(want.nodes.map((n) => n.label));
    expect(want.nodes.length).toBeGreaterThan(0);
    got.nodes.forEach((n, i) => {
      // depth in mm moves each point up to 0.5 mm along its ray, and a point near a voxel face can change voxel
      for (let k = 0; k < 3; k++) expect(Math.abs(n.box.centre[k]! - want.nodes[i]!.box.centre[k]!)).toBeLessThan(5e-3);
    });
    const triples = (g: typeof got) => g.relations.map((r) => `${r.subject} ${r.predicate} ${r.object}`);
    expect(triples(got)).toEqual(triples(want));
    for (let k = 0; k < 3; k++) expect(got.viewpoint.position[k]).toBeCloseTo(want.viewpoint.position[k]!, 6);
    expect(got.viewpoint.yaw).toBeCloseTo(want.viewpoint.yaw, 6);
  });

  it("scannetpp: aligned_pose c2w with intrinsics at the RGB size, scaled to the depth image", () => {
    const dir = join(tmp(), "0a5c013435");
    const names = writeScannetpp(dir, VIEWS);
    const out = join(tmp(), "b");
    const s = importDataset("scannetpp", dir, out, defaults);
    expect(s.masks).toBe(false);
    const b = readBundle(out);
    expect(b.manifest.task_id).toBe("0a5c013435");
    expect(b.manifest.imported!.frames).toEqual(names);
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 1000);
    expectSameColour(b, VIEWS);
    expect(b.manifest.instances).toEqual([]);
    expect(b.views.every((v) => v.ids.every((id) => id === 0))).toBe(true);
  });

  it("arkitscenes: world-to-camera angle-axis .traj in a Y-up world, --up +y turns it back to Z-up; poses 2 ms off the frames still match", () => {
    const dir = tmp();
    const names = writeArkitscenes(dir, "41069021", VIEWS, 0.002);
    const u = join(tmp(), "u");
    expect(importDataset("arkitscenes", dir, u, defaults).world).toBe("unknown-up-metres");
    // without --up the bundle keeps the file's own world, in which the cameras' up (-y) points along +Y
    const up = readBundle(u).views.map((v) => -v.E[1]![1]!);
    expect(Math.min(...up)).toBeGreaterThan(0.5);
    const out = join(tmp(), "b");
    const s = importDataset("arkitscenes", dir, out, { ...defaults, up: "+y" });
    expect(s.world).toBe("z-up-metres");
    const b = readBundle(out);
    expect(b.manifest.imported!.frames).toEqual(names);
    expect(b.manifest.imported!.up).toBe("+y");
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 1000);
    expectSameColour(b, VIEWS);
  });

  it("tum: quaternion c2w poses paired by nearest timestamp within 0.02 s, depth / 5000, --intrinsics, world left unknown-up", () => {
    const dir = join(tmp(), "rgbd_dataset_custom");
    const names = writeTum(dir, VIEWS);
    const K = VIEWS[0]!.K;
    const out = join(tmp(), "b");
    const s = importDataset("tum", dir, out, { ...defaults, intrinsics: `${K.fx},${K.fy},${K.cx},${K.cy}` });
    expect(s.world).toBe("unknown-up-metres");
    const b = readBundle(out);
    expect(b.manifest.conventions.world).toBe("unknown-up-metres");
    expect(b.manifest.imported!.frames).toEqual(names);
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 5000);
    expectSameColour(b, VIEWS);
  });

  it("tum: a freiburg1 sequence takes TUM's fr1 calibration", () => {
    const dir = join(tmp(), "rgbd_dataset_freiburg1_desk");
    writeTum(dir, VIEWS.slice(0, 1));
    const out = join(tmp(), "b");
    const s = importDataset("tum", dir, out, defaults);
    expect(s.notes.join("\n")).toMatch(/freiburg1 calibration/);
    expect(readBundle(out).views[0]!.K).toEqual({ fx: 517.3, fy: 516.5, cx: 318.6, cy: 255.3 });
  });

  it("replica: traj.txt rows of c2w, depth / 6553.5, cam_params.json", () => {
    const dir = join(tmp(), "room0");
    const names = writeReplica(dir, VIEWS);
    const out = join(tmp(), "b");
    importDataset("replica", dir, out, defaults);
    const b = readBundle(out);
    expect(b.manifest.imported!.frames).toEqual(names);
    expectSameCameras(b, VIEWS);
    expectSameDepth(b, VIEWS, 6553.5);
    expectSameColour(b, VIEWS);
  });

  it("--every and --max-views keep evenly spaced frames, first and last included", () => {
    const dir = join(tmp(), "room0");
    writeReplica(dir, VIEWS);
    const out = join(tmp(), "b");
    importDataset("replica", dir, out, { ...defaults, every: 2, maxViews: 30 });
    expect(readBundle(out).manifest.imported!.frames).toEqual(["frame000000", "frame000002"]);
    importDataset("replica", dir, out, { ...defaults, maxViews: 2 });
    const b = readBundle(out);
    expect(b.manifest.imported!.frames).toEqual(["frame000000", "frame000003"]);
    expectSameCameras(b, [VIEWS[0]!, VIEWS[3]!]);
  });
});
