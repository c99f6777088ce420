/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
/**
 * The viewer's basics in real headless Chromium, on a page written by `esi3d inspect RUN --task ID -o`:
 * the PNG screenshot, camera presets, the point-size slider, point picking and the ruler, two sources side
 * by side with a linked camera, labels that do not overlap, and every status explained.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode } from "fast-png";
import type { Browser, Page } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import { launchChromium, needsChromium, lumaStats, makeRun, MIN_LUMA_STDDEV, openPage, stored, TASK, waitReady } from "./helpers.js";

type V3 = [number, number, number];

let browser: Browser;
let run: string;
let page: string;

/** The viewer's clear colour (view3d.mts BACKGROUND). */
const BACKGROUND: V3 = [0x2b, 0x2f, 0x38];

const sub = (a: readonly number[], b: readonly number[]): V3 => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const norm = (a: readonly number[]) => Math.hypot(a[0]!, a[1]!, a[2]!);
const unit = (a: readonly number[]): V3 => {
  const n = norm(a);
  return [a[0]! / n, a[1]! / n, a[2]! / n];
};

/** The 8 corners of a yaw box. */
function corners(c: readonly number[], e: readonly number[], yaw: number): V3[] {
  const out: V3[] = [];
  const cy = Math.cos(yaw),
    sy = Math.sin(yaw);
  for (const dx of [-1, 1])
    for (const dy of [-1, 1])
      for (const dz of [-1, 1]) {
        const x = (dx * e[0]!) / 2,
          y = (dy * e[1]!) / 2;
        out.push([c[0]! + cy * x - sy * y, c[1]! + sy * x + cy * y, c[2]! + (dz * e[2]!) / 2]);
      }
  return out;
}

/** Whether a world point lies in a yaw box grown by `margin` (m). */
function inBox(p: readonly number[], c: readonly number[], e: readonly number[], yaw: number, margin: number): boolean {
  const d = sub(p, c);
  const x = Math.cos(yaw) * d[0] + Math.sin(yaw) * d[1],
    y = -Math.sin(yaw) * d[0] + Math.cos(yaw) * d[1];
  return Math.abs(x) <= e[0]! / 2 + margin && Math.abs(y) <= e[1]! / 2 + margin && Math.abs(d[2]) <= e[2]! / 2 + margin;
}

async function canvasRect(p: Page, sel = ".viewport:not(.compare) canvas"): Promise<{ x: number; y: number; width: number; height: number }> {
  return (await p.locator(sel).boundingBox())!;
}

/** The canvas as decoded PNG pixels (the drawing buffer is preserved, so toDataURL reads the last frame). */
async function canvasPixels(p: Page, sel: string): Promise<{ width: number; height: number; data: Uint8Array; channels: number }> {
  const url = await p.evaluate((s) => (document.querySelector(s) as HTMLCanvasElement).toDataURL("image/png"), sel);
  const img = decode(Buffer.from(url.split(",")[1]!, "base64"));
  return { width: img.width, height: img.height, data: img.data as Uint8Array, channels: img.channels };
}

/** Waits for the next frame to be drawn (the view renders on demand, in requestAnimationFrame). */
const frame = (p: Page) => p.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/** Setting up runs esi3d run and inspect: minutes on a loaded 2-core machine, more than the default hook timeout. */
const SETUP_TIMEOUT_MS = 360_000;

const chromium = needsChromium();

