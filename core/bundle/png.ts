/**
 * PNG encode/decode on Node's native zlib. Our own codec, because the bundle writer encodes ~60 images
 * per 30-view bundle: measured here at 4 ms per 518x392 RGB image versus 25 ms for fast-png (pure-JS
 * deflate) — see docs/dependencies.md. Supports what bundles need: 8-bit RGB, 8/16-bit grey on
 * write; on read any non-interlaced grey/grey+alpha/RGB/RGBA/palette image of depth 8 or 16. Decoding
 * never inflates more than the header's size allows (a small file cannot inflate to gigabytes).
 */
import { constants as bufferConstants } from "node:buffer";
import zlib from "node:zlib";
import { pngChunk } from "./pngChunk.js";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/**
 * zlib level for bundle images: 3. Measured on a 30-view 518x392 bundle's 60 images (issue 19): level 6
 * (zlib's default, used before) 80 ms and 0.30 MB, level 3 22 ms and 0.46 MB, level 1 21 ms and 0.50 MB.
 * The 0.16 MB more is under 1 % of the bundle (its float32 depth is 24 MB); the pixels are the same
 * (test/core/bundle/png.test.ts decodes a rendered view at both levels). Those sizes are of Sub-filtered rows;
 * unfiltered (encodePng) the bench bundle's 60 images are 0.41 MB at level 3.
 */
const PNG_ZLIB_LEVEL = 3;

/**
 * Encodes raw samples. `channels` 1 (grey) or 3 (RGB); `bitDepth` 8 or 16 (16-bit samples are given as
 * a Uint16Array and written big-endian, as PNG requires). Rows are not filtered (filter type 0): a rendered
 * view is flat-shaded surfaces, runs that deflate finds without a filter. On a 30-view 518x392 bundle's 60
 * images (issue 19) the Sub filter, used before, gave 0.414 MB against 0.408 MB and the same deflate time, but
 * reading them back took 26.9 ms against 5.5 ms unfiltered (undoing Sub is a running sum per byte; an
 * unfiltered row is one copy), and writing them 46.6 ms against 27.1 ms.
 */
