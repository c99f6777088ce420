/**
 * VGGT's image preprocessing, reproduced exactly (VGGT's source, `vggt/utils/load_fn.py::
 * load_and_preprocess_images` at 44b3afb): a PIL BICUBIC resize to width 518 ("crop") or largest side 518
 * ("pad"), ToTensor (uint8 / 255 as float32), then a centre crop of the height (crop) or padding with 1.0
 * to 518×518 (pad). No normalisation: the model normalises internally, so its input is RGB in [0, 1], NCHW.
 *
 * The crop/pad transform is kept as data (`PreprocessPlan`) so every model pixel maps back to a source
 * pixel (`modelToSourcePixel`).
 */

/** VGGT's target size (load_fn.py `target_size = 518`). */
export const VGGT_TARGET_SIZE = 518;
/** VGGT's patch size: model H and W are multiples of it (vggt.py `patch_size=14`). */
export const VGGT_PATCH_SIZE = 14;
/** Pad value: white (load_fn.py pads with `value=1.0`). */
const VGGT_PAD_VALUE = 1.0;

export type PreprocessMode = "crop" | "pad";

/** Python's round(): round half to even (differs from Math.round on exact .5). */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f; // exact for |x| < 2^52
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

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

// ---------------------------------------------------------------- PIL-compatible BICUBIC resize

/** Pillow's fixed-point precision for 8-bit resampling (libImaging/Resample.c `PRECISION_BITS = 32 - 8 - 2`). */
const PRECISION_BITS = 22;
/** Keys' cubic convolution parameter used by Pillow's BICUBIC (Resample.c `bicubic_filter`, `a = -0.5`). */
const BICUBIC_A = -0.5;
/** Pillow's BICUBIC filter support radius (Resample.c `{bicubic_filter, 2.0}`). */
const BICUBIC_SUPPORT = 2.0;

