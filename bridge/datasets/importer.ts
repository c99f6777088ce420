/**
 * `esi3d import <layout> DIR --out BUNDLE`: a dataset scene on disk becomes one frame bundle with no task
 * record. The layout's reader lists the frames and their cameras (one module per layout); here they are
 * subsampled (--every, --max-views), their pixels read onto the depth image's grid, the world turned so the
 * stated up axis is +Z (or recorded as unknown-up), and the bundle written atomically.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Intrinsics } from "../../core/math/camera.js";
import type { Mat3, Mat34 } from "../../core/math/vec.js";
import { MAX_SEGMENT_CHARS } from "../../core/paths.js";
import { InputError } from "../../core/errors.js";
import { checkOutputs } from "../../core/outputPaths.js";
import { writeBundle, viewFileNames } from "../../core/bundle/io.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../core/bundle/schema.js";
import { BundleError } from "../../core/bundle/errors.js";
import { checkExtrinsic, checkIntrinsics, MAX_DEPTH_M, type ViewPayload } from "../../core/bundle/view.js";
import { readArkitscenes } from "./arkitscenes.js";
import { ASPECT_TOLERANCE, colourFile, readColour, readDepthPng, readMaskPng, scaleIntrinsics } from "./images.js";
import { readReplica } from "./replica.js";
import { readScannet } from "./scannet.js";
import { readScannetpp } from "./scannetpp.js";
import { DatasetError, type DatasetFrame, type DatasetLayout, type DatasetScene, type ImageSize, type UpAxis } from "./scene.js";
import { readTum } from "./tum.js";
import { subsample } from "./subsample.js";
import type { DatasetImportFlags } from "./options.js";

const READERS: Record<DatasetLayout, (dir: string) => DatasetScene> = {
  scannet: readScannet,
  scannetpp: readScannetpp,
  arkitscenes: readArkitscenes,
  tum: readTum,
  replica: readReplica,
};

/** Instance categories that are room structure (bundle `structure`: left out of objects, kept for regions). */
const STRUCTURE_CATEGORIES = new Set(["wall", "floor", "ceiling"]);

export interface DatasetImportSummary {
  out: string;
  layout: DatasetLayout;
  frames: number;
  views: number;
  image: ImageSize;
  world: BundleManifest["conventions"]["world"];
  masks: boolean;
  notes: string[];
}

/** The rotation taking `up` to +Z (a quarter or half turn about x or y). */
function rotationToZUp(up: UpAxis): Mat3 {
  switch (up) {
    case "+z":
      return [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ];
    case "-z":
      return [
        [1, 0, 0],
        [0, -1, 0],
        [0, 0, -1],
      ];
    case "+y":
      return [
        [1, 0, 0],
        [0, 0, -1],
        [0, 1, 0],
      ];
    case "-y":
      return [
        [1, 0, 0],
        [0, 0, 1],
        [0, -1, 0],
      ];
    case "+x":
      return [
        [0, 0, -1],
        [0, 1, 0],
        [1, 0, 0],
      ];
    case "-x":
      return [
        [0, 0, 1],
        [0, 1, 0],
        [-1, 0, 0],
      ];
  }
}

/** E' = E [W^T | 0]: the same camera in the world turned by W (X' = W X). */
function turnWorld(E: Mat34, W: Mat3): Mat34 {
  return E.map(
    (row) => [0, 1, 2].map((j) => row[0] * W[j]![0] + row[1] * W[j]![1] + row[2] * W[j]![2]).concat(row[3]) as [number, number, number, number],
  ) as Mat34;
}

/** The scene's name as a bundle task_id (one safe path segment). */
function safeName(name: string): string {
  const s = name
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/\.\.+/g, "_")
    .replace(/^[.]/, "_")
    .slice(0, MAX_SEGMENT_CHARS);
  return s || "scene";
}

function readDatasetScene(layout: DatasetLayout, dir: string): DatasetScene {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new DatasetError(dir, `no such directory (expected a ${layout} scene folder)`);
  return READERS[layout](resolve(dir));
}

/** `--intrinsics fx,fy,cx,cy` (the schema checked its form). */
function intrinsicsOfFlag(v: string): Intrinsics {
  const [fx, fy, cx, cy] = v.split(",").map(Number) as [number, number, number, number];
  if (!(fx > 0 && fy > 0 && [fx, fy, cx, cy].every(Number.isFinite)))
    throw new InputError(`--intrinsics: expected fx,fy,cx,cy with positive focal lengths (pixels of the depth image), got "${v}"`);
  return { fx, fy, cx, cy };
}

