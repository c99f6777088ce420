/// <reference path="../../../../src/apps/viewer/client/hooks.mts" />
/**
 * Every status explained (src/apps/viewer/explain.ts): on a real run whose noisy graph has matched,
 * duplicate, merged and hallucinated nodes and a missed object, the diagnosis's rules re-applied to the
 * recomputed points give every stored status, the facts agree with the stored diagnosis, and the page's
 * Evidence tab and missed-object table show them. A stale node (test/helpers/staleGraph.ts: a box moved
 * without the memory being told) is explained against where its object was and is now, counted in the page's
 * header and chips, and filterable in its table and in 3D.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { esi3d } from "../cli/helpers.js";
import { openRun } from "../../../../src/apps/viewer/run.js";
import { BundleInspection, RunInspection } from "../../../../src/apps/viewer/inspection.js";
import { pageHtml } from "../../../../src/apps/viewer/page.js";
import { STATUS_MEANINGS } from "../../../../src/apps/viewer/client/statuses.mjs";
import { staleGraph } from "../../../helpers/staleGraph.js";
import { explainDiagnosis } from "../../../../src/apps/viewer/explain.js";
import { HALLUCINATED_MAX_OBJECT_SHARE, MATCH_MIN_PURITY, MERGED_MIN_SECOND_SHARE, NEAR_OBJECT_M } from "../../../../scenegraph/diagnosis.js";
import type { Explanations } from "../../../../src/apps/viewer/types.js";
import type { VariantData } from "../../../../src/apps/viewer/variant.js";
import { launchChromium, needsChromium, openPage } from "./helpers.js";

const chromium = needsChromium();

/** Stacked cardboard boxes: the noisy source at its default level duplicates, merges and hallucinates nodes here. */
const TASK = "merged_observation-000";
const KEY = "multi__noisy";
/** The stored diagnosis rounds shares and IoUs to 3 decimals. */
const ROUNDING = 6e-4;

let run: string;
/** A run's variant always has its diagnosis (a task-free bundle has none). */
let data: VariantData & { diagnosis: NonNullable<VariantData["diagnosis"]> };
let ex: Explanations;
let browser: Browser;

/** Setting up runs esi3d run and inspect: minutes on a loaded 2-core machine, more than the default hook timeout. */
const SETUP_TIMEOUT_MS = 360_000;

