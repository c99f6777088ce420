/**
 * A cloud shared between graphs (SharedCloud): arms that differ only in labels build it once, the graphs and
 * diagnoses are the ones a fresh build gives, nothing downstream writes to the kept cloud, and with a
 * CloudArena a cloud is never handed on after the arena's next build overwrote it.
 */
import { describe, expect, it } from "vitest";
import { CloudArena, type PointCloud } from "../../reconstruct/pointcloud.js";
import { buildPointCloud, withoutIds } from "../../reconstruct/index.js";
import { graphOfBundle, SharedCloud, structureIds } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { DEFAULT_RUN_CONFIG, threeDArms } from "../../src/eval/config.js";
import { armOptions, cloudOrder } from "../../src/eval/pipeline.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import { generatedBundle } from "./helpers.js";
import { CloudOptionsSchema } from "../../reconstruct/options.js";

const columns = (c: PointCloud) => [c.count, [...c.xyz], [...c.rgb], [...c.confidence], [...c.view], [...c.pixel], [...c.instance]];
/** A graph without its stage timings (wall times differ between any two builds). */
const untimed = ({ timings_ms: _t, ...graph }: SceneGraph) => graph;
const options = (label: string) => armOptions(DEFAULT_RUN_CONFIG, threeDArms(DEFAULT_RUN_CONFIG).find((a) => a.label === label)!);

describe("SharedCloud", () => {
  // a multi-room task: its graph also reads the cloud before structure is left out (the region layer)
  for (const sub of ["geometric_configuration", "regional_boundary"] as const) {
    it(`${sub}: the arms of one cloud get a fresh build's graphs and diagnoses, and the kept cloud is not written to`, async () => {
      const bundle = generatedBundle(sub, "0", 0, "single");
      const shared = new SharedCloud();
      const oracle = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt")), { shared });
      const appearance = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt-appearance")), { shared });
      expect(appearance.cloud).toBe(oracle.cloud); // reused, not rebuilt
      expect(appearance.timings_ms.cloud).toBe(0);
      const fresh = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt-appearance")));
      expect(untimed(appearance.graph)).toEqual(untimed(fresh.graph));
      expect(appearance.diagnosis).toEqual(fresh.diagnosis);
      // after two graphs and two diagnoses, the kept cloud still holds what the source built
      const layout = bundle.manifest.task?.room.layout !== undefined;
      const rebuilt = await buildPointCloud(bundle, CloudOptionsSchema.parse({ source: "gt" }), { excludeIds: layout ? undefined : structureIds(bundle) });
      expect(columns(layout ? withoutIds(rebuilt, structureIds(bundle)) : rebuilt)).toEqual(columns(oracle.cloud));
    });
  }

  it("with an arena, a cloud is rebuilt once another build took the arena (one slot)", async () => {
    const bundle = generatedBundle("geometric_configuration", "0", 0, "single");
    const shared = new SharedCloud(),
      arena = new CloudArena();
    const gt = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt")), { shared, arena });
    const noisy = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("noisy")), { shared, arena });
    const again = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt-appearance")), { shared, arena });
    expect(noisy.cloud).not.toBe(gt.cloud);
    expect(again.cloud).not.toBe(gt.cloud);
    const fresh = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(options("gt-appearance")));
    expect(untimed(again.graph)).toEqual(untimed(fresh.graph));
    expect(again.diagnosis).toEqual(fresh.diagnosis);
  });

  it("a different bundle never takes the kept cloud", async () => {
    const shared = new SharedCloud();
    const a = await graphOfBundle(generatedBundle("geometric_configuration", "0", 0, "single"), GraphPipelineOptionsSchema.parse(options("gt")), { shared });
    const b = await graphOfBundle(generatedBundle("geometric_configuration", "0", 1, "single"), GraphPipelineOptionsSchema.parse(options("gt-appearance")), {
      shared,
    });
    expect(b.cloud).not.toBe(a.cloud);
  });
});

describe("cloudOrder", () => {
  it("runs the arms of one cloud one after another, each group in the arms' own order", () => {
    const arms = threeDArms(DEFAULT_RUN_CONFIG);
    expect(arms.map((a) => a.label)).toEqual(["gt", "noisy", "gt-appearance", "noisy-appearance"]);
    expect(cloudOrder(DEFAULT_RUN_CONFIG, arms).map((i) => arms[i]!.label)).toEqual(["gt", "gt-appearance", "noisy", "noisy-appearance"]);
    // arms of different noise levels have different clouds: their order is kept
    const levels = { ...DEFAULT_RUN_CONFIG, noiseLevels: [0.5, 1] };
    const byLevel = threeDArms(levels);
    expect(cloudOrder(levels, byLevel).map((i) => byLevel[i]!.label)).toEqual([
      "gt",
      "gt-appearance",
      "noisy@0.5",
      "noisy@0.5-appearance",
      "noisy@1",
      "noisy@1-appearance",
    ]);
  });
});
