/**
 * Label evidence that depends on what was seen (`--labels appearance`, issue 16): a seeded error model of a
 * 2D detector's class scores, in the spirit of the noisy source's error model (reconstruct/noisy/params.ts).
 * With `--labels oracle` every mask carries its object's true category; with `appearance` each mask (one
 * object's visible pixels in one view) gets scores over its category and the category's look-alikes
 * (core/objects/library.ts `confusables`), from what the view shows:
 * - the view's quality q in [0, 1] is the product of the visible fraction (an occluded object gives its
 *   look-alikes weight by how little of it shows), a size factor (small masks give weak evidence) and a
 *   light factor (dark views, Illumination Variability, give weak evidence);
 * - the apparent class gets log-odds q * FULL_VIEW_LOG_ODDS over each look-alike; a view that hides a
 *   category's distinguishing part (a mug's handle, a piano's keyboard: `flags.ambiguous`) gives the
 *   category and its first look-alike the same score, as the two look the same from there;
 * - the detector's scores are those logits plus Gumbel noise drawn from (seed, task, view, object), so the
 *   top label is a sample of the softmax of the logits (the Gumbel-max rule) and the reported scores are
 *   noisy too: nothing downstream can read the true class off them.
 * The masks keep their pixels: only labels change. Both arms read the result: the graph builder fuses the
 * scores as soft votes (nodes' label_distribution, serialized with `--uncertainty on`), and the 2D
 * baseline (src/reason/symbolic2d.ts) reads the same per-mask labels.
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { computeEvidence, type Evidence } from "./evidence.js";
import type { LabelMode, MaskMode } from "./options.js";
import { appearanceEvidence } from "./appearanceEvidence.js";

/** Appearance evidence per bundle (by its views array), mode and seed: the 3D arms and the 2D baseline share it. */
const appearanceCache = new WeakMap<object, Map<string, Evidence>>();

/** The evidence of a bundle under a label mode: the masks' true categories (oracle) or the appearance model's labels. */
export function labelledEvidence(bundle: Pick<FrameBundle, "manifest" | "views">, mode: MaskMode, labels: LabelMode, seed: string): Evidence {
  const ev = computeEvidence(bundle, mode);
  // oracle masks carry the simulator's global ids (a diagnostic upper bound): their labels stay true too
  if (labels === "oracle" || mode === "none" || mode === "oracle") return ev;
  let bySeed = appearanceCache.get(bundle.views);
  if (!bySeed) appearanceCache.set(bundle.views, (bySeed = new Map()));
  const k = `${mode}/${seed}`;
  let out = bySeed.get(k);
  if (!out) bySeed.set(k, (out = appearanceEvidence(bundle, ev, seed).evidence));
  return out;
}
