/** Item records of every arm a report draws, built by hand: for tests of the agreement, the forest plot and report.html. */
import { ItemRecordSchema, itemKey, type ItemRecord } from "../../src/eval/records.js";
import { scoredItem } from "./items.js";

/** The arms of a default run (2D, the shortcut, GT and noisy 3D with oracle and appearance labels) and a real VGGT one. */
export const REPORT_ARMS = ["2D", "Shortcut", "GT-3D", "GT-3D appearance", "Noisy-3D", "Noisy-3D appearance", "VGGT-3D"] as const;
export type ReportArm = (typeof REPORT_ARMS)[number];

const SOURCE: Record<ReportArm, string | null> = {
  "2D": null,
  Shortcut: null,
  "GT-3D": "gt",
  "GT-3D appearance": "gt",
  "Noisy-3D": "noisy",
  "Noisy-3D appearance": "noisy",
  "VGGT-3D": "vggt",
};

/** A scored yes/no item of `arm` on `task` (right or wrong), as the run writes it: the key, source and labels that make its method `arm`. */
function armItem(task: string, paradigm: string, arm: ReportArm, correct: boolean, subcategory: string): ItemRecord {
  const base = scoredItem(task, paradigm, arm === "2D" || arm === "Shortcut" ? "2d" : "gt", correct, subcategory);
  if (arm === "2D") return base;
  if (arm === "Shortcut") return ItemRecordSchema.parse({ ...base, key: itemKey(task, paradigm, "shortcut", null), arm: "shortcut", reasoner: "shortcut" });
  const appearance = arm.endsWith(" appearance");
  const label = `${SOURCE[arm]}${appearance ? "-appearance" : ""}`;
  return ItemRecordSchema.parse({ ...base, key: itemKey(task, paradigm, "3d", label), source: SOURCE[arm], labels: appearance ? "appearance" : "oracle" });
}

/** `n` tasks of one subcategory and paradigm where `arm` is right on the first `right` tasks. */
export function armItems(prefix: string, paradigm: string, arm: ReportArm, n: number, right: number, subcategory: string): ItemRecord[] {
  return Array.from({ length: n }, (_, i) => armItem(`${prefix}-${String(i).padStart(3, "0")}`, paradigm, arm, i < right, subcategory));
}