describe("every status explained", () => {
  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-explain-"));
    run = join(out, "run");
    const r = esi3d([
      "run",
      "--per-subcategory",
      "1",
      "--subcategories",
      "merged_observation",
      "--paradigm",
      "multi",
      "--source",
      "noisy",
      "--concurrency",
      "2",
      "--out",
      run,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = await new RunInspection(openRun(run), TASK, "test").data(KEY);
    if (!d.diagnosis) throw new Error(`${KEY}: a run's variant without a diagnosis`);
    data = { ...d, diagnosis: d.diagnosis };
    ex = explainDiagnosis(data);
    if (!chromium.skip) browser = await launchChromium();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  it("re-derives every stored status from the points, with facts that agree with the stored diagnosis", () => {
    const statuses = new Set(data.diagnosis.nodes.map((d) => d.status));
    expect([...statuses].sort(), "this run's graph has every status (else the test checks less)").toEqual(["duplicate", "hallucinated", "matched", "merged"]);
    expect(ex.nodes.map((e) => e.node)).toEqual(data.graph.nodes.map((n) => n.id));
    const allowed: Record<string, string[]> = {
      matched: ["matched"],
      duplicate: ["duplicate_of_match"],
      merged: ["second_object", "no_majority"],
      hallucinated: ["low_object_share", "far_from_object", "impure_unmatched"],
    };
    for (const e of ex.nodes) {
      const d = data.diagnosis.nodes.find((x) => x.node === e.node)!;
      expect(e.consistent, `${e.node}: ${e.why}`).toBe(true);
      expect(e.status).toBe(d.status);
      expect(allowed[d.status]).toContain(e.rule);
      const fact = (name: string) => e.facts.find((f) => f.name === name);
      // the facts against the stored diagnosis: the share on true objects, the dominant object's share
      expect(Math.abs(1 - fact("points on true objects")!.value - d.structure_share)).toBeLessThan(ROUNDING);
      if (d.shares[0]) {
        const top = fact("share of its dominant object")!;
        expect(top.against).toBe(d.shares[0].name);
        expect(Math.abs(top.value - d.shares[0].share)).toBeLessThan(ROUNDING);
      }
      if (d.status === "matched") expect(Math.abs(fact("point IoU with the object")!.value - d.iou)).toBeLessThan(ROUNDING);
      if (d.status === "duplicate") {
        const twin = data.diagnosis.nodes.find((x) => x.node === d.twin)!;
        expect(fact(`point IoU of its twin ${twin.node}`)!.value).toBe(twin.iou);
        expect(e.why).toContain(`gave that object to ${twin.node}`);
      }
      // the decisive fact is on the rule's side of its threshold
      const decisive = e.facts.filter((f) => f.decisive);
      expect(decisive.length, `${e.node} ${e.rule}`).toBeGreaterThan(0);
      const v = decisive[0]!.value;
      if (e.rule === "low_object_share") expect(v).toBeLessThan(HALLUCINATED_MAX_OBJECT_SHARE);
      if (e.rule === "second_object") expect(v).toBeGreaterThanOrEqual(MERGED_MIN_SECOND_SHARE);
      if (e.rule === "far_from_object") expect(v).toBeGreaterThan(NEAR_OBJECT_M);
      if (e.rule === "impure_unmatched" || e.rule === "no_majority") expect(v).toBeLessThan(MATCH_MIN_PURITY);
    }
    // the merged node names both objects it covers, as the diagnosis's shares do
    const merged = data.diagnosis.nodes.find((d) => d.status === "merged")!;
    for (const s of merged.shares.filter((x) => x.share >= MERGED_MIN_SECOND_SHARE))
      expect(ex.nodes.find((e) => e.node === merged.node)!.why).toContain(s.name);
    // missed objects: which nodes took their points, none of them matched to it
    const missed = data.diagnosis.objects.filter((o) => o.status !== "matched");
    expect(ex.objects.map((o) => o.id)).toEqual(missed.map((o) => o.id));
    for (const o of ex.objects) {
      const d = missed.find((x) => x.id === o.id)!;
      if (d.status === "missed-lost") expect(o.why).toContain(`seen in ${d.observed_px.toLocaleString("en-US")} pixels`);
      for (const h of o.holders) expect(data.diagnosis.objects.find((x) => x.node === h.node)?.id).not.toBe(o.id);
    }
  });

  it.skipIf(chromium.skip)(chromium.title("the Evidence tab says why, with the facts beside their thresholds; the missed table says why"), async () => {
    const page = join(run, "..", "page.html");
    const r = esi3d(["inspect", run, "--task", TASK, "--paradigm", "multi", "--source", "noisy", "-o", page]);
    expect(r.code, r.stderr).toBe(0);
    const { p, errors } = await openPage(browser, page);
    for (const status of ["hallucinated", "merged", "duplicate", "matched"]) {
      const d = data.diagnosis.nodes.find((x) => x.status === status)!;
      const e = ex.nodes.find((x) => x.node === d.node)!;
      await p.evaluate((id) => window.__esi3d.select(id), d.node);
      const why = p.locator('[data-testid="evidence-node"] [data-testid="why"]');
      await expect.poll(() => why.getAttribute("data-rule")).toBe(e.rule);
      expect(await why.locator("p").first().textContent()).toBe(`why ${status}: ${e.why}`);
      // a duplicate's or hallucination's cause, as the run's diagnosis recorded it; none for the others
      if (status === "duplicate" || status === "hallucinated") {
        expect(d.cause, `${status} ${d.node}: the run recorded its cause`).toBeDefined();
        expect(await why.locator('[data-testid="cause"]').textContent()).toBe(`cause: ${d.cause!.text}`);
      } else expect(await why.locator('[data-testid="cause"]').count()).toBe(0);
      expect(await why.locator('[data-testid="fact"]').count()).toBe(e.facts.length);
      expect(await why.locator('[data-testid="fact"][data-decisive="1"]').count()).toBe(e.facts.filter((f) => f.decisive).length);
      // the status cell of the node table carries it as a tooltip
      await p.click('[data-testid="tab-nodes"]');
      expect(await p.locator(`[data-testid="node-table"] tr[data-node="${d.node}"] td:nth-child(3)`).getAttribute("title")).toBe(e.why);
    }
    for (const o of ex.objects) expect(await p.locator(`[data-testid="missed-why"][data-object="${o.id}"]`).textContent()).toBe(o.why);
    expect(errors).toEqual([]);
    await p.close();
  });
});

describe("a stale node: explained, counted and filterable", () => {
  let data: VariantData & { diagnosis: NonNullable<VariantData["diagnosis"]> };
  let staleId: string;
  let chrome: Browser;
  beforeAll(async () => {
    const g = await staleGraph();
    const { result } = g;
    data = {
      paradigm: "active",
      source: "gt",
      task: g.task,
      bundle: g.bundle,
      cloud: result.cloud,
      graph: result.graph,
      members: result.members,
      diagnosis: g.diagnosis,
      moved: [g.move],
      timings_ms: {},
    };
    staleId = g.diagnosis.nodes.find((d) => d.status === "stale")!.node;
    if (!chromium.skip) chrome = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
  });

  it("the rule re-applied against where the box is now and where it was gives stale, the nearer pose decisive", () => {
    const e = explainDiagnosis(data);
    for (const n of e.nodes) expect(n.consistent, `${n.node}: ${n.why}`).toBe(true);
    const stale = e.nodes.find((n) => n.node === staleId)!;
    expect(stale).toMatchObject({ status: "stale", rule: "left_behind" });
    const now = stale.facts.find((f) => f.name === "centroid to the object's true box where it is now")!;
    const was = stale.facts.find((f) => f.name === "centroid to the object's true box where it was before it was moved")!;
    expect(now.value).toBeGreaterThan(NEAR_OBJECT_M);
    expect(was.value).toBeLessThanOrEqual(NEAR_OBJECT_M);
    expect([now.decisive, was.decisive]).toEqual([true, true]);
    expect(stale.why).toContain("the node stayed where the object was instead of following it");
    // told of no move, the same points read as a match against the box's old pose: not what the diagnosis stored
    const unmoved = explainDiagnosis({ ...data, moved: [] }).nodes.find((n) => n.node === staleId)!;
    expect(unmoved.consistent).toBe(false);
  });

  it.skipIf(chromium.skip)(chromium.title("the page counts it, explains it, and filters to it in the table and in 3D"), async () => {
    const insp = new BundleInspection(data, "test");
    const file = join(mkdtempSync(join(tmpdir(), "esi3d-stale-")), "page.html");
    writeFileSync(file, await pageHtml(insp.meta({ mode: "file", api: null, tasks: [] }), [await insp.variant()]));
    const { p, errors } = await openPage(chrome, file);
    const m = data.diagnosis.metrics;
    const text = async (sel: string) => (await p.locator(sel).first().textContent())?.trim();
    expect(await text('[data-testid="count-stale"]')).toBe(String(m.stale));
    expect(await text('[data-testid="metric-stale"] b')).toBe(String(m.stale));
    expect(await text('[data-testid="count-duplicate"]')).toBe(String(m.duplicates));
    expect(await p.locator('[data-testid="legend-stale"]').getAttribute("title")).toBe(STATUS_MEANINGS.stale);
    // every box drawn at first, the stale one among them
    const boxes = () => p.evaluate(() => window.__esi3d.boxesShown());
    expect((await boxes()).sort()).toEqual(data.graph.nodes.map((n) => n.id).sort());
    // the chip shows only stale nodes, in the table and in 3D
    await p.click('[data-testid="chip-stale"]');
    const rows = await p.locator('[data-testid="node-table"] tbody tr').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.node));
    expect(rows).toEqual([staleId]);
    expect(await boxes()).toEqual([staleId]);
    // its evidence says why, against the box's two poses
    await p.evaluate((id) => window.__esi3d.select(id), staleId);
    const why = p.locator('[data-testid="evidence-node"] [data-testid="why"]');
    await expect.poll(() => why.getAttribute("data-rule")).toBe("left_behind");
    expect(await why.locator("p").first().textContent()).toBe(`why stale: ${explainDiagnosis(data).nodes.find((n) => n.node === staleId)!.why}`);
    expect(errors).toEqual([]);
    await p.close();
  });
});
