/**
 * Acting to test physics (issue 46): in an Inclined Plane task, putting the object on the slope with the hands runs
 * the task's own experiment in the task's world (its drawn material, the object set flat on the board's centre), so
 * what the agent then sees agrees with the task's label; in a Stacking & Stability task, stacking in the labelled
 * order stays stacked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { loadPhysics } from "../../../../bridge/sim/physics/world.js";
import { BuiltinEnvironment } from "../../../../bridge/sim/env.js";
import { lookAt } from "../../../../bridge/sim/agent.js";
import { poseQuaternion } from "../../../../core/math/camera.js";
import { quatToMat } from "../../../../core/math/quat.js";
import type { Task } from "../../../../core/task/schema.js";

beforeAll(loadPhysics, 60_000);

/** The task with the agent standing at `from` looking at `at`. */
function standing(t: Task, from: [number, number, number], at: readonly number[]): Task {
  const { yaw, pitch } = lookAt(from, [at[0]!, at[1]!, at[2]!]);
  return { ...t, agent_initial: { position: from, yaw, pitch, orientation: poseQuaternion({ position: from, yaw, pitch }) } };
}

describe("acting to test physics", () => {
  it("Inclined Plane: put_on(object, slope) shows the outcome the task's label says", async () => {
    let agree = 0;
    const n = 8;
    for (let i = 0; i < n; i++) {
      const task = generateTask("inclined_plane", "hands-ip", i);
      const slope = task.objects.find((o) => o.role === "support")!;
      const object = task.objects.find((o) => o.role === "target")!;
      const env = new BuiltinEnvironment(task);
      await env.reset();
      const v = await env.step({ kind: "hands", name: "put_on", objects: [{ text: `#${object.id}` }, { text: `#${slope.id}` }] });
      expect(v.actionResult, task.task_id).toBe("ok");
      const after = env.truth().objects.find((o) => o.id === object.id)!;
      // it was set down flat on the board's top face centre: stable = within ESI's 3 cm slide of there, not fallen below 5 cm
      const R = quatToMat(slope.orientation);
      const lift = slope.extent[2] / 2 + object.extent[2] / 2;
      const start = [0, 1].map((k) => slope.position[k]! + lift * R[k]![2]!);
      const bottom = after.position[2] - object.extent[2] / 2;
      const d = Math.hypot(after.position[0] - start[0]!, after.position[1] - start[1]!);
      const stayed = d <= 0.03 && bottom >= 0.05;
      if (stayed === (task.answer === "yes")) agree++;
    }
    expect(agree).toBe(n);
  }, 120_000);

  it("Stacking & Stability: stacking in the labelled order stays stacked", async () => {
    const task = generateTask("stacking_stability", "hands-stack", 0);
    const order = JSON.parse(task.answer) as string[];
    const byCat = (c: string) => task.objects.find((o) => o.category === c)!;
    const [bottom, top] = [byCat(order[0]!), byCat(order[1]!)];
    const env = new BuiltinEnvironment(standing(task, [bottom.position[0], bottom.position[1] + 0.7, 0.9], bottom.position));
    await env.reset();
    const v = await env.step({ kind: "hands", name: "put_on", objects: [{ text: `#${top.id}` }, { text: `#${bottom.id}` }] });
    expect(v.actionResult).toBe("ok");
    const placed = env.truth().objects.find((o) => o.id === top.id)!;
    expect(placed.support).toBe(bottom.id);
  }, 60_000);
});
