/**
 * Images for the VLM 2D baselines (the ESI-Bench paper's model families: GPT-5 and Gemini get egocentric images).
 *
 * - `single`: view 0, the agent's initial view (Passive Single-View, the ESI-Bench paper's four paradigms).
 * - `multi`: up to `maxImages` views evenly spaced over the bundle's views, always including the first and the last,
 *   in view order. Each is PNG-encoded (core/bundle/png.ts, lossless, so the model sees exactly the rendered
 *   pixels) and described in the text by its view index and the actions taken since the previous image shown.
 *
 * Why 8 by default, not the paper's 30 (the ESI-Bench paper's four paradigms, "30 views", configurable up to MAX_IMAGES):
 * - VSI-Bench found the frame count "moves results only a little" (Thinking in Space: 32 frames
 *   for open models, 16 for GPT-4o), and ESI-Bench's Appendix L names "image overload" among the reasons its 30-view
 *   baseline underperforms (the ESI-Bench paper, Appendix L);
 * - OpenAI-compatible local servers cap images per prompt (vLLM's `--limit-mm-per-prompt`), and 8 fits the
 *   common settings;
 * - cost: every 518×392 image is hundreds of input tokens per question, times two when re-prompted.
 * Set `maxImages: 30` to reproduce the paper's Passive Multi-View input.
 */
import type { FrameBundle } from "../../core/bundle/io.js";
import { encodePng } from "../../core/bundle/png.js";
import type { ChatImage } from "../llm/types.js";
import { DEFAULT_MAX_IMAGES } from "./formats.js";
import { selectViews, type ImageMode } from "./viewSelection.js";

export { DEFAULT_MAX_IMAGES };
export const IMAGE_MIME_TYPE = "image/png";

export interface ShownView {
  /** index of the view in the bundle */
  view: number;
  /** actions taken since the previous image shown (for view 0: none) */
  actions: string[];
}

export interface PromptImages {
  mode: ImageMode;
  /** in the order they are sent */
  images: ChatImage[];
  views: ShownView[];
  /** views in the bundle */
  totalViews: number;
}

/** The chosen views as PNG images, with their view index and the actions that led to each. */
export function bundleImages(bundle: FrameBundle, mode: ImageMode, maxImages = DEFAULT_MAX_IMAGES): PromptImages {
  const idx = selectViews(bundle.views.length, mode, maxImages);
  const images: ChatImage[] = [];
  const views: ShownView[] = [];
  let prev = 0;
  for (const i of idx) {
    const v = bundle.views[i]!;
    if (v.rgb.length !== v.width * v.height * 3) throw new RangeError(`view ${i}: expected ${v.width}×${v.height}×3 RGB bytes, got ${v.rgb.length}`);
    images.push({ mimeType: IMAGE_MIME_TYPE, data: new Uint8Array(encodePng(v.width, v.height, 3, 8, v.rgb)) });
    const actions: string[] = [];
    for (let j = prev + 1; j <= i; j++) {
      const a = bundle.views[j]!.action;
      if (a) actions.push(a);
    }
    views.push({ view: i, actions });
    prev = i;
  }
  return { mode, images, views, totalViews: bundle.views.length };
}

/** The text that goes with the images: one line per image, in order. */
export function describeImages(p: PromptImages): string {
  const head =
    p.images.length === 1
      ? "One image follows this text: your initial view (view 0)."
      : `${p.images.length} images follow this text, in this order (${p.images.length} of the ${p.totalViews} views taken, evenly spaced, in the order they were taken):`;
  if (p.images.length === 1) return head; // always view 0 (selectViews)
  const lines = p.views.map((v, k) => {
    const what = v.view === 0 ? "your initial view" : v.actions.length ? `after ${v.actions.join(", ")}` : "no action since the previous image";
    return `- image ${k + 1}: view ${v.view}, ${what}`;
  });
  return [head, ...lines].join("\n");
}
