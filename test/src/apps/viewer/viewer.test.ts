/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
/**
 * The inspection page in real headless Chromium (Debian's /usr/bin/chromium through playwright-core):
 * a page written by `esi3d inspect RUN --task ID -o page.html`, opened from file:// with no network.
 * Screenshots go to $ESI3D_SCREENSHOTS when set (to look at them), else to the test's temporary directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import { launchChromium, needsChromium, lumaStats, makeRun, MIN_DISTINCT_COLOURS, MIN_LUMA_STDDEV, openPage, stored, TASK, waitReady } from "./helpers.js";

let browser: Browser;
let run: string;
let page: string;
let shots: string;

const chromium = needsChromium();

describe.skipIf(chromium.skip)(chromium.title("esi3d inspect page in Chromium"), () => {
  beforeAll(async () => {
    run = makeRun("multi", "esi3d-viewer-");
    page = join(run, "..", "page.html");
    const r = esi3d(["inspect", run, "--task", TASK, "-o", page]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote .*page\.html: 4 graph\(s\)/);
    shots = process.env.ESI3D_SCREENSHOTS ?? join(run, "..", "shots");
    mkdirSync(shots, { recursive: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("shows the diagnosis's numbers, picks a duplicate with its twin and thumbnails, and draws a non-blank view", async () => {
    const { p, errors, readyMs } = await openPage(browser, page);
    // a 30-view page: load time, for the report (performance is measured, not asserted: docs/viewer.md)
    const timings = await p.evaluate(() => window.__esi3d.timings);
    console.log(`inspect page (multi views, 30): ready ${readyMs} ms after navigation; in-page ${JSON.stringify(timings)}`);
    writeFileSync(join(shots, "timings.json"), JSON.stringify({ readyMs, timings }, null, 1));

    // switch to the noisy source with the header's selector
    const s = stored(run, "multi", "noisy");
    const m = s.diagnosis.metrics;
    expect(m.duplicates, "the noisy source at 0.8 should duplicate nodes on this task").toBeGreaterThan(0);
    await p.selectOption('[data-testid="source-select"]', "multi__noisy");
    await waitReady(p, "multi__noisy");

    // counts per status in the panel = the stored diagnosis
    const text = async (sel: string) => (await p.locator(sel).first().textContent())?.trim();
    expect(await text('[data-testid="count-matched"]')).toBe(String(m.matched));
    expect(await text('[data-testid="count-duplicate"]')).toBe(String(m.duplicates));
    expect(await text('[data-testid="count-merged"]')).toBe(String(m.merged));
    expect(await text('[data-testid="count-hallucinated"]')).toBe(String(m.hallucinated));
    expect(await text('[data-testid="count-missed"]')).toBe(String(s.diagnosis.objects.filter((o) => o.status !== "matched").length));
    for (const st of ["matched", "duplicate", "merged", "hallucinated"])
      expect(await p.locator(`[data-testid="node-table"] tr[data-status="${st}"]`).count(), st).toBe(s.diagnosis.nodes.filter((d) => d.status === st).length);
    expect(await text('[data-testid="metric-duplicates"] b')).toBe(String(m.duplicates));
    expect(await text('[data-testid="metric-f1"] b')).toBe(m.f1_observed.toFixed(2));
    await p.screenshot({ path: join(shots, "1-overview.png") });

    // click a duplicate in the 3D view: at its box centre; overlapping boxes cycle on repeated clicks
    const dup = s.diagnosis.nodes.find((d) => d.status === "duplicate" && d.twin)!;
    const pt = await p.evaluate((id) => window.__esi3d.screenPoint(id), dup.node);
    expect(pt, `${dup.node} projects into the view`).not.toBeNull();
    let picked: string | null = null;
    for (let k = 0; k < s.graph.nodes.length && picked !== dup.node; k++) {
      await p.mouse.click(pt!.x, pt!.y);
      picked = await p.locator('[data-testid="evidence-node"]').getAttribute("data-node", { timeout: 5000 });
    }
    expect(picked, "clicking the duplicate's box in 3D selects it").toBe(dup.node);
    // the duplicate's cause as the diagnosis recorded it when the run built the graph (its views, the noise component)
    expect(dup.cause, "the run's diagnosis records the duplicate's cause").toBeDefined();
    expect(await p.locator('[data-testid="evidence-node"] [data-testid="cause"]').textContent()).toBe(`cause: ${dup.cause!.text}`);
    // units: the node card's point confidence says what it is (VGGT-like, at least 1, no unit)
    expect(await p.locator('[data-testid="evidence-node"]').textContent()).toMatch(/point confidence\d+\.\d{2} mean \(≥ 1, unitless/);
    // its twin beside it, both with thumbnails of their views, pixels outlined
    const twin = p.locator('[data-testid="evidence-twin"]');
    await expect.poll(() => twin.getAttribute("data-node")).toBe(dup.twin);
    const dupNode = s.graph.nodes.find((n) => n.id === dup.node)!,
      twinNode = s.graph.nodes.find((n) => n.id === dup.twin)!;
    const THUMBS_SHOWN = 8;
    await p.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="thumb"]').length > 0 &&
        [...document.querySelectorAll('[data-testid="thumb"]')].every((c) => (c as HTMLCanvasElement).dataset.drawn === "1"),
      null,
      { timeout: 20_000 },
    );
    expect(await p.locator('[data-testid="evidence-node"] [data-testid="thumb"]').count()).toBe(Math.min(THUMBS_SHOWN, dupNode.support.length));
    expect(await p.locator('[data-testid="evidence-twin"] [data-testid="thumb"]').count()).toBe(Math.min(THUMBS_SHOWN, twinNode.support.length));
    // the thumbnails show the views the node came from
    const views = await p
      .locator('[data-testid="evidence-node"] [data-testid="thumb"]')
      .evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.view)));
    expect(views.every((v) => dupNode.views.includes(v))).toBe(true);
    // and each has outline pixels in the node's colour (yellow) or the twin's (cyan)
    const outlined = await p.evaluate(() =>
      [...document.querySelectorAll('[data-testid="thumb"]')].map((c) => {
        const cv = c as HTMLCanvasElement;
        const d = cv.getContext("2d")!.getImageData(0, 0, cv.width, cv.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
          if ((d[i] === 255 && d[i + 1] === 225 && d[i + 2] === 77) || (d[i] === 58 && d[i + 1] === 215 && d[i + 2] === 255)) n++;
        return n;
      }),
    );
    expect(
      outlined.every((n) => n > 0),
      `outline pixels per thumbnail: ${outlined.join(",")}`,
    ).toBe(true);
    await p.screenshot({ path: join(shots, "2-duplicate-and-twin.png") });

    // the page is not blank, and WebGL itself drew (SwiftShader in headless)
    const shot = await p.screenshot();
    const page0 = lumaStats(shot);
    expect(page0.stddev).toBeGreaterThan(MIN_LUMA_STDDEV);
    const gl = await p.evaluate(() => (document.querySelector(".viewport canvas") as HTMLCanvasElement).toDataURL("image/png"));
    const glStats = lumaStats(Buffer.from(gl.split(",")[1]!, "base64"));
    expect(glStats.stddev, "WebGL canvas luminance spread").toBeGreaterThan(MIN_LUMA_STDDEV);
    expect(glStats.colours, "distinct colours drawn by WebGL").toBeGreaterThan(MIN_DISTINCT_COLOURS);

    // relations are marked against the truth
    await p.click('[data-testid="tab-relations"]');
    expect(await p.locator('[data-testid="relation-right"]').count()).toBe(s.diagnosis.relations.filter((r) => r.correct).length);
    expect(await p.locator('[data-testid="relation-wrong"]').count()).toBe(s.diagnosis.relations.filter((r) => !r.correct).length);
    // the question, the program trace and whether it was right
    await p.click('[data-testid="tab-question"]');
    await expect.poll(() => p.locator('[data-testid="question"]').textContent()).toContain("How many");
    expect(await p.locator('[data-testid="record3d"]').count()).toBe(1);
    // a record's confidence is a percentage (the symbolic program's 0-1 confidence)
    expect(await p.locator('[data-testid="record3d"]').textContent()).toMatch(/confidence\d{1,3} %method/);
    await p.screenshot({ path: join(shots, "3-question.png") });
    // colour by node; a status chip filters to its status: duplicates only, then duplicates and matched, then all again
    await p.keyboard.press("i");
    await p.click('[data-testid="tab-nodes"]');
    const rowsOf = async () => {
      const shown: Record<string, number> = {};
      for (const st of await p.locator('[data-testid="node-table"] tbody tr').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.status!)))
        shown[st] = (shown[st] ?? 0) + 1;
      return shown;
    };
    const statusCount = (st: string) => s.diagnosis.nodes.filter((d) => d.status === st).length;
    await p.click('[data-testid="chip-duplicate"]');
    expect(await rowsOf()).toEqual({ duplicate: statusCount("duplicate") });
    expect(await p.locator('[data-testid="chip-duplicate"]').getAttribute("aria-pressed")).toBe("true");
    expect(await p.locator('[data-testid="chip-matched"]').getAttribute("aria-pressed")).toBe("false");
    await p.screenshot({ path: join(shots, "4-by-node-duplicates-only.png") });
    await p.click('[data-testid="chip-matched"]');
    expect(await rowsOf()).toEqual({ duplicate: statusCount("duplicate"), matched: statusCount("matched") });
    await p.click('[data-testid="chip-duplicate"]');
    await p.click('[data-testid="chip-matched"]');
    expect(await p.locator('[data-testid="node-table"] tbody tr').count(), "removing the last status shown shows every node").toBe(s.graph.nodes.length);
    expect(errors).toEqual([]);
    await p.close();
  });
});
