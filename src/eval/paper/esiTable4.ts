/**
 * ESI-Bench's published main results, as data: Table 4 of "ESI-Bench: Towards Embodied Spatial Intelligence
 * that Closes the Perception-Action Loop" (arXiv 2605.18746, 19 May 2026). Accuracy (%) per subcategory,
 * model and paradigm, on the paper's matched subsets, copied cell for cell (the source writes some values as
 * "100" and others as "100.0"; both are 100.0 here). fixtures/esi-bench/table4.csv holds the same table as
 * extracted from the paper, and test/src/eval/esiTable4.test.ts keeps the two equal and checks the cells the
 * paper's prose repeats.
 *
 * esi3d's arms stand for two of the paper's "3D + LLM" rows: GT-3D for "GT 3D + Gemini" and the noise model
 * (and a real VGGT run) for "VGGT + Gemini", each set against "2D + VLM" Gemini 3.1 (src/eval/paperAgreement.ts).
 */
import type { Subcategory } from "../../../core/task/taxonomy.js";

/** The paper's paradigms, in its column order: Passive Single-View, Passive Multi-View (30 random views), Active Exploration, Ground-Truth Passive. */
export const TABLE4_PARADIGMS = ["passive_single", "passive_multi", "active", "gt_passive"] as const;
export type Table4Paradigm = (typeof TABLE4_PARADIGMS)[number];

/** The paper's model rows, in its order: two "2D + VLM" models, two "3D + LLM" models, and human performance. */
const TABLE4_MODELS = ["gpt5", "gemini31", "vggt_gemini", "gt3d_gemini", "human"] as const;
export type Table4Model = (typeof TABLE4_MODELS)[number];

/** The names the paper prints for its models. */
export const TABLE4_MODEL_TITLES: Record<Table4Model, string> = {
  gpt5: "GPT-5",
  gemini31: "Gemini 3.1",
  vggt_gemini: "VGGT + Gemini",
  gt3d_gemini: "GT 3D + Gemini",
  human: "Human",
};

/** One model's accuracy (%) on one subcategory, in TABLE4_PARADIGMS order. */
type Table4Cells = readonly [number, number, number, number];
type Table4Row = Readonly<Record<Table4Model, Table4Cells>>;