export function encodePng(width: number, height: number, channels: 1 | 3, bitDepth: 8 | 16, data: Uint8Array | Uint16Array): Buffer {
  if (data.length !== width * height * channels) throw new Error(`encodePng: expected ${width * height * channels} samples, got ${data.length}`);
  const raw = bitDepth === 8 ? unfiltered8(data as Uint8Array, width * channels, height) : unfiltered16(data as Uint16Array, width * channels, height);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = channels === 1 ? 0 : 2;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    SIGNATURE,
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlib.deflateSync(raw, { level: PNG_ZLIB_LEVEL })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The scanlines of 8-bit samples, each after its filter byte 0 (none); every byte is written, so no zero fill. */
function unfiltered8(src: Uint8Array, rowBytes: number, height: number): Buffer {
  const raw = Buffer.allocUnsafe((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (rowBytes + 1);
    raw[o] = 0;
    raw.set(src.subarray(y * rowBytes, (y + 1) * rowBytes), o + 1);
  }
  return raw;
}

/** The scanlines of 16-bit samples as big-endian bytes, unfiltered (`samplesPerRow` = width x channels). */
function unfiltered16(src: Uint16Array, samplesPerRow: number, height: number): Buffer {
  const rowBytes = 2 * samplesPerRow;
  const raw = Buffer.allocUnsafe((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (rowBytes + 1) + 1,
      s0 = y * samplesPerRow;
    raw[o - 1] = 0;
    for (let k = 0; k < samplesPerRow; k++) {
      const v = src[s0 + k]!;
      raw[o + 2 * k] = v >>> 8;
      raw[o + 2 * k + 1] = v & 255;
    }
  }
  return raw;
}

export interface DecodedPng {
  width: number;
  height: number;
  /** Channels after palette expansion: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
  channels: number;
  bitDepth: 8 | 16;
  data: Uint8Array | Uint16Array;
}

export class PngError extends Error {}

/** The IHDR fields a reader checks before decoding. */
export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** Channels per colour type (palette images are one index per pixel before expansion). */
const CHANNELS_BY_COLOR_TYPE: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/**
 * Bytes allowed beyond the filtered scanlines a header declares: a conforming encoder writes none, a few
 * write a little padding. Anything more is refused before it is inflated.
 */
const PNG_INFLATE_SLACK_BYTES = 1024;

/** The IHDR of a PNG (it must be the first chunk), or null when `b` does not start like a PNG. */
export function pngHeader(buf: Uint8Array): PngHeader | null {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 33 || !b.subarray(0, 8).equals(SIGNATURE) || b.toString("ascii", 12, 16) !== "IHDR" || b.readUInt32BE(8) !== 13) return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bitDepth: b[24]!, colorType: b[25]!, interlace: b[28]! };
}

/** The most bytes the image data of `h` may inflate to: its filtered scanlines plus PNG_INFLATE_SLACK_BYTES. */
/**
 * The largest single output chunk inflate starts with (64 MiB): an image's whole filtered data in one
 * buffer (a 320x240 RGB view is 0.23 MB), while a header that claims a huge image cannot make it allocate
 * more than this before any data has inflated.
 */
const PNG_INFLATE_CHUNK_CAP_BYTES = 64 << 20;

function maxInflatedBytes(h: Pick<PngHeader, "width" | "height" | "bitDepth" | "colorType">): number {
  const channels = CHANNELS_BY_COLOR_TYPE[h.colorType] ?? 4;
  const rowBytes = Math.ceil((h.width * channels * h.bitDepth) / 8);
  return Math.min(bufferConstants.MAX_LENGTH, (rowBytes + 1) * h.height + PNG_INFLATE_SLACK_BYTES);
}

/**
 * Undoes the row filters in place: row y's pixels are written at y * rowBytes, never past the filtered
 * bytes of that row still to be read (at y * (rowBytes + 1) + 1 on), and the row above is already pixels;
 * the result is the front of `raw`. One small function per filter type (the filter is chosen per row, not
 * per byte, and V8 optimises each short loop whole), the first `bpp` bytes of a row (no left neighbour) and
 * the first row (no row above) handled before the loop so the loop body has no branches. Stores into the
 * Uint8Array wrap modulo 256, as the filters' arithmetic does. Bit-identical to the per-byte form it
 * replaced (test/core/bundle/png.test.ts checks every filter against fast-png).
 */
function unfilterScanlines(raw: Buffer, rowBytes: number, height: number, bpp: number): Buffer {
  const out = raw;
  const zeroRow = Buffer.alloc(rowBytes); // a Buffer like `out`, so the loops see one array type
  for (let y = 0; y < height; y++) {
    const s = y * (rowBytes + 1) + 1;
    const filter = raw[s - 1]!;
    const o = y * rowBytes;
    // `up` indexes the row above in `out`, or the zero row for the first one.
    const above = y > 0 ? out : zeroRow;
    const u = y > 0 ? o - rowBytes : 0;
    if (filter === 0) out.copyWithin(o, s, s + rowBytes);
    else if (filter === 1) unfilterSub(raw, s, out, o, rowBytes, bpp);
    else if (filter === 2) unfilterUp(raw, s, out, o, above, u, rowBytes);
    else if (filter === 3) unfilterAverage(raw, s, out, o, above, u, rowBytes, bpp);
    else if (filter === 4) unfilterPaeth(raw, s, out, o, above, u, rowBytes, bpp);
    else throw new PngError(`corrupt PNG: unknown row filter ${filter}`);
  }
  return out.subarray(0, rowBytes * height);
}

function unfilterSub(raw: Uint8Array, s: number, out: Buffer, o: number, rowBytes: number, bpp: number): void {
  // the bundles' own images (RGB, 16-bit ids): the running sums stay in registers, not read back from `out`
  if (bpp === 3) return unfilterSub3(raw, s, out, o, rowBytes);
  if (bpp === 2) return unfilterSub2(raw, s, out, o, rowBytes);
  for (let x = 0; x < bpp; x++) out[o + x] = raw[s + x]!;
  for (let x = bpp; x < rowBytes; x++) out[o + x] = raw[s + x]! + out[o + x - bpp]!;
}

function unfilterSub3(raw: Uint8Array, s: number, out: Buffer, o: number, rowBytes: number): void {
  let r = 0,
    g = 0,
    b = 0;
  for (let x = 0; x < rowBytes; x += 3) {
    r = (r + raw[s + x]!) & 255;
    g = (g + raw[s + x + 1]!) & 255;
    b = (b + raw[s + x + 2]!) & 255;
    out[o + x] = r;
    out[o + x + 1] = g;
    out[o + x + 2] = b;
  }
}

function unfilterSub2(raw: Uint8Array, s: number, out: Buffer, o: number, rowBytes: number): void {
  let hi = 0,
    lo = 0;
  for (let x = 0; x < rowBytes; x += 2) {
    hi = (hi + raw[s + x]!) & 255;
    lo = (lo + raw[s + x + 1]!) & 255;
    out[o + x] = hi;
    out[o + x + 1] = lo;
  }
}

function unfilterUp(raw: Uint8Array, s: number, out: Buffer, o: number, above: Buffer, u: number, rowBytes: number): void {
  for (let x = 0; x < rowBytes; x++) out[o + x] = raw[s + x]! + above[u + x]!;
}

function unfilterAverage(raw: Uint8Array, s: number, out: Buffer, o: number, above: Buffer, u: number, rowBytes: number, bpp: number): void {
  for (let x = 0; x < bpp; x++) out[o + x] = raw[s + x]! + (above[u + x]! >>> 1);
  for (let x = bpp; x < rowBytes; x++) out[o + x] = raw[s + x]! + ((out[o + x - bpp]! + above[u + x]!) >>> 1);
}

function unfilterPaeth(raw: Uint8Array, s: number, out: Buffer, o: number, above: Buffer, u: number, rowBytes: number, bpp: number): void {
  // Paeth with a = c = 0 on the left edge is the row above.
  for (let x = 0; x < bpp; x++) out[o + x] = raw[s + x]! + above[u + x]!;
  for (let x = bpp; x < rowBytes; x++) {
    const a = out[o + x - bpp]!,
      b = above[u + x]!,
      c = above[u + x - bpp]!;
    const pa = Math.abs(b - c),
      pb = Math.abs(a - c),
      pc = Math.abs(a + b - 2 * c);
    out[o + x] = raw[s + x]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
  }
}

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Big-endian 16-bit samples as host-order values: a native byte swap in place on little-endian hosts. */
function samples16(pixels: Buffer, count: number): Uint16Array {
  if (pixels.byteOffset % 2 === 0) {
    if (HOST_LITTLE_ENDIAN) pixels.swap16();
    return new Uint16Array(pixels.buffer, pixels.byteOffset, count);
  }
  const out = new Uint16Array(count);
  for (let i = 0; i < count; i++) out[i] = (pixels[2 * i]! << 8) | pixels[2 * i + 1]!;
  return out;
}

export function decodePng(buf: Uint8Array): DecodedPng {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 8 || !b.subarray(0, 8).equals(SIGNATURE)) throw new PngError("not a PNG file (bad signature)");
  let off = 8;
  let width = 0,
    height = 0,
    bitDepth = 0,
    colorType = -1,
    interlace = 0;
  let palette: Buffer | null = null;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (off + 8 <= b.length) {
    const len = b.readUInt32BE(off);
    const type = b.toString("ascii", off + 4, off + 8);
    if (off + 12 + len > b.length) throw new PngError(`truncated PNG: chunk ${type} needs ${len} bytes`);
    const data = b.subarray(off + 8, off + 8 + len);
    const crc = b.readUInt32BE(off + 8 + len);
    if (zlib.crc32(data, zlib.crc32(b.subarray(off + 4, off + 8))) >>> 0 !== crc) throw new PngError(`corrupt PNG: CRC mismatch in chunk ${type}`);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      bitDepth = data[8]!;
      colorType = data[9]!;
      interlace = data[12]!;
    } else if (type === "PLTE") palette = Buffer.from(data);
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") {
      sawEnd = true;
      break;
    }
    off += 12 + len;
  }
  if (!sawEnd) throw new PngError("truncated PNG: no IEND chunk");
  if (width === 0 || height === 0) throw new PngError("PNG has no IHDR or zero size");
  if (interlace !== 0) throw new PngError("interlaced PNGs are not supported");
  const ch = CHANNELS_BY_COLOR_TYPE[colorType];
  if (ch === undefined) throw new PngError(`unsupported PNG colour type ${colorType}`);
  if (!(bitDepth === 8 || bitDepth === 16) || (colorType === 3 && bitDepth !== 8))
    throw new PngError(`unsupported PNG bit depth ${bitDepth} for colour type ${colorType}`);
  let raw: Buffer;
  const bound = maxInflatedBytes({ width, height, bitDepth, colorType });
  try {
    // one output chunk of the expected size: zlib's default 16 KiB chunks are joined by a copy after
    raw = zlib.inflateSync(Buffer.concat(idat), {
      maxOutputLength: bound,
      chunkSize: Math.max(zlib.constants.Z_MIN_CHUNK, Math.min(bound, PNG_INFLATE_CHUNK_CAP_BYTES)),
    });
  } catch (e) {
    const tooBig = (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError;
    if (tooBig) throw new PngError(`image data inflates to more than ${bound} bytes (the size of a ${width}x${height} image)`);
    throw new PngError(`corrupt PNG image data: ${(e as Error).message}`);
  }
  const bpp = (ch * bitDepth) / 8;
  const rowBytes = width * bpp;
  if (raw.length < (rowBytes + 1) * height) throw new PngError(`truncated PNG image data: ${raw.length} bytes for ${width}x${height}`);
  const pixels = unfilterScanlines(raw, rowBytes, height, bpp);
  if (colorType === 3) {
    if (!palette) throw new PngError("palette PNG without PLTE chunk");
    const out = new Uint8Array(width * height * 3);
    for (let i = 0; i < width * height; i++) {
      const k = pixels[i]! * 3;
      out[i * 3] = palette[k]!;
      out[i * 3 + 1] = palette[k + 1]!;
      out[i * 3 + 2] = palette[k + 2]!;
    }
    return { width, height, channels: 3, bitDepth: 8, data: out };
  }
  if (bitDepth === 16) return { width, height, channels: ch, bitDepth: 16, data: samples16(pixels, width * height * ch) };
  return { width, height, channels: ch, bitDepth: 8, data: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.length) };
}

/** 8-bit RGB pixels of a decoded RGB or RGBA image (alpha dropped: bundles carry no transparency). */
export function rgbOf(data: Uint8Array, channels: number, pixels: number): Uint8Array {
  if (channels === 3) return data;
  const out = new Uint8Array(pixels * 3);
  for (let p = 0; p < pixels; p++) {
    out[p * 3] = data[p * channels]!;
    out[p * 3 + 1] = data[p * channels + 1]!;
    out[p * 3 + 2] = data[p * channels + 2]!;
  }
  return out;
}
