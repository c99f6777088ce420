/**
 * `esi3d import <layout>` through the built CLI, and the commands that take any bundle run on what it wrote
 * (no task record): points, graph, inspect and ask --question (an LLM reasoner on a loopback server).
 * Bad inputs exit 2 naming the file; a user task's unknown model renders as a box of its extent.
 */
import { describe, expect, it } from "vitest";
import { launchChromium, lumaStats, MIN_LUMA_STDDEV, needsChromium, openPage } from "../viewer/helpers.js";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodePng } from "../../../../core/bundle/png.js";
import { readBundle } from "../../../../core/bundle/io.js";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { generatedBundle } from "../../../scenegraph/helpers.js";
import { writeScannet, writeTum } from "../../../bridge/datasets/layouts.js";
import { startServer } from "../../llm/server.js";
import { esi3d, esi3dAsync } from "./helpers.js";

const chromium = needsChromium();

const source = generatedBundle("counting_with_occlusion", "import-cli", 0, "multi");
const VIEWS = [0, 10, 20].map((i) => source.views[i]!);
const tmp = () => mkdtempSync(join(tmpdir(), "esi3d-import-ds-"));
const noTrace = (s: string) => expect(s).not.toMatch(/\n\s+at /);

function scannetScene(): string {
  const dir = join(tmp(), "scene0001_00");
  writeScannet(dir, source, VIEWS);
  return dir;
}

