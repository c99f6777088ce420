/** The appearance model's label evidence of one mask: a seeded 2D detector's scores from what one view shows of an object. */
import { LIBRARY } from "../core/objects/library.js";
import type { Rng } from "../core/math/rng.js";

/**
 * Top-1 probability of the apparent class in a fully visible, large, well-lit view: 0.95. Our choice, for a
 * closed-vocabulary detector on clean renders; COCO-trained detectors classify large unoccluded objects of
 * a known class at about this rate. Turned into log-odds over the look-alikes per mask (fullViewLogOdds).
 */
const FULL_VIEW_TOP1 = 0.95;
/**
 * Mask area (px) at which size stops weakening the evidence: 32 x 32 = 1024 px, COCO's "small object"
 * bound (Lin et al. 2014, cocodataset.org detection eval), where detectors' AP roughly halves. Below it the
 * size factor is sqrt(area / this).
 */
const FULL_EVIDENCE_AREA_PX = 32 * 32;
/**
 * Mean mask luma (8-bit, Rec. 601) at which light stops weakening the evidence: 60, about a quarter of the
 * range. Our choice: ExDark-style low-light images (mean luma well below 64) are where detectors' recall
 * falls; the built-in suite's dimly lit rooms (ambient 0.1-0.15) render masks near 20-40.
 */
const WELL_LIT_LUMA = 60;
/**
 * Share of the rectangle around an object's projected box that its silhouette fills when fully visible:
 * 0.6. Our estimate: a round or cylindrical object fills about pi/4 of its box's outline, and that outline
 * about 3/4 of the rectangle around the projected corners. The visible fraction is mask area over this
 * share of the rectangle, capped at 1.
 */
const SILHOUETTE_FILL = 0.6;
/** Gumbel noise scale of the detector's logits: 1, so the top label is a sample of softmax(logits). */
const GUMBEL_SCALE = 1;

/** One mask's label evidence. */
export interface MaskLabel {
  /** the detector's top label */
  label: string;
  /** its scores over the candidate classes (sum 1) */
  scores: Record<string, number>;
  /** the view's evidence quality and its factors */
  quality: { q: number; visible: number; size: number; light: number; partHidden: boolean };
}

/** The classes a mask of `category` may be read as: the category and its look-alikes (none outside the library). */
function candidateClasses(category: string): string[] {
  return [category, ...(LIBRARY.get(category)?.confusables ?? [])];
}

/** Log-odds of the apparent class over each of `n` look-alikes in a perfect view. */
const fullViewLogOdds = (n: number) => Math.log((FULL_VIEW_TOP1 / (1 - FULL_VIEW_TOP1)) * n);

/** The label evidence of one mask: the view's quality, the logits over the candidates, the Gumbel-noised scores. */
export function maskLabel(category: string, px: { n: number; luma: number }, rectArea: number | null, hidden: boolean, rng: Rng): MaskLabel {
  const classes = candidateClasses(category);
  const visible = rectArea && rectArea > 0 ? Math.min(1, px.n / (SILHOUETTE_FILL * rectArea)) : 1;
  const size = Math.min(1, Math.sqrt(px.n / FULL_EVIDENCE_AREA_PX));
  const light = Math.min(1, px.luma / px.n / WELL_LIT_LUMA);
  const q = visible * size * light;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const quality = { q: r3(q), visible: r3(visible), size: r3(size), light: r3(light), partHidden: hidden };
  if (classes.length === 1) return { label: category, scores: { [category]: 1 }, quality };
  const L = q * fullViewLogOdds(classes.length - 1);
  const logits = classes.map((_c, k) => (k === 0 || (hidden && k === 1) ? L : 0));
  // Gumbel(0, 1) noise: -ln(-ln U), U in (0, 1)
  const noisy = logits.map((l) => l + GUMBEL_SCALE * -Math.log(-Math.log(Math.min(1 - 1e-12, Math.max(1e-12, rng.next())))));
  const top = noisy.indexOf(Math.max(...noisy));
  const e = noisy.map((x) => Math.exp(x - noisy[top]!));
  const sum = e.reduce((a, b) => a + b, 0);
  const scores: Record<string, number> = {};
  classes.forEach((c, k) => (scores[c] = r3(e[k]! / sum)));
  return { label: classes[top]!, scores, quality };
}
