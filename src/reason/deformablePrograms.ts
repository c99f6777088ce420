/**
 * Deformable's offline program, shared by the 3D arm (graph nodes) and the 2D arm (masks). What is under the cloth?
 *
 * - SEEN rule: when the evidence holds an object of one of the options' categories (the cloth was lifted and the
 *   object seen), that is the answer, as sure as its label.
 * - DRAPE rule: otherwise only the drape is seen, and it rests on the hidden object's top: its height is about the
 *   object's height. Each option's height comes from its category's library models (the SIZE_PRIOR: the typical
 *   size of a category, physical knowledge any agent may have, never the task's own record), and the option whose
 *   height is nearest the drape's wins, at low confidence: objects of similar height look alike under a cloth.
 */
import { buildModel, LIBRARY } from "../../core/objects/library.js";
import { declined, marginConfidence, type Decision } from "./decision.js";

/** The category a drape's node or mask has (the cloth's label). */
export const CLOTH_LABEL = "cloth";
/** DRAPE decisions are never surer than this (ours: a drape shows a height, not what has it). */
const DRAPE_MAX_CONFIDENCE = 0.5;
/** A height gap (m) this large between the nearest and the next option makes a DRAPE decision its surest. Ours: 5 cm. */
const DRAPE_HEIGHT_GAP_M = 0.05;

/** The library category an option names ("glass bowl" -> "glass_bowl"), or null. */
export const optionCategory = (option: string): string | null => {
  const c = option.trim().replace(/ /g, "_");
  return LIBRARY.has(c) ? c : null;
};

/** SIZE_PRIOR: a category's typical height (m), the mean of its library models' heights. */
export function typicalHeight(category: string): number {
  const models = LIBRARY.get(category)!.models;
  return models.reduce((s, m) => s + buildModel(m.id).extent[2], 0) / models.length;
}

/** DRAPE rule: the option whose typical height is nearest `height` (m), at low confidence. */
export function byDrapeHeight(options: readonly string[], height: number, trace: string[], source: string): Decision {
  const scored = options
    .map((o) => {
      const c = optionCategory(o);
      return { o, h: c ? typicalHeight(c) : Number.NaN };
    })
    .filter((s) => Number.isFinite(s.h))
    .map((s) => ({ ...s, gap: Math.abs(s.h - height) }))
    .sort((a, b) => a.gap - b.gap);
  if (scored.length === 0) return declined("no option names a library category with a typical size", trace);
  const [best, next] = [scored[0]!, scored[1]];
  trace.push(
    `${source}: drape ${height.toFixed(3)} m high; options' typical heights ${scored.map((s) => `${s.o} ${s.h.toFixed(3)}`).join(", ")} m -> ${best.o} (nearest)`,
  );
  const margin = next ? next.gap - best.gap : DRAPE_HEIGHT_GAP_M;
  return { answer: best.o, confidence: Math.round(DRAPE_MAX_CONFIDENCE * marginConfidence(margin, DRAPE_HEIGHT_GAP_M) * 1000) / 1000, trace };
}

/**
 * The 2D arm's drape height: masks have no depth and the 2D arm reads no camera pose, so it reads the cloth mask's
 * aspect in the initial view (box height over width, px), which ESI's main-view protocol (a view from about 30 deg
 * above, its distance scaled with the drape) makes nearly a function of the drape's height alone. The map is linear,
 * fitted by least squares on 40 tasks of seed "deformable-2d-cal" (scripts/deformable-aspect-calibration.mjs; not
 * the measurement's seeds): aspects 0.42-0.81, residual 2.1 cm RMS.
 */
const ASPECT_TO_HEIGHT = { slopeM: 0.532, interceptM: -0.1803 };

export function drapeHeightFromAspect(aspect: number): number {
  return Math.max(0, ASPECT_TO_HEIGHT.slopeM * aspect + ASPECT_TO_HEIGHT.interceptM);
}
