/**
 * POST /v1/runs with paradigms ["active"] end to end over real HTTP (the built CLI's `esi3d serve` on
 * loopback): the active options travel in the body (RunConfig fields), every arm runs an episode (gt, the
 * vggt source through a tiny ONNX model with VGGT's I/O built here and named by ESI3D_VGGT_MODEL, and the
 * 2D arm), and the items and the summary carry the episodes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ItemRecordSchema } from "../../../../src/eval/records.js";
import { writeTinyVggt } from "../../../helpers/tinyVggtOnnx.js";
import { http, poll, startServe, type Serve } from "./helpers.js";

const MAX_STEPS = 3;

describe("esi3d serve: active runs", () => {
  let s: Serve;
  beforeAll(async () => {
    s = await startServe(["--cpu-jobs", "1"], { env: { ESI3D_VGGT_MODEL: writeTinyVggt({ shape: "dynamic" }) } });
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("runs active episodes for gt, vggt and the 2D arm with the options of the body", async () => {
    const options = { maxSteps: MAX_STEPS, minSteps: MAX_STEPS, threshold: 1, invalidAction: "forward", explorer: "random" } as const;
    const start = await http("POST", `${s.url}/v1/runs`, {
      subcategories: ["linear_alignment"],
      perSubcategory: 1,
      paradigms: ["active"],
      sources: ["gt", "vggt"],
      concurrency: 1,
      ...options,
    });
    expect(start.status, start.text).toBe(202);
    // the body is in the flat form of earlier versions; the run's configuration holds the options nested
    expect(start.body.config).toMatchObject({ paradigms: ["active"], sources: ["gt", "vggt"], active: options });
    const rid = start.body.id as string;
    const done = await poll(
      () => http("GET", `${s.url}/v1/runs/${rid}`),
      (r) => r.body.status !== "running",
      240_000,
      250,
    );
    expect(done.body.status, JSON.stringify(done.body.error)).toBe("finished");
    expect(done.body.progress).toEqual({ done: 3, total: 3 }); // one task x active x (gt, vggt, 2d)
    const items = (await http("GET", `${s.url}/v1/runs/${rid}/items`)).body.items as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(items.map((i) => i.key).sort()).toEqual([
      "linear_alignment-000|active|2d",
      "linear_alignment-000|active|3d:gt",
      "linear_alignment-000|active|3d:vggt",
    ]);
    for (const i of items) {
      const e = ItemRecordSchema.shape.active.unwrap().parse(i.active);
      expect(i.paradigm).toBe("active");
      expect(e).toMatchObject({ max_steps: MAX_STEPS, min_steps: MAX_STEPS, threshold: 1, invalid_action: "forward" });
      expect(e.agent).toMatch(/\+random$/);
      // threshold 1 and min steps = budget: only `stop` or the budget end an episode
      expect(e.steps_used).toBeLessThanOrEqual(MAX_STEPS);
      if (e.stop_reason === "budget") expect(e.steps_used).toBe(MAX_STEPS);
      expect(i.views).toBe(1 + e.steps.filter((st) => st.action !== null && st.action !== "stop").length);
      if (i.arm === "3d") expect(e.steps.every((st) => st.graph_nodes !== null)).toBe(true);
      else expect(e.steps.every((st) => st.graph_nodes === null)).toBe(true);
    }
    const vggt = items.find((i) => i.source === "vggt")!;
    expect(vggt.graph_quality).not.toBeNull();
    expect(done.body.summary.items).toBe(3);
    expect(done.body.summary.active.map((r: { method: string }) => r.method).sort()).toEqual(["2D", "GT-3D", "VGGT-3D"]);
  }, 300_000);
});