export function importDataset(layout: DatasetLayout, dir: string, out: string, o: DatasetImportFlags): DatasetImportSummary {
  // before any frame is read: the bundle written (and replaced, with --force) is never the scene read
  checkOutputs([{ what: "<dir>", path: dir }], [{ what: "--out", path: out }]);
  const overrideK = o.intrinsics === undefined ? undefined : intrinsicsOfFlag(o.intrinsics);
  const scene = readDatasetScene(layout, dir);
  if (scene.frames.length === 0) throw new DatasetError(scene.dir, "no usable frames (every pose was invalid)");
  const chosen = subsample(scene.frames.length, o.every, o.maxViews).map((i) => scene.frames[i]!);
  const up = o.up === "none" ? null : (o.up ?? scene.up);
  const W = up ? rotationToZUp(up) : null;
  // the intrinsics said in the notes are the ones used: --intrinsics replaces the layout's
  const notes = [overrideK ? `intrinsics: --intrinsics ${o.intrinsics} (the layout's own not used)` : scene.intrinsicsNote, ...scene.notes].filter(
    (n): n is string => n !== undefined,
  );
  if (o.up && o.up !== "none") notes.push(`--up ${o.up}: that axis of the source world is +Z`);
  const known = new Set((scene.instances ?? []).map((e) => e.id));
  let size: ImageSize | undefined;
  let unlabelled = 0,
    resized = false,
    measured = 0;
  const views: BundleManifest["views"] = [];
  const payloads: ViewPayload[] = [];
  chosen.forEach((f, index) => {
    const d = readDepthPng(f.depth, scene.depthScale, size);
    size ??= d.size;
    if (!overrideK && f.intrinsicsSize) checkIntrinsicsAspect(f, d.size);
    const K = overrideK ?? (f.intrinsicsSize ? scaleIntrinsics(f.intrinsics, f.intrinsicsSize, d.size) : f.intrinsics);
    const extrinsic = W ? turnWorld(f.extrinsic, W) : f.extrinsic;
    checkFrameCamera(f, K, extrinsic, d.size, scene, overrideK !== undefined);
    for (let p = 0; p < d.depth.length; p++) if (d.depth[p]! > 0 && d.depth[p]! <= MAX_DEPTH_M) measured++;
    const rgbFile = colourFile(f.rgb);
    const rgb = readColour(rgbFile, d.size);
    if (f.intrinsicsSize && (f.intrinsicsSize.width !== d.size.width || f.intrinsicsSize.height !== d.size.height)) resized = true;
    const ids = f.mask ? readMaskPng(f.mask, d.size) : new Uint16Array(d.size.width * d.size.height);
    for (let p = 0; p < ids.length; p++) if (ids[p] !== 0 && !known.has(ids[p]!)) (ids[p] = 0), unlabelled++;
    views.push({ index, ...viewFileNames(index), intrinsics: K, extrinsic, action: null });
    payloads.push({ rgb, depth: d.depth, ids });
  });
  if (measured === 0)
    throw new DatasetError(
      chosen[0]!.depth,
      `no depth pixel of the ${chosen.length} kept frame(s) is a measurement at ${scene.depthScale} raw units per metre (all 0, or beyond ${MAX_DEPTH_M} m); check the layout's depth scale`,
    );
  if (resized) notes.push("intrinsics scaled from the colour image's size to the depth image's (colour resampled onto the depth grid)");
  if (unlabelled) notes.push(`${unlabelled} mask pixel(s) with ids the aggregation does not label set to 0`);
  notes.push(`${chosen.length} of ${scene.frames.length} frames kept (--every ${o.every}, --max-views ${o.maxViews})`);
  const world = W ? "z-up-metres" : "unknown-up-metres";
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    task_id: safeName(scene.name),
    paradigm: "multi",
    simulator: `import:${layout}`,
    image: size!,
    conventions: { ...BUNDLE_CONVENTIONS, world },
    views,
    instances: (scene.instances ?? []).map((e) => ({ id: e.id, category: e.category, structure: STRUCTURE_CATEGORIES.has(e.category.toLowerCase()) })),
    imported: { layout, dir: scene.dir, depth_scale: scene.depthScale, up: up ?? "unknown", frames: chosen.map((f) => f.name), notes },
  };
  writeBundle(out, manifest, payloads);
  return { out, layout, frames: scene.frames.length, views: views.length, image: size!, world, masks: manifest.instances.length > 0, notes };
}

/**
 * The camera checks a bundle reader makes (bundle/view.ts), each named where its values came from: the pose's
 * file and line, the intrinsics' file (or --intrinsics), so an absurd but finite value (a translation of 1e300,
 * fx = 1e-300) is refused at import naming it, not later in `graph` naming no file.
 */
function checkFrameCamera(f: DatasetFrame, K: Intrinsics, extrinsic: Mat34, size: ImageSize, scene: DatasetScene, fromFlag: boolean): void {
  try {
    checkExtrinsic(extrinsic, f.poseFrom.file, `frame ${f.name}`);
  } catch (e) {
    if (e instanceof BundleError)
      throw new DatasetError(
        f.poseFrom.file,
        `${e.detail.replace(/^translation/, "camera position")} (the ${scene.layout} pose of frame ${f.name})`,
        f.poseFrom.field,
      );
    throw e;
  }
  try {
    checkIntrinsics(K, size, f.intrinsicsFrom.file, `frame ${f.name}`);
  } catch (e) {
    if (!(e instanceof BundleError)) throw e;
    if (fromFlag) throw new InputError(`--intrinsics: ${e.detail} (pixels of the depth image)`, { field: "intrinsics" });
    throw new DatasetError(
      f.intrinsicsFrom.file,
      `${e.detail} (the ${scene.layout} intrinsics of frame ${f.name}${f.intrinsicsSize ? `, scaled from ${f.intrinsicsSize.width}x${f.intrinsicsSize.height}` : ""})`,
      f.intrinsicsFrom.field,
    );
  }
}

/**
 * Intrinsics given for another image size are scaled to the depth image's, which is right only for the same
 * field of view: an aspect that differs (a cam_params.json of 10x the aspect) would scale fx and fy
 * unequally. Refused naming where the intrinsics came from.
 */
function checkIntrinsicsAspect(f: DatasetFrame, depth: ImageSize): void {
  const given = f.intrinsicsSize!;
  const a = given.width / given.height,
    b = depth.width / depth.height;
  if (Math.abs(a - b) > ASPECT_TOLERANCE * b)
    throw new DatasetError(
      f.intrinsicsFrom.file,
      `intrinsics are given for a ${given.width}x${given.height} image, whose aspect differs from the ${depth.width}x${depth.height} depth image's by more than ${ASPECT_TOLERANCE * 100} %; expected the same field of view (registered streams)`,
      f.intrinsicsFrom.field,
    );
}
