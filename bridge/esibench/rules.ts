/**
 * esi3d's answer rules (core/task/rules.ts, and the generators' derivations) applied to an imported or
 * proxy task's placed geometry, to see whether the geometry implies ESI's label. Unknown extents fall back to what the record has, as the reference's check did: centre distances
 * for Spatial Distance, scale^3 for Dimensional Size. A world AABB standing in for an extent is an
 * axis-aligned box (its orientation is the world's), so it is measured as one.
 */
import { classifyTriangle, collinearityResidual, COLLINEAR_TOL_M, TOUCHING_GAP_M, INSIDE_FOOTPRINT_MARGIN_M } from "../../core/task/rules.js";
import { objectBox } from "../../core/objects/geometry.js";
import { boxBottom, boxDistance, boxTop, boxVolume, footprintDistance, type YawBox } from "../../core/geometry.js";
import { displayName } from "./draft.js";
import type { Subcategory } from "../../core/task/taxonomy.js";

interface RuleObject {
  id: number;
  category: string;
  role: string;
  position: [number, number, number];
  orientation: { x: number; y: number; z: number; w: number };
  extent: [number, number, number] | null;
  extent_source?: string;
  scale: number | [number, number, number];
}

export interface RuleTask {
  subcategory: Subcategory;
  answer: string;
  options: string[];
  objects: RuleObject[];
  relevant_object_ids: number[];
  label_metadata: Record<string, unknown>;
}

export interface RuleCheck {
  /** What the rule measured, e.g. "triangle sides (XY centre distances)". */
  rule: string;
  /** The answer the rule gives, or null when the geometry it needs is not in the task. */
  answer: string | null;
  agrees: boolean | null;
  quantities: Record<string, number | string | boolean | null>;
}

const r4 = (x: number) => Math.round(x * 10000) / 10000;
const xy = (a: RuleObject, b: RuleObject) => Math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1]);

/** The object's box; a world AABB is an unrotated box. */
function boxOf(o: RuleObject): YawBox | null {
  if (!o.extent) return null;
  return o.extent_source === "record_world_aabb"
    ? { centre: [...o.position], extent: [o.extent[0], o.extent[1], o.extent[2]], yaw: 0 }
    : objectBox({ position: o.position, orientation: o.orientation, extent: o.extent });
}

const uniformScale = (s: RuleObject["scale"]) => (typeof s === "number" ? s : Math.cbrt(s[0] * s[1] * s[2]));

/**
 * Inside (as isInsideContainer in bridge/sim/generate/perceptual.ts): the object's centre within the
 * container's smaller half footprint (less INSIDE_FOOTPRINT_MARGIN_M) and its box within the container's height.
 */
function insideContainer(o: YawBox, c: YawBox): { inside: boolean; radial_m: number; bottom_gap_m: number; top_gap_m: number } {
  const r = Math.hypot(o.centre[0] - c.centre[0], o.centre[1] - c.centre[1]);
  const bottom = boxBottom(o) - boxBottom(c);
  const top = boxTop(c) - boxTop(o);
  return {
    inside: r < Math.min(c.extent[0], c.extent[1]) / 2 - INSIDE_FOOTPRINT_MARGIN_M && bottom >= -1e-4 && top >= -1e-4,
    radial_m: r4(r),
    bottom_gap_m: r4(bottom),
    top_gap_m: r4(top),
  };
}

const check = (rule: string, answer: string | null, truth: string, quantities: RuleCheck["quantities"]): RuleCheck => ({
  rule,
  answer,
  agrees: answer === null ? null : answer === truth,
  quantities,
});

