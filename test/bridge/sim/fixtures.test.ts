import { describe, expect, it, beforeAll } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { generateTask, prepareGenerators } from "../../../bridge/sim/generate/suite.js";
import { BUILTIN_SUBCATEGORIES } from "../../../core/task/taxonomy.js";
import { readTasks } from "../../../core/task/io.js";
import { REPO_ROOT } from "../../src/apps/cli/helpers.js";

// the Physical Dynamics subcategories simulate: the physics engine loads before any task is drawn
beforeAll(() => prepareGenerators(BUILTIN_SUBCATEGORIES));

describe("committed task fixtures", () => {
  it("are valid task records that the generator reproduces byte for byte", () => {
    const dir = join(REPO_ROOT, "fixtures", "tasks");
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
    expect(files.length).toBe(BUILTIN_SUBCATEGORIES.length);
    expect(
      readTasks(dir)
        .map((t) => t.subcategory)
        .sort(),
    ).toEqual([...BUILTIN_SUBCATEGORIES].sort());
    for (const sub of BUILTIN_SUBCATEGORIES) {
      const t = generateTask(sub, "fixtures", 0);
      expect(readFileSync(join(dir, `${t.task_id}.json`), "utf8"), `${t.task_id}: regenerate with scripts/fixtures.mjs`).toBe(
        JSON.stringify(t, null, 1) + "\n",
      );
    }
  }, 120_000);
});
