/**
 * The paper's Table 4 as esi3d holds it (src/eval/paper/esiTable4.ts): equal, cell for cell, to the table as
 * extracted from the paper (fixtures/esi-bench/table4.csv), and to the numbers the paper's own text repeats, so
 * a typo in either copy fails here.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SUBCATEGORIES, SUBCATEGORY_TITLES, type Subcategory } from "../../../core/task/taxonomy.js";
import { publishedAccuracy, publishedDifference, TABLE4_MODEL_TITLES, TABLE4_PARADIGMS, type Table4Model } from "../../../src/eval/paper/esiTable4.js";
import { REPO_ROOT } from "../apps/cli/helpers.js";

const csv = readFileSync(join(REPO_ROOT, "fixtures", "esi-bench", "table4.csv"), "utf8")
  .trim()
  .split("\n");
const header = csv[0]!.split(",");
/** The paper's models: every one has its printed title. */
const MODELS = Object.keys(TABLE4_MODEL_TITLES) as Table4Model[];
const rows = csv.slice(1).map((l) => Object.fromEntries(l.split(",").map((v, i) => [header[i]!, v])));

describe("ESI-Bench Table 4 as data", () => {
  it("holds every cell of the extracted table, in the paper's row order, for each of the 29 subcategories", () => {
    expect(rows.map((r) => r["subcategory_id"])).toEqual(SUBCATEGORIES);
    expect(header.length).toBe(3 + MODELS.length * TABLE4_PARADIGMS.length);
    let cells = 0;
    for (const r of rows) {
      const sub = r["subcategory_id"] as Subcategory;
      // the paper's titles ("Counting w Occlusion") are the taxonomy's, which tells the mirror's Spatial Relations from the category
      expect(SUBCATEGORY_TITLES[sub].replace(" (mirror)", "")).toBe(r["subcategory"]);
      for (const m of MODELS)
        for (const p of TABLE4_PARADIGMS) {
          expect(publishedAccuracy(sub, m, p), `${sub} ${m}_${p}`).toBe(Number(r[`${m}_${p}`]));
          cells++;
        }
    }
    expect(cells).toBe(29 * 20);
  });

  it("agrees with the numbers the paper's text repeats", () => {
    // §4.3: "VGGT + Gemini 9.9 % on Geometric Configuration, GT 3D + Gemini 70.8 %", against Gemini 3.1's 27.5 %
    expect(publishedAccuracy("geometric_configuration", "vggt_gemini", "passive_single")).toBe(9.9);
    expect(publishedAccuracy("geometric_configuration", "gt3d_gemini", "passive_single")).toBe(70.8);
    expect(publishedAccuracy("geometric_configuration", "gemini31", "passive_single")).toBe(27.5);
    expect(publishedDifference("geometric_configuration", "gt3d_gemini", "gemini31", "passive_single")).toBe(43.3);
    // Counting w Occlusion: GT 3D 33.3 % against 3.3 % (+30.0), VGGT 0.0 %
    expect(publishedDifference("counting_with_occlusion", "gt3d_gemini", "gemini31", "passive_single")).toBe(30);
    expect(publishedAccuracy("counting_with_occlusion", "vggt_gemini", "passive_single")).toBe(0);
    // Gemini 3.1 passive to active: View Hallucination 39.9 -> 68.1, Rigid Containment 47.5 -> 67.5
    expect([publishedAccuracy("view_hallucination", "gemini31", "passive_single"), publishedAccuracy("view_hallucination", "gemini31", "active")]).toEqual([
      39.9, 68.1,
    ]);
    expect([publishedAccuracy("rigid_containment", "gemini31", "passive_single"), publishedAccuracy("rigid_containment", "gemini31", "active")]).toEqual([
      47.5, 67.5,
    ]);
    // GPT-5: Spatial Distance 53.9 -> 49.1 (single -> multi); Rigid Containment active 42.5 -> GT-passive 95.0; Physical Contact 64.2 -> 90.0
    expect([publishedAccuracy("spatial_distance", "gpt5", "passive_single"), publishedAccuracy("spatial_distance", "gpt5", "passive_multi")]).toEqual([
      53.9, 49.1,
    ]);
    expect([publishedAccuracy("rigid_containment", "gpt5", "active"), publishedAccuracy("rigid_containment", "gpt5", "gt_passive")]).toEqual([42.5, 95]);
    expect([publishedAccuracy("physical_contact", "gpt5", "active"), publishedAccuracy("physical_contact", "gpt5", "gt_passive")]).toEqual([64.2, 90]);
    expect(publishedAccuracy("geometric_configuration", "gpt5", "gt_passive")).toBe(26);
    // GPT-5's active-to-oracle gap: 43.4 (Counting w Occlusion), 45.0 (Structural Enclosure)
    expect(
      Math.round((publishedAccuracy("counting_with_occlusion", "gpt5", "gt_passive") - publishedAccuracy("counting_with_occlusion", "gpt5", "active")) * 10) /
        10,
    ).toBe(43.4);
    expect(
      Math.round((publishedAccuracy("structural_enclosure", "gpt5", "gt_passive") - publishedAccuracy("structural_enclosure", "gpt5", "active")) * 10) / 10,
    ).toBe(45);
    // GT-passive against humans: Gemini 88.4 vs 87.4 on Partial Occlusion, GPT-5 96.3 vs 97.2 on Material Transparency
    expect([publishedAccuracy("partial_occlusion", "gemini31", "gt_passive"), publishedAccuracy("partial_occlusion", "human", "gt_passive")]).toEqual([
      88.4, 87.4,
    ]);
    expect([publishedAccuracy("material_transparency", "gpt5", "gt_passive"), publishedAccuracy("material_transparency", "human", "gt_passive")]).toEqual([
      96.3, 97.2,
    ]);
    // active: humans 88.3 against GPT-5 64.2 on Physical Contact, 93.6 against Gemini 3.1 52.3 on Material Transparency
    expect(publishedAccuracy("physical_contact", "human", "active")).toBe(88.3);
    expect([publishedAccuracy("material_transparency", "human", "active"), publishedAccuracy("material_transparency", "gemini31", "active")]).toEqual([
      93.6, 52.3,
    ]);
  });

  it("rounds a difference to the table's one decimal (71.7 - 66.7 is exactly 5.0)", () => {
    expect(publishedDifference("traversable_passage", "gt3d_gemini", "gemini31", "passive_single")).toBe(5);
    expect(publishedDifference("view_hallucination", "vggt_gemini", "gemini31", "gt_passive")).toBe(-3.5);
  });
});
