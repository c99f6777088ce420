/**
 * The hands in the built-in environment (issue 46), on a generated Rigid Containment task (a basketball and three
 * open packing boxes on the floor): each manipulation changes the rendered world or changes nothing and says why.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { loadPhysics } from "../../../../bridge/sim/physics/world.js";
import { BuiltinEnvironment } from "../../../../bridge/sim/env.js";
import { lookAt } from "../../../../bridge/sim/agent.js";
import type { EnvAction, EnvView } from "../../../../bridge/env/types.js";
import type { Task } from "../../../../core/task/schema.js";
import { poseQuaternion } from "../../../../core/math/camera.js";

let task: Task;
const byCat = (t: Task, name: string) => t.objects.find((o) => o.name === name)!;
const pixels = (v: EnvView, id: number) => v.view.ids.reduce((n, x) => n + (x === id ? 1 : 0), 0);
const hands = (name: Extract<EnvAction, { kind: "hands" }>["name"], ...objects: string[]): EnvAction => ({
  kind: "hands",
  name,
  objects: objects.map((text) => ({ text })),
});

/** The task with the agent standing at `from` looking at `at`. */
function standing(t: Task, from: [number, number, number], at: readonly number[]): Task {
  const { yaw, pitch } = lookAt(from, [at[0]!, at[1]!, at[2]!]);
  return { ...t, agent_initial: { position: from, yaw, pitch, orientation: poseQuaternion({ position: from, yaw, pitch }) } };
}

beforeAll(async () => {
  await loadPhysics();
  task = generateTask("rigid_containment", "probe", 0);
}, 60_000);

describe("hands in the built-in environment", () => {
  it("picks up an object in reach: it leaves its place and travels with the camera", async () => {
    const ball = byCat(task, "the basketball");
    const env = new BuiltinEnvironment(standing(task, [-1.2, 1.0, 1.2], ball.position));
    const v0 = await env.reset();
    expect(pixels(v0, ball.id)).toBeGreaterThan(50);
    const v1 = await env.step(hands("pick_up", "basketball"));
    expect(v1.blocked).toBe(false);
    expect(v1.actionResult).toBe("ok");
    expect(v1.actedOn).toEqual([ball.id]);
    const held = env.truth().objects.find((o) => o.id === ball.id)!;
    expect(held.support).toBeUndefined();
    expect(Math.hypot(held.position[0] - -1.2, held.position[1] - 1.0)).toBeLessThan(0.6);
    expect(env.truth().moved.map((m) => m.id)).toEqual([ball.id]);
    // the ball moves with the camera
    const v2 = await env.step({ kind: "camera", name: "turn_left" });
    const after = env.truth().objects.find((o) => o.id === ball.id)!;
    expect(after.position).not.toEqual(held.position);
    expect(v2.actionResult).toBe("ok");
  });

  it("puts a held object inside an open container: physics settles it on the inner bottom", async () => {
    const ball = byCat(task, "the basketball");
    const box = byCat(task, "the grey packing box");
    const env = new BuiltinEnvironment(standing(task, [-1.4, 1.05, 1.2], [-1.4, 0.4, 0.2]));
    const v0 = await env.reset();
    expect(pixels(v0, ball.id)).toBeGreaterThan(50);
    expect(pixels(v0, box.id)).toBeGreaterThan(50);
    expect((await env.step(hands("pick_up", "basketball"))).actionResult).toBe("ok");
    const v2 = await env.step(hands("put_inside", "basketball", "grey packing box"));
    expect(v2.actionResult).toBe("ok");
    const placed = env.truth().objects.find((o) => o.id === ball.id)!;
    expect(placed.support).toBe(box.id);
    expect(Math.hypot(placed.position[0] - box.position[0], placed.position[1] - box.position[1])).toBeLessThan(0.1);
    expect(placed.position[2]).toBeLessThan(box.position[2] + box.extent[2] / 2);
  });

  it("fails and changes nothing: out of reach, unseen, too big, not a container, a name that fits nothing", async () => {
    const ball = byCat(task, "the basketball");
    const far = new BuiltinEnvironment(standing(task, [1.0, 1.5, 1.2], ball.position));
    await far.reset();
    const r = await far.step(hands("pick_up", "basketball"));
    expect(r.blocked).toBe(true);
    expect(r.actionResult).toMatch(/out of reach|not in view/);
    expect(far.truth().moved).toEqual([]);
    const near = new BuiltinEnvironment(standing(task, [-1.2, 1.0, 1.2], ball.position));
    await near.reset();
    expect((await near.step(hands("pick_up", "apple"))).actionResult).toBe('nothing in view is called "apple"');
    expect((await near.step(hands("open", "basketball"))).actionResult).toBe("basketball does not open");
    expect(near.checkReference({ text: "apple" })).toBe('nothing in view is called "apple"');
    expect(near.checkReference({ text: "basketball" })).toBeNull();
    expect(near.truth().moved).toEqual([]);
  });

  it("names an object by a graph node's place, and nothing where no object is", async () => {
    const ball = byCat(task, "the basketball");
    const env = new BuiltinEnvironment(standing(task, [-1.2, 1.0, 1.2], ball.position));
    await env.reset();
    const at = (point: [number, number, number]) =>
      ({ kind: "hands", name: "pick_up", objects: [{ text: "n4", near: { node: "n4", point, label: "basketball" } }] }) as EnvAction;
    expect((await env.step(at([-1.5, 0.6, 0.9]))).actionResult).toBe("nothing in view is where node n4 (basketball) is");
    expect((await env.step(at([ball.position[0] + 0.05, ball.position[1], ball.position[2]]))).actionResult).toBe("ok");
  });
});
