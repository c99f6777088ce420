/**
 * VGGT's image preprocessing, reproduced exactly (VGGT's source, `vggt/utils/load_fn.py::
 * load_and_preprocess_images` at 44b3afb): a PIL BICUBIC resize to width 518 ("crop") or largest side 518
 * ("pad"), ToTensor (uint8 / 255 as float32), then a centre crop of the height (crop) or padding with 1.0
 * to 518×518 (pad). No normalisation: the model normalises internally, so its input is RGB in [0, 1], NCHW.
 *
 * The crop/pad transform is kept as data (`PreprocessPlan`) so every model pixel maps back to a source
 * pixel (`modelToSourcePixel`).
 */
import { compositeOnWhite, resizeBicubicPil } from "./pillow.js";
import { roundHalfEven } from "./roundHalfEven.js";

/** VGGT's target size (load_fn.py `target_size = 518`). */
export const VGGT_TARGET_SIZE = 518;
/** VGGT's patch size: model H and W are multiples of it (vggt.py `patch_size=14`). */
export const VGGT_PATCH_SIZE = 14;
/** Pad value: white (load_fn.py pads with `value=1.0`). */
const VGGT_PAD_VALUE = 1.0;

export type PreprocessMode = "crop" | "pad";

/** The crop/pad transform from a source image to the model input, as data. */
export interface PreprocessPlan {
  mode: PreprocessMode;
  srcWidth: number;
  srcHeight: number;
  /** Size after the BICUBIC resize. */
  resizedWidth: number;
  resizedHeight: number;
  /** Rows of the resized image dropped above the crop window (crop mode, when resized height > 518). */
  cropTop: number;
  /** Pad added left and above (pad mode). */
  padLeft: number;
  padTop: number;
  /** Model input size. */
  width: number;
  height: number;
}

/** Sizes exactly as load_and_preprocess_images computes them. */
export function planPreprocess(srcWidth: number, srcHeight: number, mode: PreprocessMode): PreprocessPlan {
  const T = VGGT_TARGET_SIZE,
    P = VGGT_PATCH_SIZE;
  let rw: number, rh: number;
  // Same operation order as the Python (`height * (new_width / width) / 14`), so the doubles agree.
  if (mode === "crop" || srcWidth >= srcHeight) {
    rw = T;
    rh = roundHalfEven((srcHeight * (rw / srcWidth)) / P) * P;
  } else {
    rh = T;
    rw = roundHalfEven((srcWidth * (rh / srcHeight)) / P) * P;
  }
  if (rw <= 0 || rh <= 0)
    throw new Error(`VGGT preprocessing: a ${srcWidth}x${srcHeight} image resizes to ${rw}x${rh} in ${mode} mode (aspect ratio too extreme)`);
  if (mode === "crop") {
    const cropTop = rh > T ? Math.floor((rh - T) / 2) : 0;
    return { mode, srcWidth, srcHeight, resizedWidth: rw, resizedHeight: rh, cropTop, padLeft: 0, padTop: 0, width: rw, height: Math.min(rh, T) };
  }
  // pad_top = h_padding // 2, the rest below; likewise left/right.
  return {
    mode,
    srcWidth,
    srcHeight,
    resizedWidth: rw,
    resizedHeight: rh,
    cropTop: 0,
    padLeft: Math.floor((T - rw) / 2),
    padTop: Math.floor((T - rh) / 2),
    width: T,
    height: T,
  };
}

/**
 * Per model pixel (row-major, width × height), the source pixel index it came from by nearest neighbour
 * (the source pixel containing the model pixel's centre after undoing pad/crop and resize), or -1 for
 * padding. Shared by every view of a bundle (one image size).
 */
export function modelToSourcePixel(plan: PreprocessPlan): Int32Array {
  const { width: W, height: H, resizedWidth: rw, resizedHeight: rh, srcWidth: sw, srcHeight: sh } = plan;
  const colSrc = new Int32Array(W),
    rowSrc = new Int32Array(H);
  for (let x = 0; x < W; x++) {
    const rx = x - plan.padLeft;
    colSrc[x] = rx < 0 || rx >= rw ? -1 : Math.min(sw - 1, Math.floor(((rx + 0.5) * sw) / rw));
  }
  for (let y = 0; y < H; y++) {
    const ry = y - plan.padTop + plan.cropTop;
    rowSrc[y] = ry < 0 || ry >= rh ? -1 : Math.min(sh - 1, Math.floor(((ry + 0.5) * sh) / rh));
  }
  const map = new Int32Array(W * H);
  for (let y = 0; y < H; y++) {
    const r = rowSrc[y]!;
    for (let x = 0; x < W; x++) {
      const c = colSrc[x]!;
      map[y * W + x] = r < 0 || c < 0 ? -1 : r * sw + c;
    }
  }
  return map;
}

/** The RGB VGGT sees for a view: composited onto white when the view has transparency. */
export function modelRgbOf(view: { rgb: Uint8Array; alpha?: Uint8Array }): Uint8Array {
  return view.alpha ? compositeOnWhite(view.rgb, view.alpha) : view.rgb;
}

/** torchvision ToTensor: uint8 / 255 in float32 (exact: the float32 quotient of two small integers). */
const U8_TO_UNIT = Float32Array.from({ length: 256 }, (_, i) => i / 255);

/**
 * Writes one view's model input (3 × height × width, float32, channel-major) into `out` at `offset`
 * (a multiple of 3·H·W): resize, then crop rows or pad with 1.0.
 */
function preprocessInto(rgb: Uint8Array, plan: PreprocessPlan, out: Float32Array, offset: number): void {
  const same = plan.resizedWidth === plan.srcWidth && plan.resizedHeight === plan.srcHeight;
  const resized = same ? rgb : resizeBicubicPil(rgb, plan.srcWidth, plan.srcHeight, 3, plan.resizedWidth, plan.resizedHeight);
  const { width: W, height: H, resizedWidth: rw, resizedHeight: rh, padLeft, padTop, cropTop } = plan;
  const plane = W * H,
    lut = U8_TO_UNIT;
  if (plan.mode === "pad") out.fill(VGGT_PAD_VALUE, offset, offset + 3 * plane);
  const n = Math.min(rw, W - padLeft);
  for (let y = 0; y < H; y++) {
    const ry = y - padTop + cropTop;
    if (ry < 0 || ry >= rh) continue;
    let p = ry * rw * 3;
    const r0 = offset + y * W + padLeft,
      r1 = r0 + plane,
      r2 = r1 + plane;
    for (let x = 0; x < n; x++, p += 3) {
      out[r0 + x] = lut[resized[p]!]!;
      out[r1 + x] = lut[resized[p + 1]!]!;
      out[r2 + x] = lut[resized[p + 2]!]!;
    }
  }
}

/** The model input [S, 3, H, W] for the given RGB images (all of the plan's source size). */
export function preprocessViews(images: readonly Uint8Array[], plan: PreprocessPlan): Float32Array {
  const n = 3 * plan.width * plan.height;
  const out = new Float32Array(images.length * n);
  images.forEach((rgb, i) => preprocessInto(rgb, plan, out, i * n));
  return out;
}
