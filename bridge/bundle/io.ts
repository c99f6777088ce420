/**
 * Reading and writing frame bundles. Reading validates everything and fails with a BundleError naming
 * the file and field; writing is atomic (a temporary directory renamed into place), so an interrupted
 * render never leaves a bundle that looks complete.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import type { Mat34 } from "../../src/core/math/vec.js";
import { rotationError, type Intrinsics } from "../../src/core/math/camera.js";
import { decodePng, encodePng, PngError, rgbOf } from "./png.js";
import { BundleManifestSchema, type BundleManifest } from "./schema.js";
import { formatZodIssues, InputError } from "../../src/core/errors.js";

/** Rotation rows must be orthonormal to this tolerance (float32 files give ~1e-7). */
export const ROTATION_TOLERANCE = 1e-4;

/** A frame bundle that cannot be read: names the file and the field. */
export class BundleError extends InputError {
  declare readonly file: string;
  declare readonly field: string;
  constructor(file: string, field: string, message: string) {
    super(`${file}: ${field}: ${message}`, { file, field });
    this.name = "BundleError";
  }
}

export interface ViewData {
  index: number;
  width: number;
  height: number;
  /** RGB, 3 bytes per pixel, row-major. */
  rgb: Uint8Array;
  /** Metric z-depth (m), 0 = no measurement. */
  depth: Float32Array;
  /** Instance id per pixel, 0 = none. */
  ids: Uint16Array;
  K: Intrinsics;
  E: Mat34;
  action: string | null;
}

