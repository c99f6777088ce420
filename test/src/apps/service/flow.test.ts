/**
 * The service end to end over real HTTP on loopback (the built CLI's `esi3d serve`): capture -> bundle ->
 * graph -> answer, runs polled to completion and paged, and a SIGKILLed server restarting with its data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readBundle } from "../../../../core/bundle/io.js";
import { esi3d } from "../cli/helpers.js";
import { GraphRequestSchema, SessionOpenSchema } from "../../../../src/apps/service/schemas.js";
import { openaiReply, startServer as startFakeLlm, type TestServer } from "../../llm/server.js";
import { captureUploads, http, poll, smallTask, startServe, streamBundle, tempDir, type Serve } from "./helpers.js";

const LLM_KEY = "sk-served-answers-test-key";
const TASK = smallTask("spatial_distance", 0);

/** A graph or diagnosis without its wall-clock timings (the only part that differs between two builds). */
function untimed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(untimed);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "timings_ms")
        .map(([k, x]) => [k, untimed(x)]),
    );
  return v;
}

describe("esi3d serve: capture -> graph -> answer", () => {
  let s: Serve;
  let llm: TestServer;
  beforeAll(async () => {
    llm = await startFakeLlm(openaiReply(JSON.stringify({ answer: TASK.options[0], confidence: 0.7 })));
    s = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: LLM_KEY, OPENAI_BASE_URL: `${llm.url}/v1` } });
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
    await llm.close();
  });

  it("streams a session view by view into a bundle, builds its graph as `esi3d graph` does, and answers over it", async () => {
    const task = TASK;
    const { manifest, open, views } = captureUploads(task, "gt");
    expect(views.length).toBeGreaterThan(1);
    const o = await http("POST", `${s.url}/v1/sim/sessions`, open);
    expect(o.status, o.text).toBe(201);
    expect(o.body).toMatchObject({ status: "open", task_id: task.task_id, paradigm: "gt", views: [], bundle: null });
    const sid = o.body.id as string;
    expect(sid).toMatch(/^s-[0-9a-f]{24}$/);
    for (const v of views) {
      const r = await http("PUT", `${s.url}/v1/sim/sessions/${sid}/views/${v.n}`, v.body);
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ session: sid, view: v.n, views: v.n + 1 });
    }
    // re-uploading a view replaces it (a client retrying after a lost answer)
    const again = await http("PUT", `${s.url}/v1/sim/sessions/${sid}/views/0`, views[0]!.body);
    expect(again.status).toBe(200);
    const st = await http("GET", `${s.url}/v1/sim/sessions/${sid}`);
    expect(st.body.views).toEqual(views.map((v) => v.n));
    expect(readdirSync(join(s.data, "bundles")).filter((n) => !n.startsWith("."))).toEqual([]); // nothing before finish

    const f = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`, { views: views.length });
    expect(f.status, f.text).toBe(201);
    const bid = f.body.bundle as string;
    expect(f.body).toMatchObject({ session: sid, task_id: task.task_id, paradigm: "gt", views: views.length });
    // finishing is idempotent; uploads after it are refused
    expect((await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`)).body.bundle).toBe(bid);
    expect((await http("PUT", `${s.url}/v1/sim/sessions/${sid}/views/0`, views[0]!.body)).status).toBe(409);
    const bundleDir = join(s.data, "bundles", bid);
    const read = readBundle(bundleDir);
    expect(read.views.length).toBe(views.length);
    const b = await http("GET", `${s.url}/v1/bundles/${bid}`);
    expect(b.status).toBe(200);
    expect(b.body.manifest).toEqual(JSON.parse(JSON.stringify(manifest)));

    // graph: same options and result as the CLI
    const g = await http("POST", `${s.url}/v1/graphs`, { bundle: bid });
    expect(g.status, g.text).toBe(201);
    expect(g.body).toMatchObject({ bundle: bid, cached: false, options: { source: "gt", masks: "instance", instances: "fusion" } });
    expect(g.body.nodes).toBeGreaterThanOrEqual(3);
    const gid = g.body.id as string;
    const g2 = await http("POST", `${s.url}/v1/graphs`, { bundle: bid, source: "gt", noiseLevel: 0.9 }); // noise options do not change a gt graph
    expect(g2.status).toBe(200);
    expect(g2.body).toMatchObject({ id: gid, cached: true });
    const served = await http("GET", `${s.url}/v1/graphs/${gid}`);
    expect(served.status).toBe(200);
    expect(served.body.graph.format).toBe("esi3d-graph/1");
    const cliOut = join(tempDir("cli-graph"), "g.json");
    const cli = esi3d(["graph", bundleDir, "-o", cliOut, "--diagnosis", `${cliOut}.diag.json`]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(untimed(served.body.graph)).toEqual(untimed(JSON.parse(readFileSync(cliOut, "utf8"))));
    const d = await http("GET", `${s.url}/v1/graphs/${gid}/diagnosis`);
    expect(d.status).toBe(200);
    expect(untimed(d.body.diagnosis)).toEqual(untimed(JSON.parse(readFileSync(`${cliOut}.diag.json`, "utf8"))));
    const noisy = await http("POST", `${s.url}/v1/graphs`, { bundle: bid, source: "noisy", noiseLevel: 0.8, noiseSeed: "7" });
    expect(noisy.status, noisy.text).toBe(201);
    expect(noisy.body.id).not.toBe(gid);

    // answers: the graph oracle, the 2D baseline, and an LLM whose key and URL come from the server's environment
    const a = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "symbolic" });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toMatchObject({ reasoner: "symbolic", task_id: task.task_id, graph: gid, bundle: bid, status: "parsed", truth: task.answer });
    expect(task.options).toContain(a.body.answer);
    expect(typeof a.body.correct).toBe("boolean");
    const viaBundle = await http("POST", `${s.url}/v1/answers`, { bundle: bid, reasoner: "symbolic" });
    expect(viaBundle.body.graph).toBe(gid); // the stored graph with the default options
    const a2d = await http("POST", `${s.url}/v1/answers`, { bundle: bid, reasoner: "symbolic-2d" });
    expect(a2d.status, a2d.text).toBe(200);
    expect(a2d.body).toMatchObject({ reasoner: "symbolic-2d", graph: null, status: "parsed" });
    const q = await http("POST", `${s.url}/v1/answers`, {
      graph: gid,
      reasoner: "openai:served-model",
      question: "Which kettle is nearer to the shelf?",
      cache: false,
    });
    expect(q.status, q.text).toBe(200);
    expect(q.body).toMatchObject({
      status: "parsed",
      answer: task.options[0],
      confidence: 0.7,
      question: "Which kettle is nearer to the shelf?",
      correct: null,
    });
    expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    // circular: one call per rotation of the options, right only if every rotation is; the answer matched by its text
    const calls = llm.requests.length,
      k = task.options.length;
    const circ = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "openai:served-model", circular: true, cache: false });
    expect(circ.status, circ.text).toBe(200);
    expect(llm.requests.length - calls).toBe(k);
    expect(circ.body).toMatchObject({
      status: "parsed",
      answer: task.options[0],
      match: "text",
      correct: task.options[0] === task.answer,
      circular: { rotations: k, answers: Array(k).fill(task.options[0]), correct: Array(k).fill(task.options[0] === task.answer) },
    });
    // an offline program goes through the same wrapper in the service's worker
    const shortcut = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "shortcut", circular: true });
    expect(shortcut.status, shortcut.text).toBe(200);
    expect(shortcut.body.circular).toMatchObject({ rotations: k });
    // lettered options: the prompt letters them, and a reply giving the option's text is still read by its text
    const letter = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "openai:served-model", optionLabels: "letters", cache: false });
    expect(letter.body).toMatchObject({ status: "parsed", answer: task.options[0], match: "text", circular: null });
    expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain(`A. ${task.options[0]}`);
    const steer = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "openai:served-model", baseUrl: "http://127.0.0.1:9/v1" });
    expect(steer.status).toBe(400);
    expect(steer.body.error.message).toMatch(/baseUrl/);
    const badReasoner = await http("POST", `${s.url}/v1/answers`, { graph: gid, reasoner: "oracle" });
    expect(badReasoner.status).toBe(400);
    expect(badReasoner.body.error.field).toBe("body.reasoner");

    // the OpenAPI document is generated from the same zod schemas
    const api = await http("GET", `${s.url}/openapi.json`);
    expect(api.status).toBe(200);
    expect(api.body.openapi).toBe("3.1.0");
    const schemaOf = (p: string) => api.body.paths[p].post.requestBody.content["application/json"].schema;
    expect(schemaOf("/v1/graphs")).toEqual(z.toJSONSchema(GraphRequestSchema, { io: "input", unrepresentable: "any" }));
    expect(schemaOf("/v1/sim/sessions")).toEqual(z.toJSONSchema(SessionOpenSchema, { io: "input", unrepresentable: "any" }));
    for (const p of ["/v1/sim/sessions/{id}/views/{n}", "/v1/graphs/{id}/diagnosis", "/v1/answers", "/v1/runs/{id}/items", "/healthz", "/metrics"])
      expect(api.body.paths[p], p).toBeDefined();

    const m = await http("GET", `${s.url}/metrics`);
    expect(m.status).toBe(200);
    expect(m.headers["content-type"]).toMatch(/^text\/plain/);
    expect(m.text).toMatch(/esi3d_http_requests_total\{method="POST",route="\/v1\/graphs",status="201"\} 2/);
    expect(m.text).toMatch(/esi3d_http_request_duration_seconds_bucket\{route="\/v1\/graphs",le="\+Inf"\} \d+/);
    expect(m.text).toMatch(/esi3d_stage_duration_seconds_count\{stage="graph"\} 2/);
    expect(m.text).toMatch(/esi3d_stage_duration_seconds_count\{stage="finish"\} 1/);
    expect(m.text).toMatch(/esi3d_cpu_jobs_queued 0/);
    expect(m.text).toMatch(/esi3d_cpu_jobs_in_flight 0/);
  });

  it("runs an evaluation in the background, reports progress and pages its items", async () => {
    // a body takes each stage's options in its object (noise), or in the flat form of earlier versions (format, migrated)
    const start = await http("POST", `${s.url}/v1/runs`, {
      subcategories: ["linear_alignment"],
      perSubcategory: 1,
      paradigms: ["single"],
      sources: ["gt"],
      concurrency: 1,
      noise: { noiseSeed: "7" },
      format: "json",
    });
    expect(start.status, start.text).toBe(202);
    expect(start.body).toMatchObject({
      status: "running",
      config: { subcategories: ["linear_alignment"], sources: ["gt"], reasoner: ["symbolic"], noise: { noiseSeed: "7" }, prompt: { format: "json" } },
    });
    const rid = start.body.id as string;
    const done = await poll(
      () => http("GET", `${s.url}/v1/runs/${rid}`),
      (r) => r.body.status !== "running",
      90_000,
      200,
    );
    expect(done.body.status, JSON.stringify(done.body.error)).toBe("finished");
    expect(done.body.progress).toEqual({ done: 4, total: 4 }); // one task x one paradigm x (gt, gt-appearance, 2d, shortcut)
    expect(done.body.summary.items).toBe(4);
    const p1 = await http("GET", `${s.url}/v1/runs/${rid}/items?offset=0&limit=1`);
    expect(p1.body).toMatchObject({ offset: 0, limit: 1, total: 4 });
    expect(p1.body.items.length).toBe(1);
    const p2 = await http("GET", `${s.url}/v1/runs/${rid}/items?offset=1&limit=10`);
    expect(p2.body.items.length).toBe(3);
    expect(new Set([p1.body.items[0].key, p2.body.items[0].key]).size).toBe(2);
    expect((await http("GET", `${s.url}/v1/runs/${rid}/items?limit=5000`)).body.error.field).toBe("query.limit");
    expect((await http("GET", `${s.url}/v1/runs/${rid}/items?offset=-1`)).body.error.field).toBe("query.offset");
    expect((await http("GET", `${s.url}/v1/runs`)).body.runs.map((r: { id: string }) => r.id)).toContain(rid);
    // the configuration is validated by RunConfigSchema / resolveRunConfig, and server paths are not the client's
    const bad = async (body: unknown, field: string) => {
      const r = await http("POST", `${s.url}/v1/runs`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field).toBe(field);
    };
    await bad({ sources: ["bogus"] }, "body.sources.0");
    await bad({ perSubcategory: 0 }, "body.perSubcategory");
    await bad({ noise: { noiseLevel: 3.5 } }, "body.noise.noiseLevel");
    await bad({ noiseLevel: 3.5 }, "body.noiseLevel"); // named where the client wrote it
    await bad({ noiseLevel: 1, noise: { noiseLevel: 2 } }, "body.noise.noiseLevel");
    await bad({ suite: "/etc" }, "body.suite");
    await bad({ llm: { baseUrl: "http://elsewhere.example/v1" } }, "body.llm.baseUrl");
    await bad({ llm: { cachePath: "/tmp/x.sqlite" } }, "body.llm.cachePath");
    await bad({ vggt: { modelPath: "/tmp/x.onnx" } }, "body.vggt.modelPath");
    await bad({ nonsense: 1 }, "body");
    await bad({ concurrency: 10_000 }, "body.concurrency");
  });
});