/** Table 4, one row per subcategory (every one of the 29: the type asks for each). */
const ESI_TABLE4: Readonly<Record<Subcategory, Table4Row>> = {
  view_hallucination: {
    gpt5: [11.7, 20.2, 60.1, 87.8],
    gemini31: [39.9, 32.9, 68.1, 91.1],
    vggt_gemini: [56.3, 59.0, 76.1, 87.6],
    gt3d_gemini: [61.6, 60.6, 74.1, 89.0],
    human: [52.2, 45.8, 80.8, 83.8],
  },
  partial_occlusion: {
    gpt5: [32.6, 26.3, 47.4, 86.3],
    gemini31: [30.5, 32.6, 70.5, 88.4],
    vggt_gemini: [51.6, 48.4, 53.7, 86.3],
    gt3d_gemini: [56.8, 55.8, 72.6, 91.6],
    human: [37.9, 34.7, 80.0, 87.4],
  },
  material_transparency: {
    gpt5: [30.3, 36.7, 66.1, 96.3],
    gemini31: [44.0, 45.0, 52.3, 88.0],
    vggt_gemini: [37.4, 29.4, 31.8, 90.9],
    gt3d_gemini: [27.8, 31.2, 60.4, 100.0],
    human: [41.3, 44.0, 93.6, 97.2],
  },
  rigid_containment: {
    gpt5: [45.0, 42.5, 42.5, 95.0],
    gemini31: [47.5, 40.0, 67.5, 97.5],
    vggt_gemini: [27.5, 37.5, 57.5, 72.5],
    gt3d_gemini: [45.0, 42.5, 65.0, 95.0],
    human: [47.5, 42.5, 92.5, 100.0],
  },
  liquid_volume: {
    gpt5: [66.2, 66.2, 81.6, 86.0],
    gemini31: [69.9, 67.6, 80.9, 86.8],
    vggt_gemini: [65.4, 56.7, 71.3, 77.2],
    gt3d_gemini: [74.5, 74.5, 83.1, 86.8],
    human: [79.4, 66.9, 89.7, 86.8],
  },
  deformable: {
    gpt5: [42.9, 41.8, 55.1, 75.5],
    gemini31: [34.7, 41.8, 43.9, 78.6],
    vggt_gemini: [43.9, 42.9, 49.0, 81.6],
    gt3d_gemini: [46.9, 54.1, 99.0, 99.0],
    human: [57.1, 60.2, 76.5, 82.7],
  },
  inclined_plane: {
    gpt5: [57.4, 60.7, 77.0, 86.9],
    gemini31: [65.6, 62.3, 83.6, 88.5],
    vggt_gemini: [67.2, 62.3, 80.3, 86.9],
    gt3d_gemini: [63.9, 63.9, 83.6, 91.8],
    human: [60.7, 62.3, 83.6, 83.6],
  },
  stacking_stability: {
    gpt5: [34.8, 37.1, 62.9, 86.5],
    gemini31: [38.2, 36.0, 78.7, 84.3],
    vggt_gemini: [34.8, 39.3, 55.1, 62.9],
    gt3d_gemini: [27.2, 33.7, 68.5, 86.5],
    human: [36.0, 39.3, 84.3, 86.5],
  },
  reflection_authoring: {
    gpt5: [68.7, 70.7, 70.3, 73.7],
    gemini31: [60.6, 60.6, 64.9, 67.0],
    vggt_gemini: [52.5, 54.6, 53.5, 55.6],
    gt3d_gemini: [55.6, 58.6, 55.6, 60.6],
    human: [94.9, 88.9, 96.0, 96.0],
  },
  mirror_spatial_relations: {
    gpt5: [50.4, 38.9, 54.8, 58.4],
    gemini31: [43.4, 42.5, 44.2, 46.9],
    vggt_gemini: [41.6, 39.8, 41.6, 43.4],
    gt3d_gemini: [38.9, 35.4, 54.2, 41.6],
    human: [78.8, 78.8, 84.1, 87.6],
  },
  mirror_correspondence: {
    gpt5: [39.8, 51.1, 52.3, 56.8],
    gemini31: [37.5, 40.9, 42.0, 42.0],
    vggt_gemini: [37.5, 43.2, 48.9, 48.9],
    gt3d_gemini: [31.8, 39.8, 42.3, 48.9],
    human: [85.2, 80.7, 89.8, 92.0],
  },
  linear_alignment: {
    gpt5: [27.7, 31.9, 42.6, 60.6],
    gemini31: [47.9, 44.6, 67.0, 77.7],
    vggt_gemini: [45.7, 38.3, 53.2, 59.6],
    gt3d_gemini: [73.4, 73.4, 84.0, 89.4],
    human: [51.1, 39.4, 73.4, 79.8],
  },
  geometric_configuration: {
    gpt5: [25.3, 20.4, 26.0, 26.0],
    gemini31: [27.5, 22.3, 27.5, 44.6],
    vggt_gemini: [9.9, 11.3, 18.6, 32.6],
    gt3d_gemini: [70.8, 73.6, 88.0, 100.0],
    human: [32.4, 33.5, 74.3, 86.3],
  },
  physical_contact: {
    gpt5: [40.0, 41.7, 64.2, 90.0],
    gemini31: [60.8, 55.8, 70.0, 74.2],
    vggt_gemini: [59.2, 41.7, 59.2, 78.2],
    gt3d_gemini: [65.8, 67.5, 70.8, 72.5],
    human: [35.8, 40.8, 88.3, 90.8],
  },
  dimensional_size: {
    gpt5: [42.5, 44.9, 67.7, 80.3],
    gemini31: [44.3, 41.3, 68.3, 82.6],
    vggt_gemini: [50.4, 40.1, 59.3, 80.8],
    gt3d_gemini: [58.6, 60.5, 69.9, 85.9],
    human: [48.5, 56.9, 82.6, 91.9],
  },
  spatial_distance: {
    gpt5: [53.9, 49.1, 58.6, 73.7],
    gemini31: [52.6, 50.5, 59.9, 80.3],
    vggt_gemini: [50.7, 47.3, 55.0, 71.4],
    gt3d_gemini: [59.6, 61.2, 64.5, 96.7],
    human: [57.9, 59.9, 69.1, 78.9],
  },
  connectivity: {
    gpt5: [68.3, 70.0, 68.3, 78.3],
    gemini31: [51.7, 48.3, 60.0, 85.0],
    vggt_gemini: [66.7, 66.7, 73.3, 83.3],
    gt3d_gemini: [65.0, 65.0, 71.7, 86.7],
    human: [68.3, 68.3, 81.7, 91.7],
  },
  traversable_passage: {
    gpt5: [68.3, 66.7, 71.7, 73.3],
    gemini31: [66.7, 61.7, 73.3, 78.3],
    vggt_gemini: [68.3, 63.3, 66.7, 78.3],
    gt3d_gemini: [71.7, 73.3, 71.7, 80.0],
    human: [70.0, 71.7, 78.3, 85.0],
  },
  regional_boundary: {
    gpt5: [65.0, 63.8, 65.0, 67.5],
    gemini31: [63.8, 62.5, 65.0, 65.0],
    vggt_gemini: [65.0, 65.0, 62.5, 67.5],
    gt3d_gemini: [60.0, 68.8, 62.5, 68.8],
    human: [61.3, 62.5, 67.5, 70.0],
  },
  long_term_navigation: {
    gpt5: [40.0, 38.3, 41.7, 50.0],
    gemini31: [33.3, 35.0, 33.3, 41.7],
    vggt_gemini: [36.7, 40.0, 43.3, 51.6],
    gt3d_gemini: [36.7, 41.7, 43.3, 40.0],
    human: [35.0, 36.7, 51.7, 61.7],
  },
  counting_with_occlusion: {
    gpt5: [3.3, 3.3, 13.3, 56.7],
    gemini31: [3.3, 3.3, 10.0, 63.3],
    vggt_gemini: [0.0, 0.0, 13.3, 53.3],
    gt3d_gemini: [33.3, 80.0, 83.3, 100.0],
    human: [6.7, 10.0, 53.3, 76.7],
  },
  spatial_segmentation: {
    gpt5: [3.3, 6.7, 26.7, 63.3],
    gemini31: [3.3, 3.3, 16.7, 70.0],
    vggt_gemini: [3.3, 3.3, 23.3, 56.7],
    gt3d_gemini: [43.3, 80.0, 66.7, 86.7],
    human: [13.3, 23.3, 63.3, 70.0],
  },
  merged_observation: {
    gpt5: [38.3, 35.0, 51.7, 50.0],
    gemini31: [43.3, 51.7, 61.7, 75.0],
    vggt_gemini: [63.3, 51.7, 55.0, 65.0],
    gt3d_gemini: [51.7, 63.3, 93.3, 100.0],
    human: [60.0, 60.0, 65.0, 73.3],
  },
  category_ambiguity: {
    gpt5: [8.3, 10.0, 8.3, 41.7],
    gemini31: [13.3, 13.3, 15.0, 48.3],
    vggt_gemini: [21.7, 26.7, 26.7, 46.7],
    gt3d_gemini: [18.3, 76.7, 40.0, 93.3],
    human: [23.3, 25.0, 51.7, 61.7],
  },
  structural_enclosure: {
    gpt5: [5.0, 10.0, 22.5, 67.5],
    gemini31: [2.5, 0.0, 10.0, 52.5],
    vggt_gemini: [0.0, 0.0, 12.5, 52.5],
    gt3d_gemini: [40.0, 60.0, 50.0, 100.0],
    human: [10.0, 22.5, 42.5, 77.5],
  },
  illumination_variability: {
    gpt5: [6.0, 22.0, 22.0, 46.0],
    gemini31: [12.0, 16.0, 22.0, 58.0],
    vggt_gemini: [10.0, 28.0, 30.0, 40.0],
    gt3d_gemini: [20.0, 84.0, 42.0, 96.0],
    human: [20.0, 34.0, 62.0, 66.0],
  },
  unobserved_change: {
    gpt5: [40.5, 41.2, 51.4, 77.0],
    gemini31: [37.2, 37.8, 47.3, 74.5],
    vggt_gemini: [37.8, 41.9, 45.8, 76.6],
    gt3d_gemini: [39.9, 42.6, 46.5, 74.5],
    human: [39.4, 39.4, 70.8, 81.0],
  },
  agent_observation: {
    gpt5: [40.6, 30.1, 51.0, 72.7],
    gemini31: [37.6, 36.1, 58.6, 65.4],
    vggt_gemini: [32.7, 27.9, 34.2, 56.5],
    gt3d_gemini: [36.3, 33.3, 76.7, 87.8],
    human: [38.3, 42.1, 83.5, 90.2],
  },
  action_order_inference: {
    gpt5: [36.4, 37.7, 41.6, 67.5],
    gemini31: [44.2, 46.8, 54.5, 72.7],
    vggt_gemini: [35.1, 31.1, 50.6, 58.4],
    gt3d_gemini: [44.2, 46.8, 51.9, 75.3],
    human: [40.3, 41.6, 74.0, 81.8],
  },
};

/**
 * The published accuracy (%) of a model on a subcategory under a paradigm.
 * @internal Only tests call it: they check every cell against the paper's extracted table; the product reads
 * the table through publishedDifference, which could not tell a wrong pair of cells that differ rightly.
 */
export function publishedAccuracy(subcategory: Subcategory, model: Table4Model, paradigm: Table4Paradigm): number {
  return ESI_TABLE4[subcategory][model][TABLE4_PARADIGMS.indexOf(paradigm)]!;
}

/**
 * A model's published accuracy minus another's on the same subcategory and paradigm, in points, rounded to the
 * table's one decimal (so 71.7 - 66.7 is 5.0, not 5.000000000000007).
 */
export function publishedDifference(subcategory: Subcategory, model: Table4Model, baseline: Table4Model, paradigm: Table4Paradigm): number {
  return Math.round((publishedAccuracy(subcategory, model, paradigm) - publishedAccuracy(subcategory, baseline, paradigm)) * 10) / 10;
}
