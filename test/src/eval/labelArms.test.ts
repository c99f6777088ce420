import { describe, expect, it } from "vitest";
import { baselineLabels, resolveRunConfig, threeDArms } from "../../../src/eval/config.js";
import { methodOf } from "../../../src/eval/summary.js";

describe("label arms of a run", () => {
  it("the default run has GT-3D and Noisy-3D with oracle and with appearance labels; the 2D baseline reads appearance", () => {
    const c = resolveRunConfig({});
    expect(threeDArms(c).map((a) => a.label)).toEqual(["gt", "noisy", "gt-appearance", "noisy-appearance"]);
    expect(baselineLabels(c)).toBe("appearance");
    expect(methodOf({ arm: "3d", source: "gt", labels: "appearance", key: "t|single|3d:gt-appearance" })).toBe("GT-3D appearance");
    expect(methodOf({ arm: "3d", source: "gt", labels: "oracle", key: "t|single|3d:gt" })).toBe("GT-3D");
  });
  it("--labels oracle keeps the old arms; the active paradigm has oracle-label arms only", () => {
    const c = resolveRunConfig({ labels: ["oracle"] });
    expect(threeDArms(c).map((a) => a.label)).toEqual(["gt", "noisy"]);
    expect(baselineLabels(c)).toBe("oracle");
    expect(threeDArms(resolveRunConfig({}), "active").map((a) => a.label)).toEqual(["gt", "noisy"]);
  });
});
