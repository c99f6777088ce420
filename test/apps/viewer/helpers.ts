/** Shared by the inspect tests: a small run with duplicated nodes, and headless Chromium. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import type { SceneGraph } from "../../../scenegraph/types.js";

/** Debian's Chromium (.ci/run installs it). */
export const CHROMIUM = "/usr/bin/chromium";
/**
 * The flags the project runs Chromium with: headless, no sandbox (containers), no GPU (WebGL falls back
 * to SwiftShader, which --enable-unsafe-swiftshader keeps allowed in newer Chromium), and nothing that
 * reaches the network.
 */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-unsafe-swiftshader"];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** The task every inspect test uses: counting behind furniture, where the noisy source at 0.8 duplicates nodes. */
export const TASK = "counting_with_occlusion-000";

/** Runs the built-in suite on TASK with the noisy source at 0.8 (duplicates) and GT depth; returns the run directory. */
export function makeRun(paradigms: string, prefix: string): string {
  const out = mkdtempSync(join(tmpdir(), prefix));
  const r = esi3d(["run", "--per-subcategory", "1", "--subcategories", "counting_with_occlusion", "--paradigm", paradigms, "--source", "gt,noisy", "--noise-level", "0.8", "--concurrency", "2", "--out", join(out, "run")]);
  if (r.code !== 0) throw new Error(`esi3d run failed (${r.code}): ${r.stderr}`);
  return join(out, "run");
}

export function stored(run: string, paradigm: string, source: string): { graph: SceneGraph; diagnosis: Diagnosis } {
  return JSON.parse(readFileSync(join(run, "graphs", TASK, `${paradigm}__${source}.json`), "utf8")) as { graph: SceneGraph; diagnosis: Diagnosis };
}
