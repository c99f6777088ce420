/**
 * How many views VGGT can take in one run, from a memory estimate (worked out below) and the memory
 * free on the device. Longer view sets run in overlapping windows: each window is a separate VGGT
 * reconstruction (its own frame 0 and scale), and consecutive windows share CHUNK_OVERLAP_VIEWS views whose
 * points tie them together by a Sim(3) (chunks.ts). Windows do not share VGGT's cross-view attention, so
 * fewer, larger windows give more consistent geometry.
 */
import { execFileSync } from "node:child_process";
import { freemem } from "node:os";
import { VGGT_PATCH_SIZE } from "./preprocess.js";

/** Camera token + 4 register tokens per frame (VGGT's source, `patch_start_idx = 5`). */
const SPECIAL_TOKENS_PER_FRAME = 5;
/** Attention heads of the aggregator (VGGT's source: dim 1024, 16 heads). */
const ATTENTION_HEADS = 16;
/**
 * Copies of a global-attention matrix alive at once: scores plus softmax output, since opset ≤ 17 exports
 * decompose scaled_dot_product_attention into MatMul→Softmax→MatMul.
 */
const ATTENTION_COPIES = 2;
/** Token width the heads read: frame and global tokens concatenated (VGGT's source, dim 2048). */
const HEAD_TOKEN_DIM = 2048;
/** Aggregator layers kept for the DPT heads ([4, 11, 17, 23], VGGT's source). */
const KEPT_LAYERS = 4;
/**
 * DPT head activations per output pixel, both heads: rough estimate (256-channel fusion maps at about half
 * resolution, 2 heads, 4 bytes), not measured.
 */
const DPT_BYTES_PER_PIXEL = 512;
/** Output floats per pixel: depth 1 + depth_conf 1 + world_points 3 + world_points_conf 1 + images 3. */
const OUTPUT_FLOATS_PER_PIXEL = 9;
/**
 * Views shared by consecutive windows. One shared view already gives thousands of point correspondences for
 * the Sim(3) between two windows; a second guards against one badly predicted view. Chosen; the chunked
 * VGGT pipelines in the literature overlap far more (VGGT-Long: windows of 60-75 frames, 30 shared), which
 * a CPU cannot afford.
 */
const CHUNK_OVERLAP_VIEWS = 2;
/** Share of the free memory a run may plan to use (headroom for the runtime's own arenas and fragmentation). Chosen. */
const MEMORY_HEADROOM = 0.8;

function tokensPerFrame(H: number, W: number): number {
  return (H / VGGT_PATCH_SIZE) * (W / VGGT_PATCH_SIZE) + SPECIAL_TOKENS_PER_FRAME;
}

/**
 * Estimated peak bytes of one VGGT run on S frames at H × W: weights + global attention matrices
 * (heads · (S·tokens)² · element size · copies) + kept aggregator tokens + DPT activations + outputs.
 * At 518×518 with fp32 this gives ≈ 7.2 GiB of attention per copy at S = 8.
 */
function estimateInferenceBytes(S: number, H: number, W: number, weightsBytes: number, elementBytes = 4): number {
  const N = S * tokensPerFrame(H, W);
  const attention = ATTENTION_HEADS * N * N * elementBytes * ATTENTION_COPIES;
  const tokens = N * HEAD_TOKEN_DIM * elementBytes * KEPT_LAYERS;
  const perPixel = S * H * W * (DPT_BYTES_PER_PIXEL + OUTPUT_FLOATS_PER_PIXEL * 4);
  return weightsBytes + attention + tokens + perPixel;
}