describe("esi3d import <layout>", () => {
  const scannet = scannetScene();
  const tum = join(tmp(), "rgbd_dataset_mine");
  writeTum(tum, VIEWS);
  const K = VIEWS[0]!.K;
  const withMasks = join(tmp(), "scannet-bundle");
  const noMasks = join(tmp(), "tum-bundle");

  it("writes a bundle without a task (exit 0), prints the importer's decisions, and needs --force to replace it", () => {
    const r = esi3d(["import", "scannet", scannet, "--out", withMasks]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote .*scannet-bundle: 3 views \(518x392\) of 3 scannet frames, world z-up-metres, instance masks, no task record/);
    expect(r.stderr).toMatch(/import: instance masks from instance-filt\/ with labels of scene0001_00.aggregation.json/);
    expect(readBundle(withMasks).manifest.task).toBeUndefined();
    const again = esi3d(["import", "scannet", scannet, "--out", withMasks]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--out: .* already exists; .* --force/);
    const t = esi3d(["import", "tum", tum, "--out", noMasks, "--intrinsics", `${K.fx},${K.fy},${K.cx},${K.cy}`, "--max-views", "2"]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/2 views .* of 3 tum frames, world unknown-up-metres, no instance masks/);
  });

  it("bad inputs exit 2 naming the file: missing pose, depth of the wrong size, unparsable intrinsics, a corrupt JPEG, unknown layout, esi-bench flags", () => {
    const cases: Array<{ edit: (dir: string) => string; args?: string[]; message: RegExp }> = [
      { edit: (d) => (rmSync(join(d, "pose", "110.txt")), join(d, "pose", "110.txt")), message: /missing: depth\/110.png has no pose/ },
      {
        edit: (d) => (writeFileSync(join(d, "depth", "2.png"), encodePng(64, 48, 1, 16, new Uint16Array(64 * 48))), join(d, "depth", "2.png")),
        message: /depth image is 64x48, expected 518x392/,
      },
      {
        edit: (d) => (writeFileSync(join(d, "intrinsic", "intrinsic_depth.txt"), "fx = 500\n"), join(d, "intrinsic", "intrinsic_depth.txt")),
        message: /expected 16 numbers \(4x4 intrinsic matrix\)/,
      },
      {
        edit: (d) => (writeFileSync(join(d, "pose", "0.txt"), "1 0 0 0\n0 2 0 0\n0 0 1 0\n0 0 0 1\n"), join(d, "pose", "0.txt")),
        message: /not a rigid transform/,
      },
      {
        edit: (d) => {
          const f = join(d, "color", "0.png");
          writeFileSync(join(d, "color", "0.jpg"), readFileSync(f));
          rmSync(f);
          return join(d, "color", "0.jpg");
        },
        message: /not a readable JPEG colour image/,
      },
      { edit: (d) => d, args: ["--dedupe"], message: /--dedupe: only for esi-bench records/ },
      { edit: (d) => d, args: ["--up", "sideways"], message: /--up: expected one of \+x, -x, \+y, -y, \+z, -z, none/ },
    ];
    for (const c of cases) {
      const dir = scannetScene();
      const file = c.edit(dir);
      const out = join(tmp(), "b");
      const r = esi3d(["import", "scannet", dir, "--out", out, ...(c.args ?? [])]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(c.message);
      if (file !== dir) expect(r.stderr).toContain(file);
      expect(existsSync(out), "no half-written bundle").toBe(false);
      noTrace(r.stderr);
    }
    const unknown = esi3d(["import", "scannet2", scannet, "--out", join(tmp(), "b")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/<source>: expected one of esi-bench, scannet, scannetpp, arkitscenes, tum, replica, got "scannet2"/);
    const esi = esi3d(["import", "esi-bench", scannet, "--out", join(tmp(), "b"), "--max-views", "3"]);
    expect(esi.code).toBe(2);
    expect(esi.stderr).toMatch(/--max-views: only for a dataset layout/);
    const missing = esi3d(["import", "replica", join(tmp(), "nowhere"), "--out", join(tmp(), "b")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nowhere: no such directory \(expected a replica scene folder\)/);
  });

  it("points and graph work on an imported bundle; without masks graph says --masks none on one stderr line", () => {
    const ply = join(tmp(), "c.ply");
    const p = esi3d(["points", noMasks, "-o", ply]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/wrote .*c.ply: \d+ points from 2 views/);
    const g = join(tmp(), "g.json");
    const r = esi3d(["graph", noMasks, "-o", g]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter((l) => /using --masks none/.test(l)).length).toBe(1);
    expect(r.stderr).toMatch(/no known up axis \(unknown-up-metres\)/);
    expect(r.stdout).toMatch(/nodes, \d+ relations \(no task record: no ground truth to diagnose against\)/);
    const graph = JSON.parse(readFileSync(g, "utf8"));
    expect(graph.masks).toBe("none");
    expect(graph.nodes.length).toBeGreaterThan(0);
    const withM = esi3d(["graph", withMasks, "-o", g]);
    expect(withM.code, withM.stderr).toBe(0);
    expect(withM.stderr).not.toMatch(/masks none/);
    expect(JSON.parse(readFileSync(g, "utf8")).nodes.map((n: { label: string }) => n.label)).toEqual(expect.arrayContaining([expect.any(String)]));
    const asked = esi3d(["graph", noMasks, "-o", g, "--masks", "instance"]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/--masks instance: .* has no instance masks \(an imported tum scene\); use --masks none/);
    const diag = esi3d(["graph", withMasks, "-o", g, "--diagnosis", join(tmp(), "d.json")]);
    expect(diag.code).toBe(2);
    expect(diag.stderr).toMatch(/bundle.json: task: this bundle has no task record \(import:scannet: a scene of one's own\); --diagnosis/);
  });

  it.skipIf(chromium.skip)(
    chromium.title("inspect prints the node table and writes a page of an imported bundle that Chromium draws"),
    async () => {
      const r = esi3d(["inspect", withMasks]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/scene graph of scene0001_00 \(multi views, source gt, masks instance/);
      expect(r.stdout).toMatch(/no task record, so no ground truth to diagnose against/);
      const page = join(tmp(), "p.html");
      const w = esi3d(["inspect", noMasks, "-o", page]);
      expect(w.code, w.stderr).toBe(0);
      expect(w.stderr).toMatch(/using --masks none/);
      expect(readFileSync(page, "utf8")).toContain("no task record");
      // the page opens in Chromium with no page error and draws the cloud (no truth, no diagnosis to show)
      const browser = await launchChromium();
      try {
        const { p, errors } = await openPage(browser, page);
        const shot = await p.locator("canvas").first().screenshot();
        // the node table without statuses, a node's evidence card, and the relations listed unjudged
        await p.getByTestId("no-diagnosis").waitFor();
        const rows = p.locator("[data-testid=node-table] tbody tr");
        expect(await rows.count()).toBeGreaterThan(0);
        await rows.first().click();
        await p.getByTestId("evidence-node").waitFor();
        await p.getByTestId("tab-relations").click();
        await p.getByTestId("relations").waitFor({ state: "attached" });
        expect(errors).toEqual([]);
        expect(lumaStats(shot).stddev).toBeGreaterThan(MIN_LUMA_STDDEV);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );

  it("ask answers a free question on an imported bundle with an LLM reasoner (loopback server); without --question it says what is missing", async () => {
    const none = esi3d(["ask", noMasks]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--question: .* has no task record \(import:tum: a scene of one's own\)/);
    const server = await startServer((req, res) => {
      const text = JSON.stringify((req.body as { messages: unknown }).messages);
      const ok = text.includes("Is there a chair in the room?") && /"label"|is a /.test(text);
      res.writeHead(ok ? 200 : 400, { "content-type": "application/json" });
      const reply = {
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "test-model",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: '{"answer": "yes", "confidence": 0.6}' } }],
      };
      res.end(JSON.stringify(ok ? reply : { error: { message: "prompt lacked the graph or the question" } }));
    });
    try {
      const r = await esi3dAsync(
        ["ask", withMasks, "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache", "--question", "Is there a chair in the room?"],
        { env: { OPENAI_API_KEY: "k" } },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("question: Is there a chair in the room?");
      expect(r.stdout).toMatch(/answer: yes \(confidence 0.6\) \[parsed/);
      expect(r.stdout).not.toMatch(/correct:|truth/);
      expect(server.requests.length).toBe(1);
      const m = await esi3dAsync(
        ["ask", noMasks, "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache", "--question", "Is there a chair in the room?"],
        { env: { OPENAI_API_KEY: "k" } },
      );
      expect(m.code, m.stdout + m.stderr).toBe(0);
      expect(m.stderr.split("\n").filter((l) => /using --masks none/.test(l)).length).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("a user task with a model the library does not have renders it as a box of its extent (not 'unknown model')", () => {
    const task = generateTask("counting_with_occlusion", "user-model", 0);
    // the object the initial view shows most of gets a model of the user's own
    const seen = new Map<number, number>();
    for (const id of captureBundle(task, "single").payloads[0]!.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    const target = task.objects.filter((o) => seen.has(o.id)).sort((a, b) => seen.get(b.id)! - seen.get(a.id)!)[0]!;
    const user = { ...task, task_id: "my-task", objects: task.objects.map((o) => (o.id === target.id ? { ...o, model: "laptop_01" } : o)) };
    const file = join(tmp(), "my-task.json");
    writeFileSync(file, JSON.stringify(user));
    const out = join(tmp(), "r");
    const r = esi3d(["render", "--tasks", file, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/unknown model/);
    const b = readBundle(join(out, "my-task", "single"));
    const px = b.views[0]!.ids.filter((id) => id === target.id).length;
    expect(px, "the stand-in box is drawn").toBeGreaterThan(0);
    // a box of the extent covers at least what the library model did (it encloses the model)
    expect(px).toBeGreaterThanOrEqual(seen.get(target.id)! * 0.9);
    const g = esi3d(["graph", join(out, "my-task", "single"), "-o", join(tmp(), "g.json")]);
    expect(g.code, g.stderr).toBe(0);
  });
});
