/**
 * One view of a frame bundle, from its encoded parts (RGB PNG, float32 depth, instance-id PNG) to pixels,
 * with every check a reader makes: the same rules whether the parts come from a bundle on disk
 * (io.ts readBundle) or from an upload (the service's view layout). The PNG headers are checked before any
 * pixel is inflated, and inflation is bounded by the size the header declares (png.ts), so a small file
 * cannot inflate to gigabytes. Errors are BundleErrors naming the file and the field
 * `views.<i>.<part>`.
 */
import { rotationError, type Intrinsics } from "../math/camera.js";
import { BundleError } from "./errors.js";
import { decodePng, pngHeader, PngError, rgbOf, type PngHeader } from "./png.js";

/**
 * The farthest depth a view may report (m). Depth is metric z along the camera axis, 0 or non-finite for "no
 * measurement"; anything beyond this is no room and no scene (a depth of 1e30 everywhere reached the
 * voxel grid as "voxelSize too small"). The same bound as a scene graph's coordinates (scenegraph/types.ts).
 */
export const MAX_DEPTH_M = 10_000;

/** Rotation rows must be orthonormal to this tolerance (float32 files give ~1e-7). */
const ROTATION_TOLERANCE = 1e-4;

export interface ViewPayload {
  rgb: Uint8Array;
  /** Alpha per pixel when the RGB PNG is RGBA with some transparency (never written: bundles are written as RGB). */
  alpha?: Uint8Array;
  depth: Float32Array;
  ids: Uint16Array;
  /** Scenes with mirrors: per pixel the instance id a mirror pixel's reflected ray hits (0 elsewhere). */
  reflectedIds?: Uint16Array;
  /** Scenes with mirrors: the z-depth (m) of that point's mirror image, the reflected path (0 elsewhere). */
  reflectedDepth?: Float32Array;
}

/** The three encoded parts of a view, as stored. */
export interface EncodedView {
  rgb: Uint8Array;
  depth: Uint8Array;
  instances: Uint8Array;
}

export type ViewPart = keyof EncodedView;

/** Where a view came from, for messages: its index, the file of each part, and where its ids are declared. */
export interface ViewPlace {
  index: number;
  files: Record<ViewPart, string>;
  /** e.g. `bundle.json "instances"` */
  idsFrom: string;
}

