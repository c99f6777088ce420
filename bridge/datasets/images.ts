/**
 * The images of RGB-D datasets: 16-bit depth PNGs in raw units (mm, 1/5000 m, 1/6553.5 m), colour PNGs or JPEGs,
 * 8/16-bit instance-id PNGs, and the resampling that puts colour and masks on the depth image's grid
 * (a bundle's images share one size; ScanNet's colour is 1296x968 against 640x480 depth).
 */
import { existsSync } from "node:fs";
import { extname } from "node:path";
import jpeg from "jpeg-js";
import { decodePng, pngHeader, PngError, rgbOf, type DecodedPng } from "../../core/bundle/png.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { readDatasetFile } from "./files.js";
import { DatasetError, type ImageSize } from "./scene.js";

/**
 * The most pixels an imported image may have: 32 Mi pixels. The largest frames of the five layouts, ScanNet++'s
 * 1920x1440 iPhone RGB, have 2.8 M; a 24 MP DSLR frame fits. The importers bounded inflation by the header's own
 * claim, so a 0.5 MB PNG declaring 16000x16000 took 1.56 GB before failing; the header is now
 * checked against this (the scene's first depth image) or the size the frame must have (the others).
 */
const MAX_IMPORT_IMAGE_PIXELS = 32 * 1024 * 1024;

/** What an image's header must agree with before its pixels are inflated. */
interface Expected {
  /** exactly this size (every depth image after the first) */
  size?: ImageSize;
  /** this aspect (colour and masks, resampled onto the depth grid) */
  aspectOf?: ImageSize;
}

function checkDeclaredSize(file: string, what: string, w: number, h: number, expected: Expected): void {
  if (expected.size && (w !== expected.size.width || h !== expected.size.height))
    throw new DatasetError(file, `${what} is ${w}x${h}, expected ${expected.size.width}x${expected.size.height} (the scene's first depth image)`);
  if (w * h > MAX_IMPORT_IMAGE_PIXELS)
    throw new DatasetError(
      file,
      `${what} declares ${w}x${h} (${((w * h) / 1e6).toFixed(1)} M pixels), more than the ${MAX_IMPORT_IMAGE_PIXELS / 2 ** 20} Mi pixels an imported image may have`,
    );
  if (expected.aspectOf) checkAspect(file, { width: w, height: h }, expected.aspectOf, what);
}

function readPng(file: string, what: string, expected: Expected = {}): DecodedPng {
  const bytes = readDatasetFile(file, what);
  const h = pngHeader(bytes);
  // a file that is no PNG is refused by the decoder, which says what is wrong with it
  if (h) checkDeclaredSize(file, what, h.width, h.height, expected);
  try {
    return decodePng(bytes);
  } catch (e) {
    if (e instanceof PngError) throw new DatasetError(file, `${e.message} (${what})`);
    throw e;
  }
}

/**
 * Metric depth (m) of a 16-bit greyscale depth PNG: raw / unitsPerMetre, 0 = no measurement. `size`, when
 * given, is the size every depth image of the scene must have (the first frame's).
 */
export function readDepthPng(file: string, unitsPerMetre: number, size?: ImageSize): { size: ImageSize; depth: Float32Array } {
  const png = readPng(file, "depth image", size ? { size } : {});
  if (png.channels !== 1 || png.bitDepth !== 16)
    throw new DatasetError(file, `expected a 16-bit single-channel depth PNG, found ${png.channels} channel(s) at ${png.bitDepth} bits`);
  const raw = png.data as Uint16Array;
  const depth = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) depth[i] = raw[i]! / unitsPerMetre;
  return { size: { width: png.width, height: png.height }, depth };
}

/**
 * JPEG decoding (jpeg-js, pure JS) refuses a frame that would need more than this much memory (MB): a
 * 1920x1440 ScanNet++ frame needs about 11 MB, so this only stops a corrupt header from allocating gigabytes.
 */
const JPEG_MAX_MEMORY_MB = 512;
const JPEG_EXTENSIONS = new Set([".jpg", ".jpeg"]);

const isJpeg = (file: string) => JPEG_EXTENSIONS.has(extname(file).toLowerCase());

/** 8-bit RGB of a baseline or progressive JPEG (ScanNet, ScanNet++ and Replica ship their colour so). */
function readJpeg(file: string, expected: Expected = {}): { width: number; height: number; channels: number; data: Uint8Array } {
  const bytes = readDatasetFile(file, "colour image");
  const declared = jpegSize(bytes);
  if (declared) checkDeclaredSize(file, "colour image", declared.width, declared.height, expected);
  try {
    const img = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: false,
      maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB,
      maxResolutionInMP: MAX_IMPORT_IMAGE_PIXELS / 1e6,
    });
    return { width: img.width, height: img.height, channels: 3, data: img.data };
  } catch (e) {
    throw new DatasetError(file, `not a readable JPEG colour image: ${(e as Error).message}`);
  }
}

/** A JPEG's size from its first start-of-frame marker (SOF0-SOF15 but DHT, JPG, DAC), or null when none is found. */
function jpegSize(b: Buffer): ImageSize | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  return null;
}

