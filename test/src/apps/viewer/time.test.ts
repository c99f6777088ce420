/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
/**
 * The viewer on a changing world, as a user gets there: the changing test room's task rendered (`esi3d render`), its
 * graphs inspected fused and diffed (`esi3d inspect --time`), the pages opened in headless Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import { launchChromium, needsChromium, openPage } from "./helpers.js";
import { changingWorld } from "../../../helpers/changingWorld.js";

const chromium = needsChromium();
const world = changingWorld();
let browser: Browser;
let dir: string;

describe.skipIf(chromium.skip)(chromium.title("esi3d inspect: a world that changed between two looks"), () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "esi3d-time-"));
    const task = join(dir, "task.json");
    writeFileSync(task, JSON.stringify({ ...world.task, task_id: "changing-room" }));
    const r = esi3d(["render", "--tasks", task, "--paradigm", "single", "--out", join(dir, "bundles")]);
    expect(r.code, r.stderr).toBe(0);
    for (const time of ["fuse", "diff"]) {
      const i = esi3d(["inspect", join(dir, "bundles", "changing-room", "single"), "--source", "gt", "--time", time, "-o", join(dir, `${time}.html`)]);
      expect(i.code, i.stderr).toBe(0);
    }
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => browser?.close());

  it("fused: the moved object's old copy and the removed object are counted stale, each flagged as seen in Phase 1 only", async () => {
    const { p, errors } = await openPage(browser, join(dir, "fuse.html"));
    expect((await p.locator('[data-testid="count-stale"]').textContent())?.trim()).toBe("2");
    await p.click('[data-testid="chip-stale"]');
    const flags = await p.locator('[data-testid="node-table"] tbody tr [data-testid="time-flag"]').allTextContents();
    expect(flags).toEqual(["seen Phase 1", "seen Phase 1"]);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("diffed: nothing stale, and the Nodes tab lists the move, the removal and the addition", async () => {
    const { p, errors } = await openPage(browser, join(dir, "diff.html"));
    expect((await p.locator('[data-testid="count-stale"]').textContent())?.trim()).toBe("0");
    const rows = await p
      .locator('[data-testid="changes-table"] tbody tr')
      .evaluateAll((els) => els.map((e) => [(e as HTMLElement).dataset.change, e.children[1]!.textContent]));
    expect(rows).toEqual([
      ["moved", world.moved.before.category],
      ["removed", world.removed.category],
      ["added", world.added.category],
    ]);
    expect(errors).toEqual([]);
    await p.close();
  });
});
