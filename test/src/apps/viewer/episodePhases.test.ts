/**
 * `esi3d inspect` on an active episode of a changing world (Unobserved Change: two phases, the world moved on to
 * Phase 2 by the runner halfway through the step budget, with no action of the agent's). A real small run (one
 * task, GT depth, the 2D arm, --max-steps 8); the page's replay must move the world on where the record did (before,
 * it re-rendered Phase 1 and refused the episode as "changed since the run"), stamp the views with their phases as
 * the run's memory did (the last graph must equal the stored one), and say where the world changed; a record whose
 * change is edited away is refused at that step; in Chromium the step bar and the Episode tab say what the world did.
 */
/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import { launchChromium, needsChromium } from "./helpers.js";
import { readRecords, worldChangedAfter, type ItemRecord } from "../../../../src/eval/records.js";

const chromium = needsChromium();
const TASK = "unobserved_change-000";
const MAX_STEPS = 8;
let tmp: string;
let run: string;
let records: ItemRecord[];
let browser: Browser | null = null;

/** A run's records, through the reader every command uses (each line parsed by the record schema). */
const runRecords = (dir: string) => readRecords(join(dir, "items.jsonl")).records;
const recordOf = (arm: string) => records.find((r) => r.key === `${TASK}|active|${arm}`)!;
/** The step after which the run moved the world on (exactly one in a two-phase episode that used its budget). */
const changeStep = (r: ItemRecord) => r.active!.steps.filter(worldChangedAfter).map((s) => s.step);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "esi3d-inspect-phases-"));
  run = join(tmp, "run");
  const r = esi3d([
    "run",
    "--per-subcategory",
    "1",
    "--subcategories",
    "unobserved_change",
    "--paradigm",
    "active",
    "--source",
    "gt",
    "--max-steps",
    String(MAX_STEPS),
    "--out",
    run,
  ]);
  if (r.code !== 0) throw new Error(`esi3d run failed (${r.code}): ${r.stderr}`);
  records = runRecords(run);
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

describe("esi3d inspect RUN --paradigm active on a changing world", () => {
  it("the records mark the one step after which the world changed, within the first phase's share of the budget", () => {
    for (const arm of ["3d:gt", "2d"]) {
      const steps = changeStep(recordOf(arm));
      expect(steps, arm).toHaveLength(1);
      expect(steps[0]!, arm).toBeLessThanOrEqual(MAX_STEPS / 2);
      const s = recordOf(arm).active!.steps[steps[0]! - 1]!;
      expect(s.action_result).toMatch(/^the world changed while no one looked: now /);
    }
  });

  it("writes the page: every arm's episode replayed through the change and checked against the record and the stored graph", () => {
    const out = join(tmp, "page.html");
    const r = esi3d(["inspect", run, "--task", TASK, "--paradigm", "active", "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /active\/gt: episode replayed \(\d+ steps, \d+ views, the memory updated per view\) and checked against the record and the stored graph/,
    );
    expect(r.stderr).toMatch(/active\/2d: episode replayed \(\d+ steps, \d+ views\) and checked against the record/);
    const page = readFileSync(out, "utf8");
    // the step payload says what the world did, for the episode tab's action column
    expect(page).toContain('"world_change":"the world changed while no one looked: now ');
  });

  it("the terminal names the change in the steps table and in the step's detail", () => {
    const k = changeStep(recordOf("3d:gt"))[0]!;
    const table = esi3d(["inspect", run, "--task", TASK, "--paradigm", "active", "--source", "gt"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^${k}\\s+\\(the world changed\\)`, "m"));
    const one = esi3d(["inspect", run, "--task", TASK, "--paradigm", "active", "--source", "gt", "--step", String(k)]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/action {5}none: the world changed while no one looked: now /);
  });

  it("refuses a record whose change was edited away, at that step", () => {
    const copy = join(tmp, "tampered");
    cpSync(run, copy, { recursive: true });
    const lines = runRecords(copy);
    const gt = lines.find((l) => l.key === `${TASK}|active|3d:gt`)!;
    const k = changeStep(gt)[0]!;
    // the change step as a stay in place (an invalid action executes nothing)
    gt.active!.steps[k - 1]!.blocked = null;
    writeFileSync(join(copy, "items.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const r = esi3d(["inspect", copy, "--task", TASK, "--paradigm", "active", "--source", "gt", "-o", join(tmp, "tampered.html")]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`replaying .*3d:gt in the built-in simulator differs from the record at step ${k + 1} \\(recorded pose`));
  });
});

describe.skipIf(chromium.skip)(chromium.title("the changing world's episode page in Chromium"), () => {
  it("the step bar and the Episode tab say, at the change, what the world did", async () => {
    const rec = recordOf("3d:gt");
    const k = changeStep(rec)[0]!;
    const page = join(tmp, "change.html");
    const r = esi3d(["inspect", run, "--task", TASK, "--paradigm", "active", "--source", "gt", "--step", String(k), "-o", page]);
    expect(r.code, r.stderr).toBe(0);
    browser ??= await launchChromium();
    const p = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    await p.goto(`file://${page}`);
    await p.waitForFunction(() => window.__esi3d?.ready || window.__esi3d?.error, null, { timeout: 60_000 });
    expect(await p.evaluate(() => window.__esi3d.step)).toBe(k);
    const said = rec.active!.steps[k - 1]!.action_result!;
    expect(await p.locator('[data-testid="step-action"]').textContent()).toBe(said);
    await p.locator('[data-testid="tab-episode"]').click();
    const rows = p.locator('[data-testid="step-row"]');
    expect(await rows.count()).toBe(rec.active!.steps.length);
    expect(
      await rows
        .nth(k - 1)
        .locator("td")
        .nth(1)
        .textContent(),
    ).toBe(said);
    // the step before shows its own action, not the change
    expect(
      await rows
        .nth(k - 2)
        .locator("td")
        .nth(1)
        .textContent(),
    ).not.toBe(said);
    await p.close();
  }, 120_000);
});
