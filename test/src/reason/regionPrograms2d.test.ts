import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { ROOM_SIGNATURES } from "../../../core/task/layout.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";
import { bundleOf } from "../../scenegraph/helpers.js";

/** The bundle with one category's masks relabelled: the 2D programs no longer see that furniture (a new views array: evidence is cached per views). */
function hiding(b: FrameBundle, category: string): FrameBundle {
  return {
    ...b,
    views: [...b.views],
    manifest: { ...b.manifest, instances: b.manifest.instances.map((e) => (e.category === category ? { ...e, category: "vase" } : e)) },
  };
}

describe("symbolic-2d Cognitive Mapping: rooms from the furniture a walk shows", () => {
  it("answers Connectivity and the path questions from the ground-truth walk, above the shortcut", async () => {
    const r2 = createSymbolic2dReasoner(),
      rs = createShortcutReasoner();
    let total2 = 0,
      totalS = 0;
    for (const sub of ["connectivity", "traversable_passage", "long_term_navigation"] as const) {
      let right2 = 0,
        answered = 0,
        rightS = 0;
      const n = 8;
      for (let i = 0; i < n; i++) {
        const b = bundleOf(generateTask(sub, "cm2d-a", i), "gt");
        const task = b.manifest.task!;
        const a = await r2.answer({ task, bundle: b });
        if (a.status === "parsed") answered++;
        if (a.answer === task.answer) right2++;
        if ((await rs.answer({ task })).answer === task.answer) rightS++;
      }
      console.log(`${sub} 2D on cm2d-a: ${right2}/${n} (shortcut ${rightS})`);
      expect(answered, sub).toBe(n);
      // 6 of 8: the programs misread a passage now and then (a doorway seen through another room); since the
      // suite balances yes and no and its path questions' text rules out no option (issue 41), no item is free
      // (connectivity 14 of 20 on this seed, was 17 with more "no" tasks; every four-room path question was free)
      expect(right2, sub).toBeGreaterThanOrEqual(6);
      // at least the shortcut everywhere, and above it over the three
      expect(right2, sub).toBeGreaterThanOrEqual(rightS);
      total2 += right2;
      totalS += rightS;
    }
    expect(total2).toBeGreaterThan(totalS);
  }, 240_000);

  it("reads the masks: with one room's furniture hidden, a linked pair is no longer seen linked (the program declines)", async () => {
    const r2 = createSymbolic2dReasoner();
    let checked = 0;
    for (let i = 0; i < 8 && checked < 2; i++) {
      const b = bundleOf(generateTask("connectivity", "cm2d-a", i), "gt");
      const task = b.manifest.task!;
      const a = await r2.answer({ task, bundle: b });
      if (a.answer !== "Yes" || task.answer !== "Yes") continue;
      const room = /Are (\S+) and/.exec(task.question)![1]!.replace(/_\d+$/, "");
      const hidden = await r2.answer({ task, bundle: hiding(b, ROOM_SIGNATURES[room]!) });
      // the room is no longer seen at all: no "Yes", and no guessed "No" either
      expect(hidden.answer).toBeNull();
      expect(hidden.status).toBe("unanswerable");
      expect(hidden.reason).toMatch(/no view shows \S+, so nothing says whether the rooms meet/);
      checked++;
    }
    expect(checked).toBe(2);
  }, 120_000);

  it("places an object in the room whose furniture stands nearest it on the floor (apparent sizes), on the walk", async () => {
    const r2 = createSymbolic2dReasoner(),
      rs = createShortcutReasoner();
    let right2 = 0,
      rightS = 0,
      asked = 0,
      byFloor = 0;
    for (let i = 0; asked < 10 && i < 40; i++) {
      const task0 = generateTask("regional_boundary", "rb2d-a", i);
      if (!/^Which room does/.test(task0.question)) continue;
      asked++;
      const b = bundleOf(task0, "gt");
      const task = b.manifest.task!;
      const a = await r2.answer({ task, bundle: b });
      if (a.answer === task.answer) right2++;
      if (/m away on the floor/.test(a.reason ?? "")) byFloor++;
      if ((await rs.answer({ task })).answer === task.answer) rightS++;
    }
    console.log(`regional boundary "which room" 2D on rb2d-a: ${right2}/${asked} (shortcut ${rightS}), ${byFloor} by floor distance`);
    expect(asked).toBe(10);
    expect(byFloor).toBeGreaterThanOrEqual(5);
    expect(right2).toBeGreaterThan(rightS);
  }, 240_000);
});
