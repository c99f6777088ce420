/**
 * The images of RGB-D datasets: 16-bit depth PNGs in raw units (mm, 1/5000 m, 1/6553.5 m), colour PNGs or JPEGs,
 * 8/16-bit instance-id PNGs, and the resampling that puts colour and masks on the depth image's grid
 * (a bundle's images share one size; ScanNet's colour is 1296x968 against 640x480 depth).
 */
import { existsSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import jpeg from "jpeg-js";
import { decodePng, PngError, rgbOf, type DecodedPng } from "../bundle/png.js";
import type { Intrinsics } from "../../src/core/math/camera.js";
import { DatasetError, type ImageSize } from "./scene.js";

function readPng(file: string, what: string): DecodedPng {
  if (!existsSync(file)) throw new DatasetError(file, `missing (${what})`);
  try {
    return decodePng(readFileSync(file));
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
  const png = readPng(file, "depth image");
  if (png.channels !== 1 || png.bitDepth !== 16) throw new DatasetError(file, `expected a 16-bit single-channel depth PNG, found ${png.channels} channel(s) at ${png.bitDepth} bits`);
  if (size && (png.width !== size.width || png.height !== size.height)) throw new DatasetError(file, `depth image is ${png.width}x${png.height}, expected ${size.width}x${size.height} (the scene's first depth image)`);
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
function readJpeg(file: string): { width: number; height: number; channels: number; data: Uint8Array } {
  if (!existsSync(file)) throw new DatasetError(file, "missing (colour image)");
  try {
    const img = jpeg.decode(readFileSync(file), { useTArray: true, formatAsRGBA: false, maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB });
    return { width: img.width, height: img.height, channels: 3, data: img.data };
  } catch (e) {
    throw new DatasetError(file, `not a readable JPEG colour image: ${(e as Error).message}`);
  }
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

/** The size of a colour image, PNG or JPEG (for intrinsics given at the colour image's size). */
export function colourSize(file: string): ImageSize {
  const img = isJpeg(file) ? readJpeg(file) : readPng(file, "colour image");
  return { width: img.width, height: img.height };
}

/** 8-bit RGB of a colour PNG or JPEG, resampled bilinearly (pixel centres aligned) to `size` when it differs. */
export function readColour(file: string, size: ImageSize): Uint8Array {
  const img = isJpeg(file) ? readJpeg(file) : readPng(file, "colour image");
  if (!isJpeg(file) && ((img as DecodedPng).bitDepth !== 8 || img.channels < 3)) throw new DatasetError(file, `expected an 8-bit RGB or RGBA colour PNG, found ${img.channels} channel(s) at ${(img as DecodedPng).bitDepth} bits`);
  checkAspect(file, img, size, "colour image");
  const rgb = rgbOf(img.data as Uint8Array, img.channels, img.width * img.height);
  return img.width === size.width && img.height === size.height ? rgb : resampleBilinear(rgb, img, size);
}

/** Instance ids of an 8/16-bit greyscale mask PNG, resampled by nearest neighbour to `size`. */
export function readMaskPng(file: string, size: ImageSize): Uint16Array {
  const png = readPng(file, "instance mask");
  if (png.channels !== 1) throw new DatasetError(file, `expected a single-channel (greyscale) instance-id PNG, found ${png.channels} channels`);
  checkAspect(file, png, size, "instance mask");
  const ids = png.bitDepth === 16 ? (png.data as Uint16Array) : Uint16Array.from(png.data);
  if (png.width === size.width && png.height === size.height) return ids;
  const out = new Uint16Array(size.width * size.height);
  for (let y = 0; y < size.height; y++) {
    const sy = Math.min(png.height - 1, Math.floor(((y + 0.5) * png.height) / size.height));
    for (let x = 0; x < size.width; x++) out[y * size.width + x] = ids[sy * png.width + Math.min(png.width - 1, Math.floor(((x + 0.5) * png.width) / size.width))]!;
  }
  return out;
}

/** Colour and masks are resampled, never cropped: their aspect must match the depth image's within 1 %. */
export const ASPECT_TOLERANCE = 0.01;

function checkAspect(file: string, img: ImageSize, size: ImageSize, what: string): void {
  const a = img.width / img.height, b = size.width / size.height;
  if (Math.abs(a - b) > ASPECT_TOLERANCE * b) throw new DatasetError(file, `${what} is ${img.width}x${img.height}, whose aspect differs from the ${size.width}x${size.height} depth image's; expected the same field of view (registered streams)`);
}

function resampleBilinear(rgb: Uint8Array, from: ImageSize, to: ImageSize): Uint8Array {
  const out = new Uint8Array(to.width * to.height * 3);
  const sx = from.width / to.width, sy = from.height / to.height;
  for (let y = 0; y < to.height; y++) {
    const fy = Math.min(from.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(from.height - 1, y0 + 1), wy = fy - y0;
    for (let x = 0; x < to.width; x++) {
      const fx = Math.min(from.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(from.width - 1, x0 + 1), wx = fx - x0;
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
  const sx = to.width / from.width, sy = to.height / from.height;
  return { fx: K.fx * sx, fy: K.fy * sy, cx: (K.cx + 0.5) * sx - 0.5, cy: (K.cy + 0.5) * sy - 0.5 };
}
