/**
 * The binary layout of one view upload (PUT /v1/sim/sessions/{id}/views/{n}, Content-Type
 * application/vnd.esi3d.view). All integers little-endian:
 *
 *   offset  size  field
 *   0       8     magic, ASCII "ESI3DVW1"
 *   8       4     uint32 H: bytes of the JSON header
 *   12      4     uint32 A: bytes of the RGB PNG
 *   16      4     uint32 D: bytes of the depth map (must be width * height * 4)
 *   20      4     uint32 I: bytes of the instance-id PNG
 *   24      H     JSON header, UTF-8: {"intrinsics": {fx, fy, cx, cy}, "extrinsic": [[...4], [...4], [...4]], "action": string | null}
 *   24+H    A     RGB PNG, 8-bit RGB or RGBA, width x height
 *   ...     D     depth, float32 little-endian, row-major, metric z-depth (m), 0 or non-finite = no measurement
 *   ...     I     instance ids, 16-bit (or 8-bit) greyscale PNG, width x height, 0 = none
 *
 * and the body is exactly 24 + H + A + D + I bytes. Uploads are checked here without decoding pixels (the
 * PNG headers, the depth size, the camera); the pixels are decoded and checked at finish, in a worker.
 */
import { rotationError } from "../../core/math/camera.js";
import { ROTATION_TOLERANCE } from "../../../bridge/bundle/io.js";
import { HttpError } from "./errors.js";
import { ViewHeaderSchema, type ViewHeader } from "./schemas.js";
import { MAX_VIEW_HEADER_BYTES } from "./limits.js";

export const VIEW_CONTENT_TYPE = "application/vnd.esi3d.view";
export const VIEW_MAGIC = "ESI3DVW1";
export const VIEW_PREAMBLE_BYTES = 24;

export interface ViewParts {
  header: ViewHeader;
  rgb: Buffer;
  depth: Buffer;
  inst: Buffer;
}

export function encodeView(header: ViewHeader, rgb: Uint8Array, depth: Uint8Array, inst: Uint8Array): Buffer {
  const h = Buffer.from(JSON.stringify(header), "utf8");
  const pre = Buffer.alloc(VIEW_PREAMBLE_BYTES);
  pre.write(VIEW_MAGIC, 0, "ascii");
  pre.writeUInt32LE(h.length, 8);
  pre.writeUInt32LE(rgb.byteLength, 12);
  pre.writeUInt32LE(depth.byteLength, 16);
  pre.writeUInt32LE(inst.byteLength, 20);
  return Buffer.concat([pre, h, rgb, depth, inst]);
}

/** Splits a stored upload (already checked by parseView) without checking again. */
export function splitView(buf: Buffer): ViewParts {
  const h = buf.readUInt32LE(8), a = buf.readUInt32LE(12), d = buf.readUInt32LE(16);
  let off = VIEW_PREAMBLE_BYTES;
  const header = JSON.parse(buf.toString("utf8", off, off + h)) as ViewHeader;
  off += h;
  const rgb = buf.subarray(off, off + a);
  off += a;
  const depth = buf.subarray(off, off + d);
  off += d;
  return { header, rgb, depth, inst: buf.subarray(off) };
}

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The IHDR of a PNG (the first chunk), or null when `b` does not start like a PNG. */
export function pngHeader(b: Buffer): PngHeader | null {
  if (b.length < 33 || !b.subarray(0, 8).equals(PNG_SIGNATURE) || b.toString("ascii", 12, 16) !== "IHDR" || b.readUInt32BE(8) !== 13) return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bitDepth: b[24]!, colorType: b[25]!, interlace: b[28]! };
}

/**
 * Checks the layout, the camera header, the PNG headers and the depth size of view `n` of a session with
 * images of `image` size. Errors are 400s whose field names the view: `views.<n>.<field>`.
 */