export interface ImageSize {
  width: number;
  height: number;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function float32ToLE(a: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const b = Buffer.alloc(a.length * 4);
  for (let i = 0; i < a.length; i++) b.writeFloatLE(a[i]!, i * 4);
  return b;
}

function float32FromLE(b: Uint8Array): Float32Array {
  // a file's own buffer, 4-byte aligned, is used in place (no copy of 0.8 MB per view)
  if (LITTLE_ENDIAN && b.byteOffset % 4 === 0 && b.byteLength % 4 === 0 && b.byteLength === b.buffer.byteLength)
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const out = new Float32Array(b.byteLength / 4);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(b);
  else {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  }
  return out;
}

/**
 * The farthest a camera may stand from the world origin (m): the bound on every point of a scene graph
 * (scenegraph/types.ts MAX_COORDINATE_M), and where float32 coordinates still resolve a millimetre. A pose at
 * 1e300 m imported silently and failed later in `graph` as a non-finite point, naming no file.
 */
const MAX_CAMERA_DISTANCE_M = 10_000;
/**
 * A pinhole camera's field of view, across the image's width or height, lies within these (degrees): narrower
 * than 0.1 deg is no lens a scene is filmed with, and a pinhole cannot see 180 deg. Focal lengths outside (fx =
 * 1e-300 px) put every point at infinity; fx = Infinity puts them all on the optical axis.
 */
const MIN_FIELD_OF_VIEW_DEG = 0.1;
const MAX_FIELD_OF_VIEW_DEG = 179;

/** The focal lengths (pixels) of the field-of-view bounds for an image side of `side` pixels. */
function focalRangePx(side: number): { min: number; max: number } {
  const f = (fovDeg: number) => side / 2 / Math.tan((fovDeg * Math.PI) / 360);
  return { min: f(MAX_FIELD_OF_VIEW_DEG), max: f(MIN_FIELD_OF_VIEW_DEG) };
}

/**
 * Checks a view's extrinsic: finite, the camera within MAX_CAMERA_DISTANCE_M of the origin (|t| is its distance
 * for a rigid [R | t]), the rotation orthonormal with det +1. Errors name `<field>.extrinsic`.
 */
export function checkExtrinsic(extrinsic: readonly (readonly number[])[], file: string, field: string): void {
  const flat = extrinsic.flatMap((r) => [...r]);
  if (!flat.every(Number.isFinite))
    throw new BundleError(
      file,
      `${field}.extrinsic`,
      `holds a non-finite number (${flat.find((x) => !Number.isFinite(x))}); expected camera-from-world [R | t] of finite numbers`,
    );
  const t = extrinsic.map((r) => r[3]!);
  const distance = Math.hypot(t[0]!, t[1]!, t[2]!);
  if (!(distance <= MAX_CAMERA_DISTANCE_M))
    throw new BundleError(
      file,
      `${field}.extrinsic`,
      `translation (${t.map((x) => x.toPrecision(4)).join(", ")}) puts the camera ${distance.toPrecision(4)} m from the origin; expected at most ${MAX_CAMERA_DISTANCE_M} m (metres, a room or a building)`,
    );
  const R = extrinsic.map((r) => [r[0], r[1], r[2]]) as [[number, number, number], [number, number, number], [number, number, number]];
  const { orthoError, det } = rotationError(R);
  if (!(orthoError <= ROTATION_TOLERANCE) || !(Math.abs(det - 1) <= ROTATION_TOLERANCE))
    throw new BundleError(
      file,
      `${field}.extrinsic`,
      `rotation is not orthonormal with det +1 (|R R^T - I| = ${orthoError.toExponential(2)}, det = ${det.toFixed(6)}; tolerance ${ROTATION_TOLERANCE}); expected camera-from-world [R | t] with OpenCV camera axes`,
    );
}

/**
 * Checks a view's intrinsics against its image: focal lengths finite and of a field of view within
 * [MIN_FIELD_OF_VIEW_DEG, MAX_FIELD_OF_VIEW_DEG], the principal point on the image. Errors name `<field>.intrinsics`.
 */
export function checkIntrinsics(K: Intrinsics, image: ImageSize, file: string, field: string): void {
  const { width: W, height: H } = image;
  for (const [name, f, side] of [
    ["fx", K.fx, W],
    ["fy", K.fy, H],
  ] as const) {
    const r = focalRangePx(side);
    if (!(Number.isFinite(f) && f >= r.min && f <= r.max))
      throw new BundleError(
        file,
        `${field}.intrinsics`,
        `${name} = ${f} px on a ${W}x${H} image; expected a finite focal length in [${r.min.toPrecision(3)}, ${r.max.toPrecision(3)}] px (a field of view of ${MIN_FIELD_OF_VIEW_DEG} to ${MAX_FIELD_OF_VIEW_DEG} deg across ${side} px)`,
      );
  }
  const { cx, cy } = K;
  if (!(cx >= -0.5 && cx <= W - 0.5) || !(cy >= -0.5 && cy <= H - 0.5))
    throw new BundleError(
      file,
      `${field}.intrinsics`,
      `principal point (${cx}, ${cy}) lies outside the ${W}x${H} image (expected cx in [-0.5, ${W - 0.5}], cy in [-0.5, ${H - 0.5}])`,
    );
}

/** Checks a view's camera: its extrinsic (checkExtrinsic), then its intrinsics (checkIntrinsics). */
export function checkCamera(v: { intrinsics: Intrinsics; extrinsic: readonly (readonly number[])[] }, image: ImageSize, file: string, field: string): void {
  checkExtrinsic(v.extrinsic, file, field);
  checkIntrinsics(v.intrinsics, image, file, field);
}

/** RGB: 8-bit RGB (colour type 2), palette (3) or RGBA (6). */
const RGB_COLOR_TYPES = [2, 3, 6];

/** One encoded image of a view, for messages: its file and its field (`views.3.depth`). */
interface PartPlace {
  file: string;
  field: string;
}

const partOf = (place: ViewPlace, part: ViewPart): PartPlace => ({ file: place.files[part], field: `views.${place.index}.${part}` });

/** A PNG's header, checked: a PNG of the image's size, not interlaced. */
function pngPartHeader(bytes: Uint8Array, image: ImageSize, at: PartPlace): PngHeader {
  const { width: W, height: H } = image;
  const h = pngHeader(bytes);
  if (!h) throw new BundleError(at.file, at.field, "not a PNG file (bad signature or no IHDR)");
  if (h.width !== W || h.height !== H)
    throw new BundleError(at.file, at.field, `image is ${h.width}x${h.height}, expected ${W}x${H} (the bundle's image size)`);
  if (h.interlace !== 0) throw new BundleError(at.file, at.field, "interlaced PNGs are not supported");
  return h;
}

/** An id image's header, checked: pngPartHeader, and single-channel 16- or 8-bit. */
function idsHeader(bytes: Uint8Array, image: ImageSize, at: PartPlace): PngHeader {
  const h = pngPartHeader(bytes, image, at);
  if (h.colorType !== 0 || (h.bitDepth !== 16 && h.bitDepth !== 8))
    throw new BundleError(
      at.file,
      at.field,
      `expected a single-channel (greyscale) 16- or 8-bit PNG (colour type 0), found colour type ${h.colorType} at ${h.bitDepth} bits`,
    );
  return h;
}

/** A depth file's size, checked: exactly width x height float32 values. */
function checkDepthSize(bytes: Uint8Array, image: ImageSize, at: PartPlace): void {
  const { width: W, height: H } = image;
  if (bytes.byteLength !== W * H * 4)
    throw new BundleError(at.file, at.field, `file has ${bytes.byteLength} bytes, expected ${W * H * 4} (${W}x${H} float32 little-endian)`);
}

/**
 * The header-only checks of a view (no pixel decoded): both PNGs of the image's size and of the right
 * colour type, not interlaced, and the depth exactly width x height float32 values.
 */
export function checkViewHeaders(encoded: EncodedView, image: ImageSize, place: ViewPlace): { rgb: PngHeader; instances: PngHeader } {
  const rgb = pngPartHeader(encoded.rgb, image, partOf(place, "rgb"));
  if (rgb.bitDepth !== 8 || !RGB_COLOR_TYPES.includes(rgb.colorType))
    throw new BundleError(
      place.files.rgb,
      `views.${place.index}.rgb`,
      `expected an 8-bit RGB or RGBA PNG (colour type 2 or 6), found colour type ${rgb.colorType} at ${rgb.bitDepth} bits`,
    );
  checkDepthSize(encoded.depth, image, partOf(place, "depth"));
  const instances = idsHeader(encoded.instances, image, partOf(place, "instances"));
  return { rgb, instances };
}

function decodePart(bytes: Uint8Array, at: PartPlace): ReturnType<typeof decodePng> {
  try {
    return decodePng(bytes);
  } catch (e) {
    if (e instanceof PngError) throw new BundleError(at.file, at.field, e.message);
    throw e;
  }
}

/** A depth file's values (its size checked before), each a depth up to MAX_DEPTH_M or no measurement. */
function decodeDepth(bytes: Uint8Array, width: number, at: PartPlace): Float32Array {
  const depth = float32FromLE(bytes);
  const far = firstTooFar(depth);
  if (far >= 0)
    throw new BundleError(
      at.file,
      at.field,
      `pixel (${far % width}, ${Math.floor(far / width)}) has depth ${depth[far]} m; expected metres up to ${MAX_DEPTH_M}, or 0 / non-finite for no measurement`,
    );
  return depth;
}

/** An id image's ids (its header checked before), each in `knownIds` or 0; `idsFrom` says where ids are declared. */
function decodeIds(bytes: Uint8Array, width: number, knownIds: ReadonlySet<number>, at: PartPlace, idsFrom: string): Uint16Array {
  const png = decodePart(bytes, at);
  const ids = png.bitDepth === 16 ? (png.data as Uint16Array) : Uint16Array.from(png.data);
  // a table over every 16-bit id: one byte load per pixel instead of a Set lookup
  const known = new Uint8Array(65536);
  known[0] = 1;
  for (const id of knownIds) if (id >= 0 && id < 65536) known[id] = 1;
  const p = firstUnknownId(ids, known);
  if (p >= 0) throw new BundleError(at.file, at.field, `pixel (${p % width}, ${Math.floor(p / width)}) has id ${ids[p]}, which is not in ${idsFrom}`);
  return ids;
}

/**
 * Decodes and checks one view: the headers first (checkViewHeaders), then the pixels, then every instance
 * id against `knownIds` (0 = none). Throws a BundleError naming the part's file and field.
 */
export function decodeViewPayload(encoded: EncodedView, image: ImageSize, knownIds: ReadonlySet<number>, place: ViewPlace): ViewPayload {
  const { width: W, height: H } = image;
  checkViewHeaders(encoded, image, place);
  const rgbPng = decodePart(encoded.rgb, partOf(place, "rgb"));
  const rgb = rgbOf(rgbPng.data as Uint8Array, rgbPng.channels, W * H);
  const alpha = rgbPng.channels === 4 ? alphaOf(rgbPng.data as Uint8Array, W * H) : undefined;
  const depth = decodeDepth(encoded.depth, W, partOf(place, "depth"));
  const ids = decodeIds(encoded.instances, W, knownIds, partOf(place, "instances"), place.idsFrom);
  return alpha ? { rgb, alpha, depth, ids } : { rgb, depth, ids };
}

/** A view's two reflection images, as stored (schema.ts ReflectionFilesSchema). */
export interface EncodedReflection {
  instances: Uint8Array;
  depth: Uint8Array;
}

/**
 * Decodes and checks a view's reflection images by the rules of its instance and depth images; fields are
 * `views.<i>.reflection.instances` and `.depth`, files those in `files`.
 */
export function decodeReflection(
  encoded: EncodedReflection,
  image: ImageSize,
  knownIds: ReadonlySet<number>,
  place: { index: number; files: Record<keyof EncodedReflection, string>; idsFrom: string },
): Required<Pick<ViewPayload, "reflectedIds" | "reflectedDepth">> {
  const at = (part: keyof EncodedReflection): PartPlace => ({ file: place.files[part], field: `views.${place.index}.reflection.${part}` });
  idsHeader(encoded.instances, image, at("instances"));
  checkDepthSize(encoded.depth, image, at("depth"));
  return {
    reflectedIds: decodeIds(encoded.instances, image.width, knownIds, at("instances"), place.idsFrom),
    reflectedDepth: decodeDepth(encoded.depth, image.width, at("depth")),
  };
}

/**
 * The first pixel whose depth is beyond MAX_DEPTH_M (and not +Infinity, "no measurement"), or -1. A loop of
 * its own: inside decodeViewPayload, V8 compiled it on stack and then discarded that code at the first call
 * after it, once per view (26 deoptimisations per 30-view bundle).
 */
function firstTooFar(depth: Float32Array): number {
  for (let p = 0; p < depth.length; p++) {
    const d = depth[p]!;
    if (d > MAX_DEPTH_M && d !== Infinity) return p;
  }
  return -1;
}

/** The first pixel whose id `known` does not mark, or -1. */
function firstUnknownId(ids: Uint16Array, known: Uint8Array): number {
  for (let p = 0; p < ids.length; p++) if (known[ids[p]!] === 0) return p;
  return -1;
}

/** The alpha channel of 8-bit RGBA pixels, or undefined when every pixel is opaque. */
function alphaOf(rgba: Uint8Array, pixels: number): Uint8Array | undefined {
  const a = new Uint8Array(pixels);
  let opaque = true;
  for (let p = 0; p < pixels; p++) if ((a[p] = rgba[4 * p + 3]!) !== 255) opaque = false;
  return opaque ? undefined : a;
}
