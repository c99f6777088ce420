/**
 * ESI-Bench's 29 subcategories onto esi3d's taxonomy, keyed by (big_task, small_task): "Spatial Relations"
 * is both a category and a Specular Reflection subcategory (ESI-Bench's released records).
 */
import { SUBCATEGORY_CATEGORY, type Subcategory } from "../../core/task/taxonomy.js";
import type { Mapper } from "./map/common.js";
import { mapGeometricConfiguration, mapLinearAlignment, mapPhysicalContact } from "./map/spatial.js";
import { mapDimensionalSize, mapSpatialDistance } from "./map/metric.js";
import { mapMaterialTransparency, mapPartialOcclusion, mapViewHallucination } from "./map/perceptual.js";
import { mapCounting } from "./map/counting.js";
import {
  mapActionOrder,
  mapAgentObservation,
  mapConnectivity,
  mapDeformable,
  mapInclinedPlane,
  mapLiquidVolume,
  mapLongTermNavigation,
  mapMirror,
  mapRegionalBoundary,
  mapRigidContainment,
  mapStacking,
  mapTraversablePassage,
  mapUnobservedChange,
} from "./map/others.js";

interface Entry {
  big: string;
  small: string;
  sub: Subcategory;
  map: Mapper;
}

const ENTRIES: Entry[] = [
  { big: "Spatial Relations", small: "Geometric Configuration", sub: "geometric_configuration", map: mapGeometricConfiguration },
  { big: "Spatial Relations", small: "Linear Alignment", sub: "linear_alignment", map: mapLinearAlignment },
  { big: "Spatial Relations", small: "Physical Contact", sub: "physical_contact", map: mapPhysicalContact },
  { big: "Metric Comparison", small: "Spatial Distance", sub: "spatial_distance", map: mapSpatialDistance },
  { big: "Metric Comparison", small: "Dimensional Size", sub: "dimensional_size", map: mapDimensionalSize },
  { big: "Perceptual Grounding", small: "Material Transparency", sub: "material_transparency", map: mapMaterialTransparency },
  { big: "Perceptual Grounding", small: "Partial Occlusion", sub: "partial_occlusion", map: mapPartialOcclusion },
  { big: "Perceptual Grounding", small: "View Hallucination", sub: "view_hallucination", map: mapViewHallucination },
  { big: "Enumerative Perception", small: "Counting w Occlusion", sub: "counting_with_occlusion", map: mapCounting },
  { big: "Enumerative Perception", small: "Spatial Segmentation", sub: "spatial_segmentation", map: mapCounting },
  { big: "Enumerative Perception", small: "Merged Observation", sub: "merged_observation", map: mapCounting },
  { big: "Enumerative Perception", small: "Category Ambiguity", sub: "category_ambiguity", map: mapCounting },
  { big: "Enumerative Perception", small: "Illumination Variability", sub: "illumination_variability", map: mapCounting },
  { big: "Enumerative Perception", small: "Structural Enclosure", sub: "structural_enclosure", map: mapCounting },
  { big: "Physical Structure", small: "Rigid Containment", sub: "rigid_containment", map: mapRigidContainment },
  { big: "Physical Structure", small: "Liquid Volume", sub: "liquid_volume", map: mapLiquidVolume },
  { big: "Physical Structure", small: "Deformable", sub: "deformable", map: mapDeformable },
  { big: "Physical Dynamics", small: "Inclined Plane", sub: "inclined_plane", map: mapInclinedPlane },
  { big: "Physical Dynamics", small: "Stacking & Stability", sub: "stacking_stability", map: mapStacking },
  { big: "Specular Reflection", small: "Reflection Authoring", sub: "reflection_authoring", map: mapMirror },
  { big: "Specular Reflection", small: "Spatial Relations", sub: "mirror_spatial_relations", map: mapMirror },
  { big: "Specular Reflection", small: "Correspondence", sub: "mirror_correspondence", map: mapMirror },
  { big: "Cognitive Mapping", small: "Connectivity", sub: "connectivity", map: mapConnectivity },
  { big: "Cognitive Mapping", small: "Traversable Passage", sub: "traversable_passage", map: mapTraversablePassage },
  { big: "Cognitive Mapping", small: "Regional Boundary", sub: "regional_boundary", map: mapRegionalBoundary },
  { big: "Cognitive Mapping", small: "Long-Term Navigation", sub: "long_term_navigation", map: mapLongTermNavigation },
  { big: "Temporal Understanding", small: "Unobserved Change", sub: "unobserved_change", map: mapUnobservedChange },
  { big: "Temporal Understanding", small: "Agent Observation", sub: "agent_observation", map: mapAgentObservation },
  { big: "Action Sequencing", small: "Action Order Inference", sub: "action_order_inference", map: mapActionOrder },
];

const key = (big: string, small: string) => `${big}\u0000${small}`;
const BY_KEY = new Map(ENTRIES.map((e) => [key(e.big, e.small), e]));

export function subcategoryOf(big: string, small: string): Entry | null {
  return BY_KEY.get(key(big, small)) ?? null;
}

// every esi3d subcategory is reached from exactly one (big_task, small_task), under its own category
for (const e of ENTRIES) if (!(e.sub in SUBCATEGORY_CATEGORY)) throw new Error(`unknown subcategory ${e.sub}`);
