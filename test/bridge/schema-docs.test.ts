import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { taskJsonSchema } from "../../bridge/task/schema.js";
import { bundleJsonSchema } from "../../bridge/bundle/schema.js";
import { REPO_ROOT } from "../apps/cli/helpers.js";

describe("published JSON Schemas", () => {
  it("docs/*.schema.json match the zod schemas (regenerate with `esi3d schema task|bundle -o ...`)", () => {
    expect(JSON.parse(readFileSync(join(REPO_ROOT, "docs", "task.schema.json"), "utf8"))).toEqual(taskJsonSchema());
    expect(JSON.parse(readFileSync(join(REPO_ROOT, "docs", "bundle.schema.json"), "utf8"))).toEqual(bundleJsonSchema());
  });
});