export interface FrameBundle {
  dir: string;
  manifest: BundleManifest;
  views: ViewData[];
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function float32ToLE(a: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const b = Buffer.alloc(a.length * 4);
  for (let i = 0; i < a.length; i++) b.writeFloatLE(a[i]!, i * 4);
  return b;
}

export function float32FromLE(b: Buffer): Float32Array {
  const out = new Float32Array(b.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(b);
  else for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** Reads and validates bundle.json only. */
export function readManifest(dir: string): BundleManifest {
  const file = join(dir, "bundle.json");
  if (!existsSync(dir)) throw new BundleError(dir, "bundle", "directory does not exist");
  if (!existsSync(file)) throw new BundleError(file, "bundle.json", "missing (not a frame bundle, or an interrupted write)");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new BundleError(file, "json", `not valid JSON (${(e as Error).message})`);
  }
  const parsed = BundleManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new BundleError(file, first.path.join(".") || "(root)", formatZodIssues(parsed.error.issues));
  }
  const m = parsed.data;
  m.views.forEach((v, i) => {
    const field = `views.${i}`;
    if (v.index !== i) throw new BundleError(file, `${field}.index`, `expected ${i} (views must be numbered 0..n-1 in order), found ${v.index}`);
    const R = v.extrinsic.map((r) => [r[0], r[1], r[2]]) as [[number, number, number], [number, number, number], [number, number, number]];
    const { orthoError, det } = rotationError(R);
    if (!(orthoError <= ROTATION_TOLERANCE) || !(Math.abs(det - 1) <= ROTATION_TOLERANCE))
      throw new BundleError(file, `${field}.extrinsic`, `rotation is not orthonormal with det +1 (|R R^T - I| = ${orthoError.toExponential(2)}, det = ${det.toFixed(6)}; tolerance ${ROTATION_TOLERANCE})`);
    const { cx, cy } = v.intrinsics;
    const { width, height } = m.image;
    if (!(cx >= -0.5 && cx <= width - 0.5) || !(cy >= -0.5 && cy <= height - 0.5))
      throw new BundleError(file, `${field}.intrinsics`, `principal point (${cx}, ${cy}) lies outside the ${width}x${height} image (expected cx in [-0.5, ${width - 0.5}], cy in [-0.5, ${height - 0.5}])`);
  });
  const ids = new Set<number>();
  m.instances.forEach((e, i) => {
    if (ids.has(e.id)) throw new BundleError(file, `instances.${i}.id`, `duplicate id ${e.id}`);
    ids.add(e.id);
  });
  return m;
}

function readViewFiles(dir: string, m: BundleManifest, i: number, knownIds: Set<number>): ViewData {
  const v = m.views[i]!;
  const { width: W, height: H } = m.image;
  const load = (rel: string, field: string): Buffer => {
    const p = resolve(dir, rel);
    if (!p.startsWith(resolve(dir))) throw new BundleError(join(dir, "bundle.json"), `views.${i}.${field}`, `path "${rel}" leaves the bundle directory`);
    if (!existsSync(p)) throw new BundleError(p, `views.${i}.${field}`, "file is missing");
    return readFileSync(p);
  };
  const decode = (rel: string, field: string) => {
    const buf = load(rel, field);
    try {
      return decodePng(buf);
    } catch (e) {
      if (e instanceof PngError) throw new BundleError(join(dir, rel), `views.${i}.${field}`, e.message);
      throw e;
    }
  };
  const rgbPng = decode(v.rgb, "rgb");
  if (rgbPng.width !== W || rgbPng.height !== H)
    throw new BundleError(join(dir, v.rgb), `views.${i}.rgb`, `image is ${rgbPng.width}x${rgbPng.height}, expected ${W}x${H} (bundle image size)`);
  if (rgbPng.channels < 3 || rgbPng.bitDepth !== 8)
    throw new BundleError(join(dir, v.rgb), `views.${i}.rgb`, `expected an 8-bit RGB or RGBA PNG, found ${rgbPng.channels} channel(s) at ${rgbPng.bitDepth} bits`);
  const rgb = rgbOf(rgbPng.data as Uint8Array, rgbPng.channels, W * H);
  const depthBuf = load(v.depth, "depth");
  if (depthBuf.length !== W * H * 4)
    throw new BundleError(join(dir, v.depth), `views.${i}.depth`, `file has ${depthBuf.length} bytes, expected ${W * H * 4} (${W}x${H} float32)`);
  const depth = float32FromLE(depthBuf);
  const instPng = decode(v.instances, "instances");
  if (instPng.width !== W || instPng.height !== H)
    throw new BundleError(join(dir, v.instances), `views.${i}.instances`, `image is ${instPng.width}x${instPng.height}, expected ${W}x${H}`);
  if (instPng.channels !== 1)
    throw new BundleError(join(dir, v.instances), `views.${i}.instances`, `expected a single-channel (greyscale) PNG, found ${instPng.channels} channels`);
  const ids = instPng.bitDepth === 16 ? (instPng.data as Uint16Array) : Uint16Array.from(instPng.data);
  for (let p = 0; p < ids.length; p++) {
    const id = ids[p]!;
    if (id !== 0 && !knownIds.has(id))
      throw new BundleError(join(dir, v.instances), `views.${i}.instances`, `pixel (${p % W}, ${Math.floor(p / W)}) has id ${id}, which is not in bundle.json "instances"`);
  }
  return viewData(m, i, { rgb, depth, ids });
}

/** View i of a bundle in memory: its manifest entry (camera, action) with its pixels. */
export function viewData(m: BundleManifest, i: number, pixels: ViewPayload): ViewData {
  const v = m.views[i]!;
  return { index: i, width: m.image.width, height: m.image.height, ...pixels, K: v.intrinsics, E: v.extrinsic as Mat34, action: v.action };
}

/** Reads and validates a whole bundle. */
export function readBundle(dir: string): FrameBundle {
  const manifest = readManifest(dir);
  const knownIds = new Set(manifest.instances.map((e) => e.id));
  const views = manifest.views.map((_, i) => readViewFiles(dir, manifest, i, knownIds));
  return { dir, manifest, views };
}

export interface ViewPayload {
  rgb: Uint8Array;
  depth: Float32Array;
  ids: Uint16Array;
}

export function viewFileNames(index: number): { rgb: string; depth: string; instances: string } {
  const n = String(index).padStart(3, "0");
  return { rgb: `views/${n}_rgb.png`, depth: `views/${n}_depth.f32`, instances: `views/${n}_inst.png` };
}

/**
 * Writes a bundle atomically: everything goes into a temporary sibling directory that is renamed to
 * `dir` only when complete. An existing bundle at `dir` is replaced.
 */
export function writeBundle(dir: string, manifest: BundleManifest, payloads: readonly ViewPayload[]): void {
  const parsed = BundleManifestSchema.parse(manifest);
  if (payloads.length !== parsed.views.length) throw new Error(`writeBundle: ${parsed.views.length} views in manifest, ${payloads.length} payloads`);
  const parent = dirname(resolve(dir));
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(join(tmp, "views"), { recursive: true });
  try {
    const { width: W, height: H } = parsed.image;
    parsed.views.forEach((v, i) => {
      const p = payloads[i]!;
      writeFileSync(join(tmp, v.rgb), encodePng(W, H, 3, 8, p.rgb));
      writeFileSync(join(tmp, v.depth), float32ToLE(p.depth));
      writeFileSync(join(tmp, v.instances), encodePng(W, H, 1, 16, p.ids));
    });
    writeFileSync(join(tmp, "bundle.json"), JSON.stringify(parsed, null, 1) + "\n");
    replaceDir(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Renames `tmp` to `dir`, replacing an existing `dir` (moved aside first, then removed). */
export function replaceDir(tmp: string, dir: string): void {
  if (existsSync(dir)) {
    const old = `${dir}.old-${process.pid}-${randomBytes(4).toString("hex")}`;
    renameSync(dir, old);
    renameSync(tmp, dir);
    rmSync(old, { recursive: true, force: true });
  } else {
    renameSync(tmp, dir);
  }
}
