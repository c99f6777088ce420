/** The service's request schemas agree with the CLI: both derive from the one schema of the graph pipeline. */
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { registerGraph } from "../../../../src/apps/cli/commands/graph.js";
import { GraphOptionsSchema } from "../../../../src/apps/service/schemas.js";
import { GRAPH_PIPELINE_FLAGS, GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import { flagAttribute } from "../../../../core/flags.js";
import { checkId, checkTaskId, inside } from "../../../../src/apps/service/ids.js";

describe("server schemas", () => {
  it("POST /v1/graphs has the options and defaults of `esi3d graph`", () => {
    const program = new Command();
    registerGraph(program);
    const graph = program.commands.find((c) => c.name() === "graph")!;
    const defaults = GraphPipelineOptionsSchema.parse({}) as Record<string, unknown>;
    const at = (o: Record<string, unknown>, path: string) => path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], o);
    // every flag of `esi3d graph` shows the schema's default for its field
    for (const spec of GRAPH_PIPELINE_FLAGS)
      expect(graph.options.find((o) => o.attributeName() === flagAttribute(spec.flag))?.defaultValue, spec.path).toEqual(at(defaults, spec.path) ?? undefined);
    // the served body takes the same fields with the same defaults, but never the model file (the server's own)
    const served = GraphOptionsSchema.parse({}) as Record<string, unknown>;
    const { modelPath: _m, ...vggt } = defaults.vggt as Record<string, unknown>;
    expect(served).toEqual({ ...defaults, vggt });
    expect(GraphOptionsSchema.safeParse({ vggt: { modelPath: "/etc/passwd" } }).success).toBe(false);
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
