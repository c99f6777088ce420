/** The active environment over the built-in simulator: ESI's actions, render on demand, blocked moves. */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../../bridge/sim/generate/options.js";
import { BuiltinEnvironment } from "../../../bridge/sim/env.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { paradigmViews } from "../../../bridge/sim/views.js";
import { HEIGHT_STEP_M, intendedPose, MOVE_STEP_M, TURN_STEP_RAD, type NavigationAction } from "../../../core/task/actions.js";
import { extrinsicRotation, poseToExtrinsic } from "../../../core/math/camera.js";

const CAMERA = { width: 160, height: 120, hfov_deg: 70 };

describe("builtin environment", () => {
  const task = generateTask("spatial_distance", "inc", 1, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));

  it("steps along the multi trajectory render the passive multi bundle's views pixel for pixel", async () => {
    const planned = paradigmViews(task, "multi");
    const bundle = renderBundle(task, "multi");
    const env = new BuiltinEnvironment(task);
    const v0 = await env.reset();
    expect(Buffer.from(v0.view.rgb).equals(Buffer.from(bundle.views[0]!.rgb))).toBe(true);
    for (let i = 1; i < 8; i++) {
      const s = await env.step({ kind: "camera", name: planned[i]!.action as NavigationAction });
      expect(s.view.index).toBe(i);
      expect(s.view.E).toEqual(bundle.views[i]!.E);
      expect(Buffer.from(s.view.depth.buffer).equals(Buffer.from(bundle.views[i]!.depth.buffer))).toBe(true);
      expect(Buffer.from(s.view.ids.buffer).equals(Buffer.from(bundle.views[i]!.ids.buffer))).toBe(true);
    }
  });

  it("move_forward moves along the view (the paper), 0.25 m; turns are 15 deg about world Z", () => {
    const pose = { position: [0, 0, 1] as [number, number, number], yaw: 0.3, pitch: -0.4 };
    const f = intendedPose(pose, "move_forward");
    const view = extrinsicRotation(poseToExtrinsic(pose))[2]; // the camera's z axis (forward) in the world
    const d = [f.position[0] - pose.position[0], f.position[1] - pose.position[1], f.position[2] - pose.position[2]];
    expect(Math.hypot(...d)).toBeCloseTo(MOVE_STEP_M, 9);
    expect(d[0]! * view[0] + d[1]! * view[1]).toBeGreaterThan(0); // not backwards, as ESI's released code moves
    expect(d[2]).toBe(0);
    expect(intendedPose(pose, "turn_left").yaw - pose.yaw).toBeCloseTo(TURN_STEP_RAD, 9);
    expect(intendedPose(pose, "move_up").position[2] - 1).toBeCloseTo(HEIGHT_STEP_M, 9);
  });

  it("a blocked move leaves the pose unchanged and says so", async () => {
    const env = new BuiltinEnvironment(task);
    const start = await env.reset();
    let last = start;
    // walk forward until the wall or furniture stops the agent
    for (let i = 0; i < 60 && !last.blocked; i++) last = await env.step({ kind: "camera", name: "move_forward" });
    expect(last.blocked).toBe(true);
    const again = await env.step({ kind: "camera", name: "move_forward" });
    expect(again.blocked).toBe(true);
    expect(again.pose).toEqual(last.pose);
    expect(again.view.index).toBe(last.view.index + 1);
  });
});
