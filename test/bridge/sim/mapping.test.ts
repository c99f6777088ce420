import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { TaskSchema, type Task } from "../../../core/task/schema.js";
import { doorwayEdges, roomAdjacency, roomAt, shortestRoomPaths, solidIntervals, wallPoint } from "../../../core/task/layout.js";
import { isFree, replay, worldOf } from "../../../bridge/sim/agent.js";
import { buildScene } from "../../../bridge/sim/scene.js";

const SUBS = ["connectivity", "traversable_passage", "regional_boundary", "long_term_navigation"] as const;
const tasks = new Map<string, Task[]>(SUBS.map((s) => [s, [0, 1, 2, 3, 4].map((i) => generateTask(s, "mapping-test", i))]));

/** Every room a trajectory pose stands in. */
function roomsVisited(t: Task): Set<string> {
  const poses = replay(worldOf(t), { position: t.agent_initial.position, yaw: t.agent_initial.yaw, pitch: t.agent_initial.pitch }, t.action_trajectory);
  return new Set(poses.map((p) => roomAt(t.room.layout!.rooms, p.position[0], p.position[1])!));
}

describe("Cognitive Mapping generators", () => {
  it("write valid multi-room tasks in ESI's templates and answer forms", () => {
    for (const [sub, ts] of tasks)
      for (const t of ts) {
        expect(TaskSchema.parse(t)).toBeTruthy();
        expect(t.room.layout!.rooms.length).toBe(4);
        expect(t.options).toContain(t.answer);
        expect(t.action_trajectory.length).toBeLessThanOrEqual(29);
        if (sub === "connectivity") expect(t.question).toMatch(/^Are \S+_\d and \S+_\d adjacent, with a direct connection between them\?$/);
        if (sub === "traversable_passage")
          expect(t.question).toMatch(/^On the shortest path from \S+ to \S+, which intermediate room do you pass through among these options: .+\?$/);
        if (sub === "regional_boundary")
          expect(t.question).toMatch(/^(Which room does \S+ belong to among these options: .+\?|Are \S+ and \S+ in the same region\?)$/);
        if (sub === "long_term_navigation") expect(t.question).toContain("At each step, choose the next region you should explore.");
      }
  });

  it("derive each answer from the layout and positions alone (checked here independently)", () => {
    for (const t of tasks.get("connectivity")!) {
      const [, a, b] = /Are (\S+) and (\S+) adjacent/.exec(t.question)!;
      const joined = doorwayEdges(t.room.layout!).some((d) => d.rooms.includes(a!) && d.rooms.includes(b!));
      expect(t.answer).toBe(joined ? "Yes" : "No");
    }
    for (const t of tasks.get("traversable_passage")!) {
      const [, a, b] = /from (\S+) to (\S+?),/.exec(t.question)!;
      const layout = t.room.layout!;
      const paths = shortestRoomPaths(
        roomAdjacency(
          layout.rooms.map((r) => r.id),
          doorwayEdges(layout),
        ),
        a!,
        b!,
      );
      expect(paths.length).toBe(1);
      expect(paths[0]!.slice(1, -1)).toContain(t.answer);
      // no other option lies inside the path
      expect(t.options.filter((o) => paths[0]!.slice(1, -1).includes(o))).toEqual([t.answer]);
    }
    for (const t of tasks.get("regional_boundary")!) {
      const belong = /Which room does (\S+) belong to/.exec(t.question);
      if (belong) {
        const o = t.objects.find((x) => x.category === belong[1])!;
        expect(roomAt(t.room.layout!.rooms, o.position[0], o.position[1])).toBe(t.answer);
      }
    }
  });

  it("stop the agent at walls, let it through doorways, and render the interior walls", () => {
    const t = tasks.get("connectivity")![0]!;
    const world = worldOf(t);
    const layout = t.room.layout!;
    const h = t.agent_initial.position[2];
    expect(h).toBe(1.35); // ESI's cognitive-map camera height
    for (const w of layout.walls) {
      const [s0, s1] = solidIntervals(w)[0]!;
      const onWall = wallPoint(w, (s0 + s1) / 2);
      expect(isFree(world, [onWall[0], onWall[1], h])).toBe(false);
      for (const d of w.doors) {
        const c = wallPoint(w, d.offset_m);
        expect(isFree(world, [c[0], c[1], h])).toBe(true);
      }
    }
    const scene = buildScene(t);
    for (const w of layout.walls) expect(scene.categories.get(w.id)).toBe("wall");
    expect(new Set(scene.triId).has(layout.walls[0]!.id)).toBe(true);
  });

  it("walk the ground-truth trajectory through doorways into the rooms a path question needs", () => {
    const multi = [...tasks.get("traversable_passage")!, ...tasks.get("long_term_navigation")!];
    // the trajectory stays in free space (every replayed step is a pose the motion model accepts)
    for (const t of multi) expect(roomsVisited(t).size).toBeGreaterThanOrEqual(1);
    expect(multi.some((t) => roomsVisited(t).size >= 2)).toBe(true);
  });

  it("still reads single-room tasks (no layout)", () => {
    const t = generateTask("spatial_distance", "mapping-test", 0);
    expect(t.room.layout).toBeUndefined();
    expect(TaskSchema.parse(t).room.layout).toBeUndefined();
    expect(worldOf(t).walls).toEqual([]);
  });
});
