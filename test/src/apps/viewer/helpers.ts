/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
/** Shared by the inspect tests: a small run with duplicated nodes, and headless Chromium. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decode } from "fast-png";
import { chromium, type Browser, type Page } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import type { Diagnosis } from "../../../../scenegraph/diagnosisSchema.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";

import { CHROMIUM, needs } from "../../../helpers/system.js";

/** Tests that drive Chromium: skipped, naming the package, where Debian's chromium is missing (.ci/run installs it). */
export const needsChromium = () => needs("chromium");
/**
 * The flags the project runs Chromium with: headless, no sandbox (containers), no GPU (WebGL falls back
 * to SwiftShader, which --enable-unsafe-swiftshader keeps allowed in newer Chromium), and nothing that
 * reaches the network.
 */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--enable-unsafe-swiftshader",
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** The task every inspect test uses: counting behind furniture, where the noisy source at 0.8 duplicates nodes. */
export const TASK = "counting_with_occlusion-000";

/** Runs the built-in suite on TASK with the noisy source at 0.8 (duplicates) and GT depth; returns the run directory. */
export function makeRun(paradigms: string, prefix: string): string {
  const out = mkdtempSync(join(tmpdir(), prefix));
  const r = esi3d([
    "run",
    "--per-subcategory",
    "1",
    "--subcategories",
    "counting_with_occlusion",
    "--paradigm",
    paradigms,
    "--source",
    "gt,noisy",
    "--noise-level",
    "0.8",
    "--concurrency",
    "2",
    "--out",
    join(out, "run"),
  ]);
  if (r.code !== 0) throw new Error(`esi3d run failed (${r.code}): ${r.stderr}`);
  return join(out, "run");
}

export function stored(run: string, paradigm: string, source: string): { graph: SceneGraph; diagnosis: Diagnosis } {
  return JSON.parse(readFileSync(join(run, "graphs", TASK, `${paradigm}__${source}.json`), "utf8")) as { graph: SceneGraph; diagnosis: Diagnosis };
}

/** A blank or single-colour canvas has a luminance standard deviation near 0; a drawn cloud, grid and boxes well above this. */
export const MIN_LUMA_STDDEV = 12;
/** The drawn WebGL canvas must use at least this many distinct colours (points, boxes, grid lines, frustums). */
export const MIN_DISTINCT_COLOURS = 200;

export function lumaStats(png: Uint8Array): { stddev: number; colours: number } {
  const img = decode(png);
  const ch = img.channels;
  const d = img.data;
  let sum = 0,
    sum2 = 0;
  const colours = new Set<number>();
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const r = d[i * ch]!,
      g = d[i * ch + 1]!,
      b = d[i * ch + 2]!;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    sum += y;
    sum2 += y * y;
    colours.add((r << 16) | (g << 8) | b);
  }
  const mean = sum / n;
  return { stddev: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), colours: colours.size };
}

export async function openPage(b: Browser, file: string): Promise<{ p: Page; errors: string[]; readyMs: number }> {
  const p = await b.newPage({ viewport: { width: 1500, height: 900 } });
  const errors: string[] = [];
  p.on("pageerror", (e) => errors.push(e.message));
  // the page must not touch the network: anything but file: and data: URLs fails the test
  await p.route(/^(?!file:|data:|blob:)/, (route) => {
    errors.push(`network request: ${route.request().url()}`);
    return route.abort();
  });
  const t = Date.now();
  await p.goto(`file://${file}`, { waitUntil: "commit" });
  await p.waitForFunction(() => window.__esi3d?.ready || window.__esi3d?.error, null, { timeout: 60_000, polling: 50 });
  const readyMs = Date.now() - t;
  const err = await p.evaluate(() => window.__esi3d.error);
  if (err) throw new Error(`page error: ${err}`);
  return { p, errors, readyMs };
}

export async function waitReady(p: Page, key: string): Promise<void> {
  await p.waitForFunction((k) => window.__esi3d.ready && window.__esi3d.key === k, key, { timeout: 60_000 });
}
