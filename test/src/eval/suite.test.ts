/**
 * src/eval/suite.ts: a directory suite of imported tasks becomes proxy tasks, and what cannot run is
 * skipped per task or per paradigm with the reason (the runner never sees it).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { writeTasks } from "../../../core/task/io.js";
import type { Task } from "../../../core/task/schema.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { isSkippedUnit, planSuiteDirectory } from "../../../src/eval/suite.js";
import { SAMPLE } from "../../bridge/esibench/esibenchHelpers.js";
import { BUILTIN_SUBCATEGORIES } from "../../../core/task/taxonomy.js";

describe("directory suites with imported tasks", () => {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-suite-"));
  writeTasks(
    dir,
    importRecords(SAMPLE).imported.map((x) => x.task! as unknown as Task),
  );
  writeTasks(dir, [generateTask("linear_alignment", "suite-test", 0)]);
  const plan = planSuiteDirectory(dir, { subcategories: [...BUILTIN_SUBCATEGORIES], paradigms: ["single", "multi", "gt"] });

  it("runs the proxiable imported tasks as proxies and built-in tasks as they are", () => {
    // the sample's 3 Structural Enclosure records run as proxies since the subcategory is built in (issue 46)
    // and the 9 Specular Reflection records since their mirrors are drawn (issue 47); the 3 Agent Observation records
    // are skipped (issue 48: a record stores the robot's walk, no robot to draw)
    expect(plan.tasks.length).toBe(40);
    expect(plan.proxies).toBe(39);
    const builtin = plan.tasks.find((t) => t.task_id.startsWith("linear_alignment"))!;
    expect(builtin.proxy).toBeUndefined();
    expect(plan.tasks.filter((t) => t.proxy).every((t) => t.simulator.startsWith("esi3d-builtin/1 proxy of "))).toBe(true);
  });

  it("skips the others with reasons, per task or per paradigm", () => {
    const why = (id: string, p: string | null = null) => plan.skipped.find((s) => s.task_id === id && s.paradigm === p)?.reason;
    expect(plan.skipped.filter((s) => s.paradigm === null).length).toBe(87 - 39);
    expect(why("esi-0927", "gt")).toMatch(/no gt view set/);
    expect(isSkippedUnit(plan.skipped, "esi-0927", "gt")).toBe(true);
    expect(isSkippedUnit(plan.skipped, "esi-0927", "single")).toBe(false);
    expect(why("esi-1828")).toMatch(/cover only \d+ subcategories/);
    // Rigid Containment is built in, but its records store no camera; Cognitive Mapping records store no apartment layout
    expect(why("esi-1925")).toMatch(/stores no camera/);
    expect(why("esi-0200")).toMatch(/regional_boundary: the record stores no room layout/);
    const sub = planSuiteDirectory(dir, { subcategories: ["physical_contact"], paradigms: ["single"] });
    expect(sub.tasks.map((t) => t.task_id).sort()).toEqual(["esi-2803", "esi-2805", "esi-2830"]);
    expect(sub.skipped.find((s) => s.task_id === "esi-0927")!.reason).toBe("subcategory not selected (--subcategories)");
  });
});
