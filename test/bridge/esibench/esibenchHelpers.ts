/** The 87 released ESI-Bench sample records (fixtures/esi-bench) and copies of them to break. */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/apps/cli/helpers.js";

export const SAMPLE = join(REPO_ROOT, "fixtures", "esi-bench");
export const JSON_CLEAN = join(SAMPLE, "dataset", "json_clean");

/** A writable copy of the sample's json_clean directory. */
export function sampleCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "esi3d-esi-")), "json_clean");
  cpSync(JSON_CLEAN, dir, { recursive: true });
  return dir;
}

/** Reads a sample record (path relative to json_clean). */
export function sampleRecord(rel: string): Record<string, string> {
  return JSON.parse(readFileSync(join(JSON_CLEAN, rel), "utf8"));
}

export function writeRecord(dir: string, rel: string, record: unknown): void {
  writeFileSync(join(dir, rel), typeof record === "string" ? record : JSON.stringify(record));
}

export const PATHS = {
  contactMismatch: "Spatial Relations/Physical Contact/Beechwood_0_garden/corridor_0/Beechwood_0_garden__corridor_0.json",
  contactOld: "Spatial Relations/Physical Contact/Merom_0_int/childs_room_0/Merom_0_int__childs_room_0.json",
  triangleFar: "Spatial Relations/Geometric Configuration/Beechwood_0_garden/bathroom_0/Beechwood_0_garden__bathroom_0_0.json",
  triangleRandom: "Spatial Relations/Geometric Configuration/Ihlen_0_int/dining_room_0/Ihlen_0_int__dining_room_0_1__1.json",
  distanceOffCentre: "Metric Comparison/Spatial Distance/Benevolence_1_int/living_room_0/Benevolence_1_int__living_room_0_0.json",
  transparencyYes: "Perceptual Grounding/Material Transparency/Beechwood_0_garden/bathroom_0/Beechwood_0_garden__bathroom_0.json",
  transparencyMismatch: "Perceptual Grounding/Material Transparency/Merom_0_garden/closet_0/Merom_0_garden__closet_0__1.json",
  mirrorRelations: "Specular Reflection/Spatial Relations/Benevolence_1_int/dining_room_0/q_005.json",
  liquid: "Physical Structure/Liquid Volume/unknown_scene/unknown_room/run_1.json",
  countingProxy: "Enumerative Perception/Counting w Occlusion/house_double_floor_upper/living_room_0/q_004.json",
  sizeFallen: "Metric Comparison/Dimensional Size/Beechwood_0_garden/bathroom_0/Beechwood_0_garden__bathroom_0_8.json",
} as const;