/** Free memory where the model runs, in bytes, or null when unknown. */
export function availableMemoryBytes(provider: "cpu" | "cuda"): number | null {
  if (provider === "cuda") {
    try {
      const txt = execFileSync("nvidia-smi", ["--query-gpu=memory.free", "--format=csv,noheader,nounits", "-i", "0"], {
        encoding: "utf8",
        timeout: 5000,
        stdio: ["ignore", "pipe", "ignore"],
      });
      const mib = Number(txt.trim().split("\n")[0]);
      return Number.isFinite(mib) && mib > 0 ? mib * 1024 * 1024 : null;
    } catch {
      return null;
    }
  }
  let free = freemem(); // MemAvailable on Linux
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  // A cgroup limit (containers) can be far below the host's free memory.
  if (constrained && constrained > 0 && constrained < Number.MAX_SAFE_INTEGER) free = Math.min(free, constrained - process.memoryUsage().rss);
  return free > 0 ? free : null;
}

export interface ChunkPlan {
  /** View indices (positions in the bundle's view list) per window; consecutive windows share `overlap` views. */
  chunks: number[][];
  framesPerChunk: number;
  /** Views shared by consecutive windows (0 when there is one window, or a window holds a single view). */
  overlap: number;
  /** What limited the chunk size. */
  limitedBy: "none" | "memory" | "option" | "model";
  /** Estimated peak bytes for the largest chunk; and the budget it was planned against (null = unknown). */
  estimateBytes: number;
  budgetBytes: number | null;
}

export interface ChunkPlanInput {
  views: number;
  H: number;
  W: number;
  weightsBytes: number;
  elementBytes: number;
  /** Free memory (bytes) or null when unknown (then memory does not limit). */
  availableBytes: number | null;
  /** The model's fixed frame count, if its input has one. */
  fixedFrames: number | null;
  maxFramesPerChunk?: number;
}

/**
 * Largest frame count that fits the budget (at least 1), capped by the option (or the model's fixed frame
 * count). When the views do not fit one run they are split into windows of near-equal size (so no window is
 * left with one or two views of its own) in which consecutive windows share CHUNK_OVERLAP_VIEWS views
 * (fewer when a window is that small). A model with a fixed frame count gets windows of at most that size;
 * the caller pads them.
 */
export function planChunks(p: ChunkPlanInput): ChunkPlan {
  const budget = p.availableBytes === null ? null : p.availableBytes * MEMORY_HEADROOM;
  let maxS = p.views,
    limitedBy: ChunkPlan["limitedBy"] = "none";
  if (p.fixedFrames !== null) {
    maxS = p.fixedFrames;
    limitedBy = "model";
  } else {
    if (budget !== null) {
      let s = 1;
      while (s < p.views && estimateInferenceBytes(s + 1, p.H, p.W, p.weightsBytes, p.elementBytes) <= budget) s++;
      if (s < maxS) {
        maxS = s;
        limitedBy = "memory";
      }
    }
    if (p.maxFramesPerChunk !== undefined && p.maxFramesPerChunk < maxS) {
      maxS = Math.max(1, Math.floor(p.maxFramesPerChunk));
      limitedBy = "option";
    }
  }
  const chunks: number[][] = [];
  const overlap = p.views > maxS ? Math.min(CHUNK_OVERLAP_VIEWS, maxS - 1) : 0;
  // n windows; window c covers [floor(c·(V−o)/n), floor((c+1)·(V−o)/n) + o): each holds at most maxS views,
  // consecutive ones share exactly o, and together they cover every view.
  const fresh = p.views - overlap,
    n = Math.ceil(fresh / (maxS - overlap));
  for (let c = 0; c < n; c++) chunks.push(range(Math.floor((c * fresh) / n), Math.floor(((c + 1) * fresh) / n) + overlap));
  const largest = Math.max(...chunks.map((c) => c.length), p.fixedFrames ?? 0);
  return {
    chunks,
    framesPerChunk: maxS,
    overlap,
    limitedBy,
    estimateBytes: estimateInferenceBytes(largest, p.H, p.W, p.weightsBytes, p.elementBytes),
    budgetBytes: budget,
  };
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, i) => a + i);
}
