/**
 * `esi3d inspect` on a run directory, without a browser: node tables, the reproduction check, exports
 * (PLY, GLB, graph JSON) read back by independent readers, errors, and --serve over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeIO, Primitive } from "@gltf-transform/core";
import { validateBytes } from "gltf-validator";
import { readPly } from "../../../reconstruct/readPly.js";
import { writeBundle } from "../../../../core/bundle/io.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { readTaskFile } from "../../../../core/task/io.js";
import { nodeColor, UNASSIGNED_COLOR } from "../../../../src/apps/viewer/palette.js";
import { CLI, esi3d, REPO_ROOT } from "../cli/helpers.js";
import { makeRun, stored, TASK } from "./helpers.js";

let run: string;
let tmp: string;

beforeAll(() => {
  run = makeRun("single,multi", "esi3d-inspect-cli-");
  tmp = mkdtempSync(join(tmpdir(), "esi3d-inspect-out-"));
});

describe("esi3d inspect RUN_DIR", () => {
  it("prints the stored node tables of a task, one per graph, without recomputing", () => {
    const r = esi3d(["inspect", run, "--task", TASK, "--paradigm", "multi"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/node\s+label\s+status\s+true object/g)?.length).toBe(4); // gt and noisy, each with oracle and appearance labels
    expect(r.stdout).toMatch(/source noisy/);
    const dup = stored(run, "multi", "noisy").diagnosis.nodes.find((d) => d.status === "duplicate")!;
    expect(r.stdout).toMatch(new RegExp(`${dup.node}\\s.*duplicate.*twin ${dup.twin}`));
  });

  it("exports PLY (node colours), GLB (+Y up, points and box lines) and the graph JSON of one graph", async () => {
    const ply = join(tmp, "c.ply"),
      glb = join(tmp, "c.glb"),
      gj = join(tmp, "g.json");
    const r = esi3d(["inspect", run, "--task", TASK, "--paradigm", "multi", "--source", "noisy", "--ply", ply, "--glb", glb, "--graph-json", gj]);
    expect(r.code, r.stderr).toBe(0);
    const s = stored(run, "multi", "noisy");
    // graph JSON: exactly what the run stored
    expect(JSON.parse(readFileSync(gj, "utf8"))).toEqual(s);
    // PLY: uchar colours, one palette colour per node, grey elsewhere; as many points in each colour as the node has
    const head = readFileSync(ply).toString("latin1", 0, 4096);
    expect(head.slice(0, head.indexOf("end_header"))).toMatch(/property uchar red\nproperty uchar green\nproperty uchar blue/);
    expect(head.slice(0, head.indexOf("end_header"))).toMatch(/property int view\nproperty int pixel\nproperty int instance\nproperty int node\n/); // signed: Open3D's tensor reader keeps them
    const cloud = readPly(ply);
    const key = (c: readonly number[]) => `${c[0]},${c[1]},${c[2]}`;
    const perColour = new Map<string, number>();
    for (let i = 0; i < cloud.count; i++)
      perColour.set(
        key([cloud.rgb[3 * i]!, cloud.rgb[3 * i + 1]!, cloud.rgb[3 * i + 2]!]),
        (perColour.get(key([cloud.rgb[3 * i]!, cloud.rgb[3 * i + 1]!, cloud.rgb[3 * i + 2]!])) ?? 0) + 1,
      );
    // palette colours repeat after 18 nodes; this task has fewer
    expect(s.graph.nodes.length).toBeLessThan(18);
    s.graph.nodes.forEach((n, k) => expect(perColour.get(key(nodeColor(k))), n.id).toBe(n.raw_point_count));
    const inNodes = s.graph.nodes.reduce((a, n) => a + n.raw_point_count, 0);
    expect((perColour.get(key(UNASSIGNED_COLOR)) ?? 0) + inNodes).toBe(cloud.count);
    // GLB: a POINTS primitive with COLOR_0, one LINES box per node and per true object, converted to +Y up
    const doc = await new NodeIO().read(glb);
    // The Khronos glTF validator (npm gltf-validator): no errors and no warnings.
    const report = await validateBytes(new Uint8Array(readFileSync(glb)));
    expect(
      report.issues.messages.filter((m) => m.severity <= 1),
      JSON.stringify(report.issues.messages.slice(0, 5)),
    ).toEqual([]);
    // a default scene (glTF "scene": 0), holding the cloud and both box groups
    const json = JSON.parse(readFileSync(glb).toString("utf8", 20, 20 + readFileSync(glb).readUInt32LE(12))) as { scene?: number; scenes: unknown[] };
    expect(json.scene).toBe(0);
    expect(json.scenes.length).toBe(1);
    expect(doc.getRoot().getDefaultScene()).toBe(doc.getRoot().listScenes()[0]);
    expect(
      doc
        .getRoot()
        .getDefaultScene()!
        .listChildren()
        .map((n) => n.getName()),
    ).toEqual(["cloud", "predicted boxes", "true boxes"]);
    const meshes = doc.getRoot().listMeshes();
    const points = meshes.flatMap((m) => m.listPrimitives()).filter((p) => p.getMode() === Primitive.Mode.POINTS);
    expect(points.length).toBe(1);
    expect(points[0]!.getAttribute("POSITION")!.getCount()).toBe(cloud.count);
    expect(points[0]!.getAttribute("COLOR_0")!.getNormalized()).toBe(true);
    const task = readTaskFile(join(run, "tasks", `${TASK}.json`));
    const lines = meshes.flatMap((m) => m.listPrimitives()).filter((p) => p.getMode() === Primitive.Mode.LINES);
    expect(lines.length).toBe(s.graph.nodes.length + task.objects.length);
    // Z up -> Y up: glTF y is world z, glTF z is -world y (checked on the first cloud point)
    const first = points[0]!.getAttribute("POSITION")!.getElement(0, [0, 0, 0]);
    expect(first[0]).toBeCloseTo(cloud.xyz[0]!, 5);
    expect(first[1]).toBeCloseTo(cloud.xyz[2]!, 5);
    expect(first[2]).toBeCloseTo(-cloud.xyz[1]!, 5);
    const boxNode = doc
      .getRoot()
      .listNodes()
      .find((n) => n.getName().startsWith(`${s.graph.nodes[0]!.id} `))!;
    expect(boxNode.getExtras()).toMatchObject({ id: s.graph.nodes[0]!.id, label: s.graph.nodes[0]!.label });
    const ys = Array.from(boxNode.getMesh()!.listPrimitives()[0]!.getAttribute("POSITION")!.getArray()!).filter((_, i) => i % 3 === 1) as number[];
    const b = s.graph.nodes[0]!.box;
    expect(Math.max(...ys)).toBeCloseTo(b.centre[2] + b.extent[2] / 2, 4);
  });

  it("refuses to show points under a graph it cannot reproduce, naming the file and the first difference", () => {
    const copy = join(tmp, "tampered");
    cpSync(run, copy, { recursive: true });
    const file = join(copy, "graphs", TASK, "single__gt.json");
    const s = JSON.parse(readFileSync(file, "utf8"));
    s.graph.nodes[0].box.centre[0] += 0.05;
    writeFileSync(file, JSON.stringify(s));
    const r = esi3d(["inspect", copy, "--task", TASK, "--paradigm", "single", "--source", "gt", "-o", join(tmp, "t.html")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("single__gt.json");
    expect(r.stderr).toMatch(/differs from the stored one \(node n0: stored box/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("explains usage errors: an unknown task or source, an export of several graphs", () => {
    const cases: Array<[string[], RegExp]> = [
      [["inspect", run, "-o", join(tmp, "x.html"), "--task", "nope-000"], /--task nope-000: no such task .*counting_with_occlusion-000/],
      [
        ["inspect", run, "--task", TASK, "--source", "vggt"],
        /no graph for --source vggt \(this task has: single\/gt, single\/noisy, single\/gt-appearance, single\/noisy-appearance, multi\/gt, multi\/noisy, multi\/gt-appearance, multi\/noisy-appearance\)/,
      ],
      [["inspect", run, "--task", TASK, "--ply", join(tmp, "x.ply")], /export one graph: pass --paradigm and --source/],
    ];
    for (const [args, msg] of cases) {
      const r = esi3d(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });
});

describe("esi3d inspect BUNDLE", () => {
  it("still prints the node table, and writes a page for a bundle too", () => {
    const task = readTaskFile(join(run, "tasks", `${TASK}.json`));
    const { manifest, payloads } = captureBundle(task, "single");
    const b = join(tmp, "bundle");
    writeBundle(b, manifest, payloads);
    const t = esi3d(["inspect", b]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/node\s+label\s+status\s+true object/);
    const page = join(tmp, "bundle.html");
    const r = esi3d(["inspect", b, "--source", "noisy", "-o", page]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toContain('id="esi3d-variant-single__noisy"');
    expect(html).not.toMatch(/<script[^>]+src=|https?:\/\/cdn/i); // nothing loaded from elsewhere
    const s = esi3d(["inspect", b, "--serve"]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/--serve needs a run directory/);
  });
});

describe("esi3d inspect RUN_DIR --serve", () => {
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("serves an index of tasks by how wrong they are, each task's page, variant data and exports, on loopback", async () => {
    child = spawn(process.execPath, [CLI, "inspect", run, "--serve", "--port", "0"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 30_000);
      child!.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /at (http:\/\/\S+\/)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child!.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await (await fetch(url)).text();
    expect(index).toContain(`/task/${TASK}`);
    expect(index).toMatch(/most wrong first/);
    const page = await fetch(`${url}task/${TASK}?v=multi__noisy`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('"mode":"serve"');
    expect(html).toContain('"initial":"multi__noisy"');
    const v = await fetch(`${url}api/${TASK}/variant/multi__noisy`);
    expect(v.status).toBe(200);
    const variant = (await v.json()) as { graph: { nodes: unknown[] }; cloud: { count: number }; views: unknown[] };
    expect(variant.graph.nodes.length).toBe(stored(run, "multi", "noisy").graph.nodes.length);
    expect(variant.cloud.count).toBeGreaterThan(0);
    expect(variant.views.length).toBe(30);
    const glb = await fetch(`${url}api/${TASK}/export/multi__noisy.glb`);
    expect(glb.status).toBe(200);
    expect(glb.headers.get("content-type")).toBe("model/gltf-binary");
    expect(
      Buffer.from(await glb.arrayBuffer())
        .subarray(0, 4)
        .toString("latin1"),
    ).toBe("glTF");
    const missing = await fetch(`${url}task/nope-000`);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toMatch(/no such task/);
    // Ctrl-C stops it cleanly
    const exit = new Promise<number | null>((resolve) => child!.on("exit", (code) => resolve(code)));
    child.kill("SIGINT");
    expect(await exit).toBe(0);
    child = null;
  });
});