export function parseView(buf: Buffer, n: number, image: { width: number; height: number }): ViewParts {
  const f = (name: string) => `views.${n}.${name}`;
  const bad = (field: string, msg: string) => new HttpError(400, "invalid_view", `${field}: ${msg}`, field);
  if (buf.length < VIEW_PREAMBLE_BYTES) throw bad(f("layout"), `body has ${buf.length} bytes, less than the ${VIEW_PREAMBLE_BYTES}-byte preamble (see docs/protocol.md "Binary view layout")`);
  if (buf.toString("ascii", 0, 8) !== VIEW_MAGIC) throw bad(f("layout"), `expected the magic "${VIEW_MAGIC}" at offset 0`);
  const h = buf.readUInt32LE(8), a = buf.readUInt32LE(12), d = buf.readUInt32LE(16), i = buf.readUInt32LE(20);
  const total = VIEW_PREAMBLE_BYTES + h + a + d + i;
  if (total !== buf.length) throw bad(f("layout"), `the preamble declares 24 + ${h} + ${a} + ${d} + ${i} = ${total} bytes, the body has ${buf.length}`);
  if (h > MAX_VIEW_HEADER_BYTES) throw bad(f("header"), `${h} bytes, more than the ${MAX_VIEW_HEADER_BYTES}-byte limit`);
  let raw: unknown;
  try {
    raw = JSON.parse(buf.toString("utf8", VIEW_PREAMBLE_BYTES, VIEW_PREAMBLE_BYTES + h));
  } catch (e) {
    throw bad(f("header"), `not valid JSON (${(e as Error).message})`);
  }
  const parsed = ViewHeaderSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = f(issue.path.map(String).join(".") || "header");
    throw new HttpError(400, "invalid_view", parsed.error.issues.slice(0, 5).map((x) => `${f(x.path.map(String).join(".") || "header")}: ${x.message}`).join("; "), field);
  }
  const header = parsed.data;
  const R = header.extrinsic.map((r) => [r[0], r[1], r[2]]) as [[number, number, number], [number, number, number], [number, number, number]];
  const { orthoError, det } = rotationError(R);
  if (!(orthoError <= ROTATION_TOLERANCE) || !(Math.abs(det - 1) <= ROTATION_TOLERANCE))
    throw bad(f("extrinsic"), `rotation is not orthonormal with det +1 (|R R^T - I| = ${orthoError.toExponential(2)}, det = ${det.toFixed(6)}; tolerance ${ROTATION_TOLERANCE}); expected camera-from-world [R | t] with OpenCV camera axes`);
  const { width: W, height: H } = image;
  const { cx, cy } = header.intrinsics;
  if (!(cx >= -0.5 && cx <= W - 0.5) || !(cy >= -0.5 && cy <= H - 0.5))
    throw bad(f("intrinsics"), `principal point (${cx}, ${cy}) lies outside the ${W}x${H} image (expected cx in [-0.5, ${W - 0.5}], cy in [-0.5, ${H - 0.5}])`);
  let off = VIEW_PREAMBLE_BYTES + h;
  const rgb = buf.subarray(off, off + a);
  off += a;
  const depth = buf.subarray(off, off + d);
  off += d;
  const inst = buf.subarray(off, off + i);
  const rh = pngHeader(rgb);
  if (!rh) throw bad(f("rgb"), "not a PNG file (bad signature or no IHDR)");
  if (rh.width !== W || rh.height !== H) throw bad(f("rgb"), `image is ${rh.width}x${rh.height}, expected ${W}x${H} (the session's image size)`);
  if (rh.bitDepth !== 8 || (rh.colorType !== 2 && rh.colorType !== 6)) throw bad(f("rgb"), `expected an 8-bit RGB or RGBA PNG (colour type 2 or 6), found colour type ${rh.colorType} at ${rh.bitDepth} bits`);
  if (rh.interlace !== 0) throw bad(f("rgb"), "interlaced PNGs are not supported");
  if (d !== W * H * 4) throw bad(f("depth"), `${d} bytes, expected ${W * H * 4} (${W}x${H} float32 little-endian)`);
  const ih = pngHeader(inst);
  if (!ih) throw bad(f("instances"), "not a PNG file (bad signature or no IHDR)");
  if (ih.width !== W || ih.height !== H) throw bad(f("instances"), `image is ${ih.width}x${ih.height}, expected ${W}x${H}`);
  if (ih.colorType !== 0 || (ih.bitDepth !== 16 && ih.bitDepth !== 8)) throw bad(f("instances"), `expected a 16-bit (or 8-bit) greyscale PNG (colour type 0), found colour type ${ih.colorType} at ${ih.bitDepth} bits`);
  if (ih.interlace !== 0) throw bad(f("instances"), "interlaced PNGs are not supported");
  return { header, rgb, depth, inst };
}