describe.skipIf(chromium.skip)(chromium.title("esi3d inspect: the viewer's basics"), () => {
  beforeAll(async () => {
    run = makeRun("multi", "esi3d-viewer-basics-");
    page = join(run, "..", "page.html");
    const r = esi3d(["inspect", run, "--task", TASK, "-o", page]);
    expect(r.code, r.stderr).toBe(0);
    browser = await launchChromium();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  it("downloads the 3D view as PNG, and the camera presets look from the top, the front and at the selection", async () => {
    const { p, errors } = await openPage(browser, page);
    const s = stored(run, "multi", "gt");
    // PNG: the canvas's own pixels, at its drawing-buffer size
    const [download] = await Promise.all([p.waitForEvent("download"), p.click('[data-testid="screenshot"]')]);
    expect(download.suggestedFilename()).toBe(`${TASK}__multi__gt.png`);
    const png = decode(readFileSync((await download.path())!));
    const canvas = await p.evaluate(() => {
      const c = document.querySelector(".viewport canvas") as HTMLCanvasElement;
      return { width: c.width, height: c.height };
    });
    expect([png.width, png.height]).toEqual([canvas.width, canvas.height]);
    expect(lumaStats(readFileSync((await download.path())!)).stddev, "the PNG is not blank").toBeGreaterThan(MIN_LUMA_STDDEV);
    const now = await canvasPixels(p, ".viewport canvas");
    let same = 0;
    for (let i = 0; i < png.width * png.height; i++)
      if (
        png.data[i * png.channels] === now.data[i * now.channels] &&
        png.data[i * png.channels + 1] === now.data[i * now.channels + 1] &&
        png.data[i * png.channels + 2] === now.data[i * now.channels + 2]
      )
        same++;
    expect(same / (png.width * png.height), "the PNG is the frame on screen").toBeGreaterThan(0.99);

    const rect = await canvasRect(p);
    const inside = (q: { x: number; y: number } | null) =>
      q !== null && q.x >= rect.x && q.x <= rect.x + rect.width && q.y >= rect.y && q.y <= rect.y + rect.height;
    const centres = s.graph.nodes.map((n) => n.box.centre as V3);
    const projectAll = () => p.evaluate((cs) => cs.map((c) => window.__esi3d.project(c)), centres);
    // top: straight down, +Y up the screen and +X to the right, every node in the picture
    await p.click('[data-testid="preset-top"]');
    let cam = await p.evaluate(() => window.__esi3d.camera());
    expect(unit(sub(cam.target, cam.position))[2]).toBeLessThan(-0.999);
    const c0 = centres[0]!;
    const [o, py, px] = await p.evaluate((c) => [window.__esi3d.project(c[0]), window.__esi3d.project(c[1]), window.__esi3d.project(c[2])], [
      c0,
      [c0[0], c0[1] + 0.5, c0[2]],
      [c0[0] + 0.5, c0[1], c0[2]],
    ] as [V3, V3, V3]);
    expect(py!.y).toBeLessThan(o!.y - 5);
    expect(Math.abs(py!.x - o!.x)).toBeLessThan(2);
    expect(px!.x).toBeGreaterThan(o!.x + 5);
    expect((await projectAll()).every(inside), "top: every node in the picture").toBe(true);
    // front: level, along the agent's first view direction
    await p.click('[data-testid="preset-front"]');
    cam = await p.evaluate(() => window.__esi3d.camera());
    const dir = unit(sub(cam.target, cam.position));
    expect(Math.abs(dir[2])).toBeLessThan(1e-6);
    expect(dir[0]).toBeCloseTo(Math.cos(s.graph.viewpoint.yaw), 6);
    expect(dir[1]).toBeCloseTo(Math.sin(s.graph.viewpoint.yaw), 6);
    expect((await projectAll()).every(inside), "front: every node in the picture").toBe(true);
    // fit: the selected node's box fills much of the view, whole, from the same direction
    const node = [...s.graph.nodes].sort((a, b) => norm(a.box.extent) - norm(b.box.extent))[0]!; // the smallest
    const span = async () => {
      const qs = await p.evaluate((cs) => cs.map((c) => window.__esi3d.project(c)), corners(node.box.centre, node.box.extent, node.box.yaw));
      expect(qs.every(inside), "the box is whole in the picture").toBe(true);
      return Math.max(Math.max(...qs.map((q) => q!.x)) - Math.min(...qs.map((q) => q!.x)), Math.max(...qs.map((q) => q!.y)) - Math.min(...qs.map((q) => q!.y)));
    };
    const before = await span();
    await p.evaluate((id) => window.__esi3d.select(id), node.id);
    await p.click('[data-testid="preset-fit"]');
    cam = await p.evaluate(() => window.__esi3d.camera());
    for (let a = 0; a < 3; a++) expect(cam.target[a]).toBeCloseTo(node.box.centre[a]!, 6);
    const fitDir = unit(sub(cam.target, cam.position));
    for (let a = 0; a < 3; a++) expect(fitDir[a]).toBeCloseTo(dir[a]!, 6);
    const after = await span();
    expect(after, `fit: ${node.id}'s box spans ${after.toFixed(0)} px (was ${before.toFixed(0)})`).toBeGreaterThan(
      Math.max(3 * before, 0.3 * Math.min(rect.width, rect.height)),
    );
    // the keys do the same: 7 is top
    await p.keyboard.press("7");
    cam = await p.evaluate(() => window.__esi3d.camera());
    expect(unit(sub(cam.target, cam.position))[2]).toBeLessThan(-0.999);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("the point-size slider sets three.js's point size, and bigger points cover more of the view", async () => {
    const { p, errors } = await openPage(browser, page);
    const s = stored(run, "multi", "gt");
    // the cloud alone, close to the smallest node (a sparse patch of points, so their size shows)
    for (const t of ["boxes", "truth", "frustums", "grid", "labels"]) await p.uncheck(`[data-testid="toggle-${t}"]`);
    const small = [...s.graph.nodes].sort((a, b) => a.raw_point_count - b.raw_point_count)[0]!;
    await p.evaluate((id) => window.__esi3d.select(id), small.id);
    await p.click('[data-testid="preset-fit"]');
    await p.keyboard.press("Escape");
    const covered = async () => {
      await frame(p);
      const img = await canvasPixels(p, ".viewport canvas");
      let n = 0;
      for (let i = 0; i < img.width * img.height; i++)
        if (
          img.data[i * img.channels] !== BACKGROUND[0] ||
          img.data[i * img.channels + 1] !== BACKGROUND[1] ||
          img.data[i * img.channels + 2] !== BACKGROUND[2]
        )
          n++;
      return n / (img.width * img.height);
    };
    await p.locator('[data-testid="point-size"]').fill("1");
    expect(await p.evaluate(() => window.__esi3d.pointSize())).toBe(1);
    const at1 = await covered();
    await p.locator('[data-testid="point-size"]').fill("6");
    expect(await p.evaluate(() => window.__esi3d.pointSize())).toBe(6);
    expect(await p.locator('[data-testid="point-size-label"]').textContent()).toBe("6 px");
    const at6 = await covered();
    expect(at1, "some points drawn").toBeGreaterThan(0);
    expect(at6, `share of the view drawn: ${at1.toFixed(4)} at 1 px, ${at6.toFixed(4)} at 6 px`).toBeGreaterThan(3 * at1);
    // the keys move the slider too
    await p.keyboard.press("[");
    expect(await p.evaluate(() => window.__esi3d.pointSize())).toBe(5);
    expect(await p.locator('[data-testid="point-size"]').inputValue()).toBe("5");
    expect(errors).toEqual([]);
    await p.close();
  });

  it("a click shows the point's world coordinates and node; the ruler measures between two points in metres", async () => {
    const { p, errors } = await openPage(browser, page);
    const s = stored(run, "multi", "gt");
    await p.click('[data-testid="preset-top"]');
    const big = [...s.graph.nodes].sort((a, b) => b.raw_point_count - a.raw_point_count).slice(0, 2);
    // the top face's centre of a node's box, on screen
    const at = async (n: (typeof big)[number]) =>
      (await p.evaluate((q) => window.__esi3d.project(q), [n.box.centre[0], n.box.centre[1], n.box.centre[2] + n.box.extent[2] / 2] as V3))!;
    // a click on the largest node, from above
    const q0 = await at(big[0]!);
    await p.mouse.click(q0.x, q0.y);
    const picked = (await p.evaluate(() => window.__esi3d.picks())).point!;
    expect(picked, "a point under the click").not.toBeNull();
    // it is a real cloud point, under the cursor
    const cp = (await p.evaluate((i) => window.__esi3d.cloudPoint(i), picked.index))!;
    expect(cp.position).toEqual(picked.position);
    const sp = (await p.evaluate((q) => window.__esi3d.project(q), picked.position))!;
    expect(Math.hypot(sp.x - q0.x, sp.y - q0.y), "the picked point is under the cursor").toBeLessThan(12);
    // its node: the cloud's membership, whose stored box holds the point
    expect(picked.node).toBe(cp.node);
    expect(picked.node, "the click on a node's top hits the node").not.toBeNull();
    const n = s.graph.nodes[picked.node!]!;
    expect(inBox(picked.position, n.box.centre, n.box.extent, n.box.yaw, 0.05), `${n.id}'s box holds the point`).toBe(true);
    const status = s.diagnosis.nodes.find((d) => d.node === n.id)!.status;
    const text = await p.locator('[data-testid="pick-point"]').textContent();
    expect(text).toBe(`(${picked.position.map((x) => x.toFixed(3)).join(", ")}) m · ${n.id} ${n.label} (${status})`);
    // the click also selected a node (outside ruler mode: the nearest box under it)
    const selected = await p.locator('[data-testid="evidence-node"]').getAttribute("data-node", { timeout: 5000 });
    expect(selected).not.toBeNull();

    // the ruler: two clicks, the distance between the points in metres; clicks no longer select
    await p.click('[data-testid="ruler-toggle"]');
    await p.mouse.click(q0.x, q0.y);
    const q1 = await at(big[1]!);
    await p.mouse.click(q1.x, q1.y);
    const r = await p.evaluate(() => window.__esi3d.picks());
    expect(r.ruler).toHaveLength(2);
    const d = norm(sub(r.ruler[0]!.position, r.ruler[1]!.position));
    expect(r.distance_m).toBeCloseTo(d, 9);
    // the points are on the two nodes, so the distance is about that of their centres (within their sizes)
    const centreGap = norm(sub(big[0]!.box.centre, big[1]!.box.centre));
    expect(Math.abs(d - centreGap)).toBeLessThan((norm(big[0]!.box.extent) + norm(big[1]!.box.extent)) / 2);
    expect(await p.locator('[data-testid="ruler-distance"]').textContent()).toBe(`${d.toFixed(3)} m`);
    await frame(p);
    const label = p.locator('[data-testid="ruler-label"]');
    expect(await label.isVisible()).toBe(true);
    expect(await label.textContent()).toBe(`${d.toFixed(3)} m`);
    expect(await p.locator('[data-testid="ruler-a"]').textContent()).toContain(`(${r.ruler[0]!.position.map((x) => x.toFixed(3)).join(", ")}) m`);
    expect(await p.locator('[data-testid="evidence-node"]').getAttribute("data-node"), "ruler clicks do not change the selection").toBe(selected);
    // a third click starts a new measurement; M leaves ruler mode and clears it
    await p.mouse.click(q1.x, q1.y);
    expect((await p.evaluate(() => window.__esi3d.picks())).ruler).toHaveLength(1);
    await p.keyboard.press("m");
    expect((await p.evaluate(() => window.__esi3d.picks())).ruler).toHaveLength(0);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("shows two sources side by side with one camera", async () => {
    const { p, errors } = await openPage(browser, page);
    const mainSel = ".viewport:not(.compare) canvas",
      cmpSel = ".viewport.compare canvas";
    const widthAlone = (await canvasRect(p, mainSel)).width;
    await p.selectOption('[data-testid="compare-select"]', "multi__noisy");
    await p.waitForFunction(() => window.__esi3d.compare().ready, null, { timeout: 60_000 });
    expect(await p.locator('[data-testid="compare-caption"]').textContent()).toContain("noisy");
    const a = await canvasRect(p, mainSel),
      b = await canvasRect(p, cmpSel);
    expect(a.width).toBeLessThan(widthAlone * 0.7);
    expect(Math.abs(a.width - b.width)).toBeLessThan(4);
    expect(b.x).toBeGreaterThanOrEqual(a.x + a.width - 1);
    const same = async () => {
      const [x, y] = await p.evaluate(() => [window.__esi3d.camera(), window.__esi3d.compareCamera()]);
      for (let k = 0; k < 3; k++) {
        expect(y!.position[k]).toBeCloseTo(x.position[k]!, 9);
        expect(y!.target[k]).toBeCloseTo(x.target[k]!, 9);
      }
      return x;
    };
    const start = await same();
    // orbit in the main view: the other follows
    const drag = async (r: { x: number; y: number; width: number; height: number }, dx: number) => {
      await p.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
      await p.mouse.down();
      await p.mouse.move(r.x + r.width / 2 + dx / 2, r.y + r.height / 2 + 10, { steps: 4 });
      await p.mouse.move(r.x + r.width / 2 + dx, r.y + r.height / 2 + 20, { steps: 4 });
      await p.mouse.up();
    };
    await drag(a, 120);
    const moved = await same();
    expect(norm(sub(moved.position, start.position)), "the drag moved the camera").toBeGreaterThan(0.1);
    // and orbit in the second view: the main one follows
    await drag(b, -150);
    const back = await same();
    expect(norm(sub(back.position, moved.position))).toBeGreaterThan(0.1);
    // fit on a selected node: the second view follows and draws at once (it stayed blank until another preset, issue 44)
    await p.evaluate(() => window.__esi3d.select("n0"));
    await p.click('[data-testid="preset-fit"]');
    await same();
    await frame(p);
    const cmpLuma = async () =>
      lumaStats(Buffer.from(await p.evaluate((s) => (document.querySelector(s) as HTMLCanvasElement).toDataURL("image/png").split(",")[1]!, cmpSel), "base64"))
        .stddev;
    expect(await cmpLuma(), "the second view after fit").toBeGreaterThan(MIN_LUMA_STDDEV);
    await p.click('[data-testid="preset-top"]');
    await same();
    // both drawn, and they differ (gt depth beside the noisy cloud)
    await frame(p);
    const ia = await canvasPixels(p, mainSel),
      ib = await canvasPixels(p, cmpSel);
    expect(
      lumaStats(Buffer.from(await p.evaluate((s) => (document.querySelector(s) as HTMLCanvasElement).toDataURL("image/png").split(",")[1]!, cmpSel), "base64"))
        .stddev,
    ).toBeGreaterThan(MIN_LUMA_STDDEV);
    let differ = 0;
    const w = Math.min(ia.width, ib.width),
      h = Math.min(ia.height, ib.height);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = (y * ia.width + x) * ia.channels,
          j = (y * ib.width + x) * ib.channels;
        if (Math.abs(ia.data[i]! - ib.data[j]!) + Math.abs(ia.data[i + 1]! - ib.data[j + 1]!) + Math.abs(ia.data[i + 2]! - ib.data[j + 2]!) > 30) differ++;
      }
    expect(differ / (w * h), "gt and noisy clouds draw differently").toBeGreaterThan(0.005);
    // settings apply to both: point size
    await p.locator('[data-testid="point-size"]').fill("4");
    expect(await p.evaluate(() => window.__esi3d.pointSize())).toBe(4);
    // the PNG holds both views side by side
    const [download] = await Promise.all([p.waitForEvent("download"), p.click('[data-testid="screenshot"]')]);
    expect(download.suggestedFilename()).toBe(`${TASK}__multi__gt__vs__multi__noisy.png`);
    const png = decode(readFileSync((await download.path())!));
    expect(png.width).toBe(ia.width + ib.width);
    // off again
    await p.selectOption('[data-testid="compare-select"]', "");
    expect(await p.locator('[data-testid="compare-pane"]').isHidden()).toBe(true);
    await p.selectOption('[data-testid="source-select"]', "multi__noisy");
    await waitReady(p, "multi__noisy");
    expect(errors).toEqual([]);
    await p.close();
  });

  it("lays labels out so that none overlaps another, the selected node's always shown", async () => {
    const { p, errors } = await openPage(browser, page);
    await p.selectOption('[data-testid="source-select"]', "multi__noisy");
    await waitReady(p, "multi__noisy");
    const s = stored(run, "multi", "noisy");
    const labels = () =>
      p.evaluate(() =>
        [...document.querySelectorAll(".viewport:not(.compare) .label3d")].map((e) => {
          const el = e as HTMLElement,
            r = el.getBoundingClientRect();
          return {
            text: el.textContent ?? "",
            layout: el.dataset.layout ?? "",
            shown: el.style.display !== "none",
            l: r.left,
            t: r.top,
            r: r.right,
            b: r.bottom,
          };
        }),
      );
    const overlaps = (ls: Awaited<ReturnType<typeof labels>>) => {
      const shown = ls.filter((l) => l.shown);
      const out: string[] = [];
      for (let i = 0; i < shown.length; i++)
        for (let j = i + 1; j < shown.length; j++) {
          const a = shown[i]!,
            b = shown[j]!;
          if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) out.push(`${a.text} / ${b.text}`);
        }
      return out;
    };
    // the default view, then zoomed far out so that the labels crowd together
    await frame(p);
    const near = await labels();
    expect(overlaps(near)).toEqual([]);
    const r = await canvasRect(p);
    await p.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
    for (let k = 0; k < 12; k++) await p.mouse.wheel(0, 400);
    const dup = s.diagnosis.nodes.find((d) => d.status === "duplicate")!;
    await p.evaluate((id) => window.__esi3d.select(id), dup.node);
    await frame(p);
    const far = await labels();
    expect(overlaps(far)).toEqual([]);
    const nodeLabels = far.filter((l) => s.graph.nodes.some((n) => l.text === `${n.id} ${n.label}`));
    expect(nodeLabels.length).toBe(s.graph.nodes.length);
    expect(far.filter((l) => l.layout === "hidden" || l.layout === "moved").length, "crowded: the layout moved or hid some").toBeGreaterThan(0);
    const picked = far.find((l) => l.text === `${dup.node} ${dup.label}`)!;
    expect(picked.shown, "the selected node's label is shown").toBe(true);
    expect(errors).toEqual([]);
    await p.close();
  });
});
