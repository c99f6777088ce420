/** The service's request schemas agree with the CLI: same option names and defaults as `esi3d graph`. */
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { registerGraph } from "../../../src/apps/cli/commands/graph.js";
import { GraphOptionsSchema } from "../../../src/apps/service/schemas.js";
import { checkId, checkTaskId, inside } from "../../../src/apps/service/ids.js";

describe("server schemas", () => {
  it("POST /v1/graphs has the options and defaults of `esi3d graph`", () => {
    const program = new Command();
    registerGraph(program);
    const graph = program.commands.find((c) => c.name() === "graph")!;
    const cli = Object.fromEntries(graph.options.filter((o) => o.defaultValue !== undefined).map((o) => [o.attributeName(), o.defaultValue]));
    const served = GraphOptionsSchema.parse({});
    for (const [k, v] of Object.entries(served)) expect(cli[k], k).toEqual(v);
    for (const k of Object.keys(cli)) expect(served, k).toHaveProperty(k);
  });

  it("ids: strict forms, and paths that cannot leave their folder", () => {
    expect(checkId("graph", "g-0123456789abcdef01234567", "x")).toBe("g-0123456789abcdef01234567");
    for (const bad of ["g-0123456789ABCDEF01234567", "b-0123456789abcdef01234567", "g-0123", "../g-0123456789abcdef01234567", "", 7])
      expect(() => checkId("graph", bad, "params.id")).toThrow(/params\.id: expected a graph id/);
    for (const ok of ["linear_alignment-000", "a.b-c_d", "X"]) expect(checkTaskId(ok, "f")).toBe(ok);
    for (const bad of ["..", ".hidden", "a/b", "a..b", "a\\b", "a\u0000b", "x".repeat(129)]) expect(() => checkTaskId(bad, "f")).toThrow(/expected a task id/);
    expect(inside("/data/tasks", "a.json")).toBe("/data/tasks/a.json");
    expect(() => inside("/data/tasks", "../x")).toThrow(/leaves the data directory/);
    expect(() => inside("/data/tasks", "/etc/passwd")).toThrow(/leaves the data directory/);
  });
});
