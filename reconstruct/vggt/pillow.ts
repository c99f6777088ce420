/**
 * Pillow's 8-bit image operations that VGGT's loader (load_fn.py) applies, reproduced bit for bit: the
 * BICUBIC resize and compositing an RGBA image onto white.
 */

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
