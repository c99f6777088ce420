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
function typicalHeight(category: string): number {
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
 * aspect in the initial view (box height over width, px) through ESI's main-view protocol, which any agent of the
 * benchmark may know: a view from about MAIN_VIEW_PITCH_DEG above, where a drape of footprint F and height h spans
 * about h cos(pitch) + F sin(pitch) down the image and F across it. F is not seen either: NOMINAL_DRAPE_FOOTPRINT_M.
 */
/** ESI's main view looks down atan(0.24 / 0.45) = 28.1 deg to atan(0.40 / 0.68) = 30.5 deg (batch_deformable.py): about 29. */
const MAIN_VIEW_PITCH_DEG = 29;
/** The draped footprint the 2D arm assumes (m). Ours: a 30-50 cm cloth drapes to 32-43 cm (generated tasks). */
const NOMINAL_DRAPE_FOOTPRINT_M = 0.38;

export function drapeHeightFromAspect(aspect: number): number {
  const p = (MAIN_VIEW_PITCH_DEG * Math.PI) / 180;
  return Math.max(0, (NOMINAL_DRAPE_FOOTPRINT_M * (aspect - Math.sin(p))) / Math.cos(p));
}