/** The rule's answer for a task, or null when esi3d has no rule for the subcategory. */
export function applyRule(t: RuleTask): RuleCheck | null {
  const rel = t.relevant_object_ids.map((id) => t.objects.find((o) => o.id === id)!).filter(Boolean);
  switch (t.subcategory) {
    case "geometric_configuration": {
      if (rel.length !== 3) return null;
      const [a, b, c] = rel as [RuleObject, RuleObject, RuleObject];
      const sides: [number, number, number] = [xy(b, c), xy(c, a), xy(a, b)];
      return check("classifyTriangle on XY centre distances (TRIANGLE_EQUAL_SIDE_TOL 5 %)", classifyTriangle(sides), t.answer, {
        side_a_m: r4(sides[0]),
        side_b_m: r4(sides[1]),
        side_c_m: r4(sides[2]),
      });
    }
    case "linear_alignment": {
      const res = collinearityResidual(rel.map((o) => o.position));
      return check(`collinearity residual <= ${COLLINEAR_TOL_M} m`, res <= COLLINEAR_TOL_M ? "yes" : "no", t.answer, { residual_m: r4(res) });
    }
    case "physical_contact": {
      const [a, b] = rel.map(boxOf);
      if (!a || !b) return check("box gap", null, t.answer, {});
      const gap = boxDistance(a, b);
      return check(`box gap <= ${TOUCHING_GAP_M} m (TOUCHING_GAP_M; AABBs: a lower bound on the surface gap)`, gap <= TOUCHING_GAP_M ? "yes" : "no", t.answer, {
        box_gap_m: r4(gap),
      });
    }
    case "material_transparency": {
      const [c, o] = rel.map(boxOf);
      if (!c || !o) return check("inside the container's box", null, t.answer, {});
      const ins = insideContainer(o, c);
      return check("object centre inside the container footprint and its box within the container's height", ins.inside ? "yes" : "no", t.answer, {
        radial_m: ins.radial_m,
        bottom_gap_m: ins.bottom_gap_m,
        top_gap_m: ins.top_gap_m,
      });
    }
    case "spatial_distance": {
      const [ref, ...objs] = rel;
      if (!ref || objs.length !== 2) return null;
      const rb = boxOf(ref);
      const boxes = objs.map(boxOf);
      const byBox = rb && boxes.every(Boolean);
      const d = objs.map((o, i) => (byBox ? boxDistance(boxes[i]!, rb!) : xy(o, ref)));
      const near = d[0]! <= d[1]! ? objs[0]! : objs[1]!;
      const q: RuleCheck["quantities"] = {
        [`d_${displayName(objs[0]!.category).replace(/ /g, "_")}_m`]: r4(d[0]!),
        [`d_${displayName(objs[1]!.category).replace(/ /g, "_")}_m`]: r4(d[1]!),
      };
      return check(
        byBox ? "the closer object by box distance to the reference" : "the closer object by XY centre distance to the reference (no extents recorded)",
        displayName(near.category),
        t.answer,
        q,
      );
    }
    case "dimensional_size": {
      const targets = rel.filter((o) => o.role === "target");
      const refs = rel.filter((o) => o.role === "reference");
      if (targets.length !== 2 || refs.length < 2) return null;
      const boxes = targets.map(boxOf);
      const vol = targets.map((o, i) => (boxes[i] ? boxVolume(boxes[i]!) : uniformScale(o.scale) ** 3));
      const big = vol[0]! >= vol[1]! ? 0 : 1;
      const bigBox = boxes[big];
      const dist = refs.map((r) => (bigBox ? footprintDistance(bigBox, { centre: r.position, extent: [0, 0, 0], yaw: 0 }) : xy(r, targets[big]!)));
      const k = dist.indexOf(Math.min(...dist));
      return check(
        boxes.every(Boolean) ? "larger box volume, then the nearest reference" : "larger scale^3 (same model), then the nearest reference",
        displayName(refs[k]!.category),
        t.answer,
        {
          volume_ratio: r4(Math.max(...vol) / Math.min(...vol)),
          ...Object.fromEntries(refs.map((r, i) => [`d_${displayName(r.category).replace(/ /g, "_")}_m`, r4(dist[i]!)])),
        },
      );
    }
    case "partial_occlusion":
    case "view_hallucination": {
      const target = t.objects.find((o) => o.role === "target");
      if (!target) return null;
      const name = displayName(target.category);
      return check("the answer is the target's category", t.options.includes(name) ? name : null, t.answer, { target_category: target.category });
    }
    case "counting_with_occlusion":
    case "spatial_segmentation":
    case "merged_observation":
    case "category_ambiguity":
    case "illumination_variability":
    case "structural_enclosure": {
      const cat = t.label_metadata.category as string | undefined;
      const n = t.objects.filter((o) => o.role === "target" && o.category === cat).length;
      return check("the number of placed targets of the counted category", String(n), t.answer, { placed: n, category: cat ?? null });
    }
    default:
      return null;
  }
}
