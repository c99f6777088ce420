import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLISHED_SCHEMA_NAMES, publishedJsonSchema } from "../../../src/eval/publishedSchemas.js";
import { REPO_ROOT } from "../apps/cli/helpers.js";

describe("published JSON Schemas", () => {
  for (const name of PUBLISHED_SCHEMA_NAMES) {
    it(`docs/${name}.schema.json is what \`esi3d schema ${name}\` prints`, () => {
      const file = join(REPO_ROOT, "docs", `${name}.schema.json`);
      expect(JSON.parse(readFileSync(file, "utf8")), `regenerate with: node dist/cli/main.js schema ${name} -o docs/${name}.schema.json`).toEqual(
        publishedJsonSchema(name),
      );
    });
  }

  it("shows the fields of scene graphs, summaries and item records, not an unknown", () => {
    const graph = publishedJsonSchema("graph") as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(graph.properties)).toEqual(expect.arrayContaining(["format", "nodes", "relations"]));
    const item = publishedJsonSchema("item") as { properties: Record<string, unknown> };
    expect(Object.keys(item.properties)).toEqual(expect.arrayContaining(["task_id", "status"]));
    const summary = publishedJsonSchema("summary") as { properties: Record<string, unknown> };
    expect(Object.keys(summary.properties)).toContain("complete");
  });
});