/**
 * The colour file of a frame: the file the layout names when it exists, else a PNG of the same name beside
 * it (colour converted by the user), else refused naming both.
 */
export function colourFile(file: string): string {
  if (existsSync(file)) return file;
  const ext = extname(file);
  const png = file.slice(0, file.length - ext.length) + ".png";
  if (ext.toLowerCase() !== ".png" && existsSync(png)) return png;
  throw new DatasetError(file, `missing (colour image${ext.toLowerCase() !== ".png" ? `; ${png} is read too` : ""})`);
}

/** The size of a colour image, PNG or JPEG (for intrinsics given at the colour image's size): from its header. */
export function colourSize(file: string): ImageSize {
  const bytes = readDatasetFile(file, "colour image");
  const size = isJpeg(file) ? jpegSize(bytes) : pngHeader(bytes);
  if (!size) throw new DatasetError(file, `not a readable ${isJpeg(file) ? "JPEG" : "PNG"} colour image (no size in its header)`);
  checkDeclaredSize(file, "colour image", size.width, size.height, {});
  return { width: size.width, height: size.height };
}

/** 8-bit RGB of a colour PNG or JPEG, resampled bilinearly (pixel centres aligned) to `size` when it differs. */
export function readColour(file: string, size: ImageSize): Uint8Array {
  const img = isJpeg(file) ? readJpeg(file, { aspectOf: size }) : readPng(file, "colour image", { aspectOf: size });
  if (!isJpeg(file) && ((img as DecodedPng).bitDepth !== 8 || img.channels < 3))
    throw new DatasetError(file, `expected an 8-bit RGB or RGBA colour PNG, found ${img.channels} channel(s) at ${(img as DecodedPng).bitDepth} bits`);
  checkAspect(file, img, size, "colour image");
  const rgb = rgbOf(img.data as Uint8Array, img.channels, img.width * img.height);
  return img.width === size.width && img.height === size.height ? rgb : resampleBilinear(rgb, img, size);
}

/** Instance ids of an 8/16-bit greyscale mask PNG, resampled by nearest neighbour to `size`. */
export function readMaskPng(file: string, size: ImageSize): Uint16Array {
  const png = readPng(file, "instance mask", { aspectOf: size });
  if (png.channels !== 1) throw new DatasetError(file, `expected a single-channel (greyscale) instance-id PNG, found ${png.channels} channels`);
  checkAspect(file, png, size, "instance mask");
  const ids = png.bitDepth === 16 ? (png.data as Uint16Array) : Uint16Array.from(png.data);
  if (png.width === size.width && png.height === size.height) return ids;
  const out = new Uint16Array(size.width * size.height);
  for (let y = 0; y < size.height; y++) {
    const sy = Math.min(png.height - 1, Math.floor(((y + 0.5) * png.height) / size.height));
    for (let x = 0; x < size.width; x++)
      out[y * size.width + x] = ids[sy * png.width + Math.min(png.width - 1, Math.floor(((x + 0.5) * png.width) / size.width))]!;
  }
  return out;
}

/** Colour and masks are resampled, never cropped: their aspect must match the depth image's within 1 %. */
export const ASPECT_TOLERANCE = 0.01;

function checkAspect(file: string, img: ImageSize, size: ImageSize, what: string): void {
  const a = img.width / img.height,
    b = size.width / size.height;
  if (Math.abs(a - b) > ASPECT_TOLERANCE * b)
    throw new DatasetError(
      file,
      `${what} is ${img.width}x${img.height}, whose aspect differs from the ${size.width}x${size.height} depth image's; expected the same field of view (registered streams)`,
    );
}

function resampleBilinear(rgb: Uint8Array, from: ImageSize, to: ImageSize): Uint8Array {
  const out = new Uint8Array(to.width * to.height * 3);
  const sx = from.width / to.width,
    sy = from.height / to.height;
  for (let y = 0; y < to.height; y++) {
    const fy = Math.min(from.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy),
      y1 = Math.min(from.height - 1, y0 + 1),
      wy = fy - y0;
    for (let x = 0; x < to.width; x++) {
      const fx = Math.min(from.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx),
        x1 = Math.min(from.width - 1, x0 + 1),
        wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const p = (yy: number, xx: number) => rgb[(yy * from.width + xx) * 3 + c]!;
        const v = (1 - wy) * ((1 - wx) * p(y0, x0) + wx * p(y0, x1)) + wy * ((1 - wx) * p(y1, x0) + wx * p(y1, x1));
        out[(y * to.width + x) * 3 + c] = Math.round(v);
      }
    }
  }
  return out;
}

/**
 * Intrinsics given for an image of size `from`, on an image of size `to` of the same field of view. With
 * pixel centres at integer coordinates (esi3d and OpenCV), u' + 0.5 = (u + 0.5) * to/from.
 */
export function scaleIntrinsics(K: Intrinsics, from: ImageSize, to: ImageSize): Intrinsics {
  const sx = to.width / from.width,
    sy = to.height / from.height;
  return { fx: K.fx * sx, fy: K.fy * sy, cx: (K.cx + 0.5) * sx - 0.5, cy: (K.cy + 0.5) * sy - 0.5 };
}
