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
import { isPhased, viewPhases } from "../../core/bundle/viewPhases.js";

export { DEFAULT_MAX_IMAGES };
export const IMAGE_MIME_TYPE = "image/png";

export interface ShownView {
  /** index of the view in the bundle */
  view: number;
  /** actions taken since the previous image shown (for view 0: none) */
  actions: string[];
  /** a changing world's bundle: the label of the phase the view saw, and whether it is the first image shown of it */
  phase?: { label: string; first: boolean };
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
  const phased = isPhased(bundle.manifest);
  const phaseOf = viewPhases(bundle.manifest);
  const idx = phased ? selectPhaseViews(phaseOf, mode, maxImages) : selectViews(bundle.views.length, mode, maxImages);
  const labels = bundle.manifest.task?.phases?.map((p) => p.label);
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
    const phase = phaseOf[i]!;
    const first = views.length === 0 || phaseOf[views.at(-1)!.view] !== phase;
    views.push({ view: i, actions, ...(phased ? { phase: { label: labels?.[phase] ?? `phase ${phase + 1}`, first } } : {}) });
    prev = i;
  }
  return { mode, images, views, totalViews: bundle.views.length };
}

/** The text that goes with the images: one line per image, in order. */
export function describeImages(p: PromptImages): string {
  const phases = [...new Set(p.views.flatMap((v) => (v.phase ? [v.phase.label] : [])))];
  const head =
    p.images.length === 1
      ? "One image follows this text: your initial view (view 0)."
      : phases.length
        ? `${p.images.length} images follow this text, in the order they were taken (${p.images.length} of the ${p.totalViews} views taken), at ${phases.length} moments: ${phases.join(", ")}:`
        : `${p.images.length} images follow this text, in this order (${p.images.length} of the ${p.totalViews} views taken, evenly spaced, in the order they were taken):`;
  if (p.images.length === 1) return head; // always view 0 (selectViews)
  const lines = p.views.map((v, k) => {
    // a later phase's first image: the world may have changed since the last image, while no one watched
    if (v.phase?.first && k > 0)
      return `- image ${k + 1}: view ${v.view}, ${v.phase.label}: the scene may have changed since the previous image, while no one watched`;
    const what = v.view === 0 ? "your initial view" : v.actions.length ? `after ${v.actions.join(", ")}` : "no action since the previous image";
    return `- image ${k + 1}: view ${v.view}${v.phase ? ` (${v.phase.label})` : ""}, ${what}`;
  });
  return [head, ...lines].join("\n");
}

/**
 * The views a VLM is shown of a changing world's bundle: `single`, each phase's first view (its primary view);
 * `multi`, maxImages shared out among the phases, evenly spaced within each. More phases than images: that many
 * phases, evenly spaced (first and last included), one view each.
 */
function selectPhaseViews(phaseOf: readonly number[], mode: ImageMode, maxImages: number): number[] {
  const phases = [...new Set(phaseOf)].sort((a, b) => a - b);
  const viewsOf = (p: number) => phaseOf.flatMap((q, i) => (q === p ? [i] : []));
  const shown = phases.length > maxImages ? selectViews(phases.length, "multi", maxImages).map((k) => phases[k]!) : phases;
  const each = mode === "single" || phases.length > maxImages ? 1 : Math.floor(maxImages / phases.length);
  return shown.flatMap((p) => {
    const vs = viewsOf(p);
    return each === 1 ? [vs[0]!] : selectViews(vs.length, "multi", each).map((k) => vs[k]!);
  });
}