describe("esi3d serve: state survives SIGKILL", () => {
  it("serves finished bundles, graphs and runs after a restart; reports a run cut short as interrupted and resumes it", async () => {
    const a = await startServe(["--cpu-jobs", "1"]);
    const bid = await streamBundle(a.url, smallTask("physical_contact", 0), "single");
    const g = await http("POST", `${a.url}/v1/graphs`, { bundle: bid });
    expect(g.status).toBe(201);
    const graphBefore = (await http("GET", `${a.url}/v1/graphs/${g.body.id}`)).body;
    // an unfinished session: it must never become a bundle
    const task = smallTask("physical_contact", 1);
    const { open, views } = captureUploads(task, "gt");
    const sid = (await http("POST", `${a.url}/v1/sim/sessions`, open)).body.id as string;
    expect((await http("PUT", `${a.url}/v1/sim/sessions/${sid}/views/0`, views[0]!.body)).status).toBe(201);
    // a run long enough to be killed in the middle
    const r = await http("POST", `${a.url}/v1/runs`, {
      subcategories: ["linear_alignment"],
      perSubcategory: 4,
      paradigms: ["single"],
      sources: ["gt"],
      baseline: "none",
      concurrency: 1,
    });
    expect(r.status, r.text).toBe(202);
    const rid = r.body.id as string;
    const ARMS_ITEMS = 8; // 4 tasks x (gt, gt-appearance)
    await poll(
      () => http("GET", `${a.url}/v1/runs/${rid}`),
      (x) => x.body.progress.done >= 1,
      90_000,
      25,
    );
    await a.kill();

    const b = await startServe(["--cpu-jobs", "1"], { data: a.data });
    try {
      const bundle = await http("GET", `${b.url}/v1/bundles/${bid}`);
      expect(bundle.status).toBe(200);
      expect((await http("GET", `${b.url}/v1/graphs/${g.body.id}`)).body).toEqual(graphBefore);
      expect((await http("POST", `${b.url}/v1/graphs`, { bundle: bid })).body).toMatchObject({ id: g.body.id, cached: true });
      const sess = await http("GET", `${b.url}/v1/sim/sessions/${sid}`);
      expect(sess.body).toMatchObject({ status: "open", views: [0], bundle: null });
      expect(readdirSync(join(a.data, "bundles"))).toEqual([bid]);
      expect(b.stderr()).toMatch(/1 run\(s\) left running by a previous server are now 'interrupted'/);
      const cut = await http("GET", `${b.url}/v1/runs/${rid}`);
      expect(cut.body.status).toBe("interrupted");
      expect(cut.body.progress.total).toBe(ARMS_ITEMS);
      expect(cut.body.progress.done).toBeLessThan(ARMS_ITEMS);
      expect(cut.body.error).toMatch(/resume/);
      const res = await http("POST", `${b.url}/v1/runs/${rid}/resume`);
      expect(res.status, res.text).toBe(202);
      expect((await http("POST", `${b.url}/v1/runs/${rid}/resume`)).status).toBe(409); // already running
      const fin = await poll(
        () => http("GET", `${b.url}/v1/runs/${rid}`),
        (x) => x.body.status !== "running",
        90_000,
        200,
      );
      expect(fin.body.status, JSON.stringify(fin.body.error)).toBe("finished");
      expect(fin.body.progress).toEqual({ done: ARMS_ITEMS, total: ARMS_ITEMS });
      const items = (await http("GET", `${b.url}/v1/runs/${rid}/items`)).body.items as Array<{ key: string }>;
      expect(new Set(items.map((i) => i.key)).size).toBe(ARMS_ITEMS);
      expect(existsSync(join(a.data, "runs", rid, "summary.json"))).toBe(true);
    } finally {
      expect(await b.stop()).toBe(0);
    }
    expect(existsSync(join(a.data, "server.lock"))).toBe(false);
  });
});