function bicubicFilter(x: number): number {
  const a = BICUBIC_A;
  if (x < 0) x = -x;
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

interface Coeffs {
  ksize: number;
  /** xmin, xcount per output pixel. */
  bounds: Int32Array;
  /** Fixed-point coefficients, ksize per output pixel. */
  k: Int32Array;
}

/** Resample.c `precompute_coeffs` + `normalize_coeffs_8bpc`, for the box [0, inSize). */
function precomputeCoeffs(inSize: number, outSize: number): Coeffs {
  const scale = inSize / outSize;
  // Antialiasing: when downscaling the filter is stretched by the scale (Pillow always does this).
  const filterscale = Math.max(scale, 1);
  const support = BICUBIC_SUPPORT * filterscale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const k = new Int32Array(outSize * ksize);
  const pre = new Float64Array(ksize);
  const ss = 1 / filterscale;
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    let ww = 0;
    let xmin = Math.trunc(center - support + 0.5); // C (int) cast truncates
    if (xmin < 0) xmin = 0;
    let xmax = Math.trunc(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    for (let x = 0; x < xmax; x++) {
      const w = bicubicFilter((x + xmin - center + 0.5) * ss);
      pre[x] = w;
      ww += w;
    }
    for (let x = 0; x < xmax; x++) {
      const w = ww !== 0 ? pre[x]! / ww : pre[x]!;
      k[xx * ksize + x] = w < 0 ? Math.trunc(-0.5 + w * (1 << PRECISION_BITS)) : Math.trunc(0.5 + w * (1 << PRECISION_BITS));
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { ksize, bounds, k };
}

/** Resample.c `clip8`: rounding is pre-added as 1 << (PRECISION_BITS - 1). */
function clip8(v: number): number {
  if (v <= 0) return 0;
  const r = Math.floor(v / (1 << PRECISION_BITS));
  return r > 255 ? 255 : r;
}

/**
 * Pillow's `Image.resize((outW, outH), Image.BICUBIC)` on an 8-bit image with `channels` interleaved
 * channels: separable, horizontal pass first into 8-bit, then vertical, in 22-bit fixed point, exactly as
 * libImaging/Resample.c (`ImagingResampleInner`). Returns a copy when the size is unchanged (as PIL does).
 */
export function resizeBicubicPil(src: Uint8Array, inW: number, inH: number, channels: number, outW: number, outH: number): Uint8Array {
  if (src.length !== inW * inH * channels) throw new Error(`resizeBicubicPil: ${src.length} bytes for ${inW}x${inH}x${channels}`);
  const half = 1 << (PRECISION_BITS - 1);
  let img = src,
    w = inW;
  const vert = outH !== inH ? precomputeCoeffs(inH, outH) : null;
  if (outW !== inW) {
    const hc = precomputeCoeffs(inW, outW);
    // Only the source rows the vertical pass reads (ybox_first .. ybox_last).
    let y0 = 0,
      y1 = inH;
    if (vert) {
      y0 = vert.bounds[0]!;
      y1 = vert.bounds[(outH - 1) * 2]! + vert.bounds[(outH - 1) * 2 + 1]!;
    }
    const tmp = new Uint8Array(outW * (y1 - y0) * channels);
    for (let y = y0; y < y1; y++) {
      const rowIn = y * inW * channels,
        rowOut = (y - y0) * outW * channels;
      for (let xx = 0; xx < outW; xx++) {
        const xmin = hc.bounds[xx * 2]!,
          xn = hc.bounds[xx * 2 + 1]!,
          kb = xx * hc.ksize;
        for (let c = 0; c < channels; c++) {
          let ss = half;
          for (let x = 0; x < xn; x++) ss += img[rowIn + (xmin + x) * channels + c]! * hc.k[kb + x]!;
          tmp[rowOut + xx * channels + c] = clip8(ss);
        }
      }
    }
    img = tmp;
    w = outW;
    if (vert) for (let i = 0; i < outH; i++) vert.bounds[i * 2]! -= y0;
  }
  if (vert) {
    const out = new Uint8Array(outW * outH * channels);
    const row = w * channels;
    for (let yy = 0; yy < outH; yy++) {
      const ymin = vert.bounds[yy * 2]!,
        yn = vert.bounds[yy * 2 + 1]!,
        kb = yy * vert.ksize;
      for (let i = 0; i < row; i++) {
        let ss = half;
        for (let y = 0; y < yn; y++) ss += img[(ymin + y) * row + i]! * vert.k[kb + y]!;
        out[yy * row + i] = clip8(ss);
      }
    }
    return out;
  }
  return img === src ? src.slice() : img;
}

// ---------------------------------------------------------------- RGBA onto white (load_fn.py)

/** Pillow's fixed-point bits in ImagingAlphaComposite (libImaging/AlphaComposite.c `PRECISION_BITS 7`). */
const COMPOSITE_PRECISION_BITS = 7;

/** Pillow's rounded division by 255 (libImaging/ImagingUtils.h `SHIFTFORDIV255`). */
function shiftForDiv255(a: number): number {
  return ((a >>> 8) + a) >>> 8;
}

/**
 * RGB of an RGBA image composited onto opaque white, exactly as VGGT's loader does it (load_fn.py:
 * `Image.alpha_composite(white, img).convert("RGB")` for RGBA images) with Pillow's integer arithmetic.
 * With an opaque white destination Pillow's coefficients reduce to coef1 = a·2^7, coef2 = (255 − a)·2^7.
 */
export function compositeOnWhite(rgb: Uint8Array, alpha: Uint8Array): Uint8Array {
  if (rgb.length !== alpha.length * 3) throw new Error(`compositeOnWhite: ${rgb.length} RGB bytes for ${alpha.length} alpha values`);
  const out = new Uint8Array(rgb.length);
  const P = COMPOSITE_PRECISION_BITS,
    round = 0x80 << P;
  for (let p = 0; p < alpha.length; p++) {
    const a = alpha[p]!;
    for (let c = 0; c < 3; c++) {
      const i = 3 * p + c;
      if (a === 0) out[i] = 255;
      else {
        const tmp = rgb[i]! * (a << P) + 255 * ((255 - a) << P);
        out[i] = shiftForDiv255(tmp + round) >>> P;
      }
    }
  }
  return out;
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
