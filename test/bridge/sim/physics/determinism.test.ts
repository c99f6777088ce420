/**
 * The same seed settles to the same poses, bit for bit: twice in this thread, in a worker thread, and on any machine
 * (the expected snapshot hash below is committed, so a fresh clone checks it too). The worker runs the built product
 * (dist/, which `npm test` builds first).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import type { TaskObject } from "../../../../core/task/schema.js";
import { loadPhysics } from "../../../../bridge/sim/physics/world.js";
import { settle, type SettleResult } from "../../../../bridge/sim/physics/settle.js";
import { REPO_ROOT } from "../../../src/apps/cli/helpers.js";
import { droppedScene, SCENE_ROOM } from "./scene.js";

const STEPS = 240;
/**
 * The settled world of seed "determinism" (droppedScene, 240 steps) and its objects' poses, recorded on x86-64
 * Linux, Node 20.20.2: Rapier's deterministic build promises the same bits on every platform.
 */
const EXPECTED_SNAPSHOT = "6d64111eee986373c7785c31520fcfeae3087d8e7a5c754a04c094fb0ed16995";
const EXPECTED_POSES = "c29b9fb00bed0f6896b665f7c545915f2fbbd7d3a7659513182f2c6678bccf74";

/** SHA-256 of every object's settled position and orientation, as float64. */
function poseHash(objects: readonly TaskObject[]): string {
  const values = objects.flatMap((o) => [...o.position, o.orientation.x, o.orientation.y, o.orientation.z, o.orientation.w]);
  return createHash("sha256")
    .update(new Uint8Array(new Float64Array(values).buffer))
    .digest("hex");
}

const objects = droppedScene("determinism");
const dropped = objects.map((o) => o.id);
const run = (): SettleResult => settle({ roomSize: SCENE_ROOM.size, objects, dropped: new Set(dropped), steps: STEPS });

function inWorker(): Promise<SettleResult> {
  const script = join(REPO_ROOT, "test", "bridge", "sim", "physics", "settleWorker.mjs");
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { roomSize: SCENE_ROOM.size, objects, dropped, steps: STEPS } });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

beforeAll(async () => {
  await loadPhysics();
});

describe("physics determinism", () => {
  it("two runs in one thread settle to bit-identical poses and the committed snapshot", () => {
    const a = run();
    const b = run();
    expect(a.problems).toEqual([]);
    expect(poseHash(b.objects)).toBe(poseHash(a.objects));
    expect(b.snapshotHash).toBe(a.snapshotHash);
    expect(a.snapshotHash).toBe(EXPECTED_SNAPSHOT);
    expect(poseHash(a.objects)).toBe(EXPECTED_POSES);
    // the scene moved: a hash of unmoved poses would prove nothing
    expect(a.objects.some((o, i) => o.position[2] !== objects[i]!.position[2])).toBe(true);
  });

  it("a worker thread running the built product settles to the same bits", async () => {
    expect(existsSync(join(REPO_ROOT, "dist", "bridge", "sim", "physics", "settle.js")), "run `npm run build` first").toBe(true);
    const here = run();
    const there = await inWorker();
    expect(there.snapshotHash).toBe(here.snapshotHash);
    expect(poseHash(there.objects)).toBe(poseHash(here.objects));
  });

  it("a different seed settles to a different world", () => {
    const other = droppedScene("determinism-2");
    const r = settle({ roomSize: SCENE_ROOM.size, objects: other, dropped: new Set(other.map((o) => o.id)), steps: STEPS });
    expect(r.snapshotHash).not.toBe(run().snapshotHash);
  });
});
