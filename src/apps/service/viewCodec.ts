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
 * PNG headers, the depth size, the camera, with the bundle reader's own rules: core/bundle/view.ts); the
 * pixels are decoded and checked at finish, in a worker, by the same decoder the bundle reader uses.
 */
import { BundleError } from "../../../core/bundle/errors.js";
import { checkCamera, checkViewHeaders } from "../../../core/bundle/view.js";
import { zodIssues } from "../../../core/errors.js";
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
  const h = buf.readUInt32LE(8),
    a = buf.readUInt32LE(12),
    d = buf.readUInt32LE(16);
  let off = VIEW_PREAMBLE_BYTES;
  const header = JSON.parse(buf.toString("utf8", off, off + h)) as ViewHeader;
  off += h;
  const rgb = buf.subarray(off, off + a);
  off += a;
  const depth = buf.subarray(off, off + d);
  off += d;
  return { header, rgb, depth, inst: buf.subarray(off) };
}

/**
 * Checks the layout, the camera header, the PNG headers and the depth size of view `n` of a session with
 * images of `image` size. Errors are 400s whose field names the view: `views.<n>.<field>`.
 */
export function parseView(buf: Buffer, n: number, image: { width: number; height: number }): ViewParts {
  const f = (name: string) => `views.${n}.${name}`;
  const bad = (field: string, msg: string) => new HttpError(400, "invalid_view", `${field}: ${msg}`, field);
  if (buf.length < VIEW_PREAMBLE_BYTES)
    throw bad(f("layout"), `body has ${buf.length} bytes, less than the ${VIEW_PREAMBLE_BYTES}-byte preamble (see docs/protocol.md "Binary view layout")`);
  if (buf.toString("ascii", 0, 8) !== VIEW_MAGIC) throw bad(f("layout"), `expected the magic "${VIEW_MAGIC}" at offset 0`);
  const h = buf.readUInt32LE(8),
    a = buf.readUInt32LE(12),
    d = buf.readUInt32LE(16),
    i = buf.readUInt32LE(20);
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
    const issues = zodIssues(parsed.error.issues).map((x) => ({ field: f(x.field === "(root)" ? "header" : x.field), message: x.message }));
    throw new HttpError(400, "invalid_view", issues.map((x) => `${x.field}: ${x.message}`).join("; "), issues[0]!.field, {}, issues);
  }
  const header = parsed.data;
  let off = VIEW_PREAMBLE_BYTES + h;
  const rgb = buf.subarray(off, off + a);
  off += a;
  const depth = buf.subarray(off, off + d);
  off += d;
  const inst = buf.subarray(off, off + i);
  try {
    const upload = `view ${n}`;
    checkCamera(header, image, upload, `views.${n}`);
    checkViewHeaders({ rgb, depth, instances: inst }, image, { index: n, files: { rgb: upload, depth: upload, instances: upload }, idsFrom: "" });
  } catch (e) {
    if (e instanceof BundleError) throw bad(e.field, e.detail);
    throw e;
  }
  return { header, rgb, depth, inst };
}
