/**
 * The service's bad-request corpus (issue 13): one table of malformed requests, each sent
 * over real HTTP to a real `esi3d serve` on loopback. Every row asserts the status, the documented error
 * body (`{"error": {"code", "message", "field"}}`, docs/protocol.md "Errors") with the field named, that no
 * stack trace appears, that the answer stays small, and that no server path shows. Raw-socket rows cover
 * what never reaches a route (oversized headers, ambiguous framing).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorBodySchema } from "../../../../src/apps/service/schemas.js";
import { http, smallTask, startServe, streamBundle, type Reply, type Serve } from "./helpers.js";

/** An error answer is a few hundred bytes: anything near this is echoing input (104 MB for 4 MiB). */
const MAX_ERROR_BODY_BYTES = 2048;
/** A stack frame as V8 prints it ("at fn (file.js:12:34)"). */
const STACK_FRAME = /\bat .*\.[cm]?[jt]s:\d+:\d+/;

const SID = "s-000000000000000000000000";
const BID = "b-000000000000000000000000";
const GID = "g-000000000000000000000000";
const RID = "r-000000000000000000000000";

interface Case {
  name: string;
  method: string;
  path: string;
  /** an object or string is sent as JSON (or `contentType`); a Buffer as-is */
  body?: unknown;
  contentType?: string;
  status: number;
  code: string;
  field: string | RegExp;
  /** headers the answer must carry */
  headers?: Record<string, RegExp>;
  /** send only the headers, declaring a body of this many bytes (a server must refuse it from the header) */
  declaredBytes?: number;
  /** what the message must say (the expected form) */
  message?: RegExp;
}

const bin = (n: number) => Buffer.alloc(n, 0x61);
const task = smallTask("spatial_distance", 0);

const CASES: Case[] = [
  // a binary body on a JSON route (H1): refused by media type, before any parsing
  {
    name: "octet-stream to POST /v1/graphs",
    method: "POST",
    path: "/v1/graphs",
    body: bin(64 * 1024),
    contentType: "application/octet-stream",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "octet-stream to POST /v1/runs",
    method: "POST",
    path: "/v1/runs",
    body: bin(4096),
    contentType: "application/octet-stream",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "octet-stream to POST /v1/answers",
    method: "POST",
    path: "/v1/answers",
    body: bin(4096),
    contentType: "application/octet-stream",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "view type to POST /v1/sim/sessions",
    method: "POST",
    path: "/v1/sim/sessions",
    body: bin(4096),
    contentType: "application/vnd.esi3d.view",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "octet-stream to PUT /v1/tasks/:id",
    method: "PUT",
    path: "/v1/tasks/t-1",
    body: bin(4096),
    contentType: "application/octet-stream",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "octet-stream to finish",
    method: "POST",
    path: `/v1/sim/sessions/${SID}/finish`,
    body: bin(4096),
    contentType: "application/octet-stream",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  // other media types on JSON routes
  {
    name: "JSON sent as text/plain",
    method: "POST",
    path: "/v1/graphs",
    body: JSON.stringify({ bundle: BID }),
    contentType: "text/plain",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "a form",
    method: "POST",
    path: "/v1/graphs",
    body: "bundle=b-1",
    contentType: "application/x-www-form-urlencoded",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "multipart",
    method: "POST",
    path: "/v1/answers",
    body: "--x\r\n\r\n--x--",
    contentType: "multipart/form-data; boundary=x",
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  {
    name: "JSON to the view upload",
    method: "PUT",
    path: `/v1/sim/sessions/${SID}/views/0`,
    body: { rgb: "x" },
    status: 415,
    code: "unsupported_media_type",
    field: "headers.content-type",
  },
  // JSON that is not an object
  { name: "an array body", method: "POST", path: "/v1/graphs", body: "[1,2,3]", status: 400, code: "invalid_request", field: "body" },
  { name: "a string body", method: "POST", path: "/v1/graphs", body: '"b-000000000000000000000000"', status: 400, code: "invalid_request", field: "body" },
  { name: "a number body", method: "POST", path: "/v1/runs", body: "42", status: 400, code: "invalid_request", field: "body" },
  { name: "a null body", method: "POST", path: "/v1/answers", body: "null", status: 400, code: "invalid_request", field: "body" },
  { name: "true as a task", method: "PUT", path: "/v1/tasks/t-1", body: "true", status: 400, code: "invalid_request", field: "body" },
  {
    name: "an array of 200k numbers",
    method: "POST",
    path: "/v1/sim/sessions",
    body: JSON.stringify(Array.from({ length: 200_000 }, (_, i) => i)),
    status: 400,
    code: "invalid_request",
    field: "body",
  },
  // objects the schema refuses: the answer stays bounded however many keys
  {
    name: "100k unknown keys",
    method: "POST",
    path: "/v1/graphs",
    body: JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))),
    status: 400,
    code: "invalid_request",
    field: /^body/,
  },
  {
    name: "a 100 kB string where an id goes",
    method: "POST",
    path: "/v1/graphs",
    body: { bundle: "x".repeat(100_000) },
    status: 400,
    code: "invalid_id",
    field: "body.bundle",
  },
  // JSON that does not parse
  { name: "not JSON", method: "POST", path: "/v1/graphs", body: "{not json", status: 400, code: "invalid_json", field: "body" },
  { name: "truncated JSON", method: "POST", path: "/v1/runs", body: '{"limit": 1', status: 400, code: "invalid_json", field: "body" },
  { name: "empty JSON body", method: "POST", path: "/v1/graphs", body: "", status: 400, code: "invalid_json", field: "body" },
  {
    name: "__proto__ key",
    method: "POST",
    path: "/v1/graphs",
    body: '{"bundle": "b-000000000000000000000000", "__proto__": {"x": 1}}',
    status: 400,
    code: "invalid_json",
    field: "body",
  },
  {
    name: "constructor.prototype key",
    method: "POST",
    path: "/v1/runs",
    body: '{"constructor": {"prototype": {"x": 1}}}',
    status: 400,
    code: "invalid_json",
    field: "body",
  },
  // too large
  { name: "5 MiB of JSON", method: "POST", path: "/v1/graphs", declaredBytes: 5 * 1024 * 1024, status: 413, code: "too_large", field: "body" },
  {
    name: "a 70 MiB view",
    method: "PUT",
    path: `/v1/sim/sessions/${SID}/views/0`,
    contentType: "application/vnd.esi3d.view",
    declaredBytes: 70 * 1024 * 1024,
    status: 413,
    code: "too_large",
    field: "body",
  },
  // routes that do not exist, methods a route does not have
  { name: "unknown path", method: "GET", path: "/nowhere", status: 404, code: "not_found", field: "path" },
  { name: "a misspelled resource", method: "GET", path: "/v1/graph/g-1", status: 404, code: "not_found", field: "path" },
  {
    name: "DELETE on the graph collection",
    method: "DELETE",
    path: "/v1/graphs",
    status: 405,
    code: "method_not_allowed",
    field: "method",
    headers: { allow: /^POST$/ },
  },
  {
    name: "GET on the graph collection",
    method: "GET",
    path: "/v1/graphs",
    status: 405,
    code: "method_not_allowed",
    field: "method",
    headers: { allow: /^POST$/ },
  },
  {
    name: "PATCH a task",
    method: "PATCH",
    path: "/v1/tasks/t-1",
    body: {},
    status: 405,
    code: "method_not_allowed",
    field: "method",
    headers: { allow: /^GET, (HEAD, )?PUT$/ },
  },
  { name: "POST /healthz", method: "POST", path: "/healthz", body: {}, status: 405, code: "method_not_allowed", field: "method", headers: { allow: /^GET/ } },
  // ids
  { name: "a 200-character graph id", method: "GET", path: `/v1/graphs/${"g".repeat(200)}`, status: 400, code: "invalid_id", field: "params.id" },
  { name: "a 5000-character task id", method: "GET", path: `/v1/tasks/${"t".repeat(5000)}`, status: 400, code: "invalid_id", field: "params.id" },
  { name: "an overlong UTF-8 '..'", method: "GET", path: "/v1/graphs/%C0%AE%C0%AE", status: 400, code: "invalid_url", field: "path" },
  { name: "encoded '..' as a task id", method: "GET", path: "/v1/tasks/%2e%2e", status: 400, code: "invalid_id", field: "params.id" },
  { name: "'../' in a task PUT", method: "PUT", path: "/v1/tasks/..%2Fx", body: {}, status: 400, code: "invalid_id", field: "params.id" },
  { name: "a traversal as bundle", method: "POST", path: "/v1/graphs", body: { bundle: "../../etc" }, status: 400, code: "invalid_id", field: "body.bundle" },
  {
    name: "a task_id '..'",
    method: "POST",
    path: "/v1/sim/sessions",
    body: { task_id: "..", paradigm: "gt", simulator: "t" },
    status: 400,
    code: "invalid_id",
    field: "body.task_id",
  },
  { name: "a run id of the wrong kind", method: "GET", path: `/v1/runs/${GID}`, status: 400, code: "invalid_id", field: "params.id" },
  {
    name: "a view index that is not a number",
    method: "PUT",
    path: `/v1/sim/sessions/${SID}/views/abc`,
    body: bin(32),
    contentType: "application/vnd.esi3d.view",
    status: 400,
    code: "invalid_request",
    field: "params.n",
  },
  // fields
  { name: "a missing bundle", method: "POST", path: "/v1/graphs", body: { bundle: BID }, status: 404, code: "not_found", field: "body.bundle" },
  { name: "a bad enum", method: "POST", path: "/v1/graphs", body: { bundle: BID, masks: "pixels" }, status: 400, code: "invalid_request", field: "body.masks" },
  { name: "a server path as suite", method: "POST", path: "/v1/runs", body: { suite: "/etc" }, status: 400, code: "invalid_request", field: "body.suite" },
  {
    name: "a base URL from a client",
    method: "POST",
    path: "/v1/runs",
    body: { llm: { baseUrl: "http://elsewhere.example/v1" } },
    status: 400,
    code: "invalid_request",
    field: "body.llm.baseUrl",
  },
  {
    name: "an unknown reasoner",
    method: "POST",
    path: "/v1/answers",
    body: { graph: GID, reasoner: "claude:x" },
    status: 400,
    code: "invalid_request",
    field: "body.reasoner",
  },
  { name: "items of an unknown run", method: "GET", path: `/v1/runs/${RID}/items?limit=abc`, status: 404, code: "not_found", field: "params.id" },
  {
    name: "a task whose id differs from the path",
    method: "PUT",
    path: "/v1/tasks/other-id",
    body: task,
    status: 400,
    code: "invalid_request",
    field: "body.task_id",
  },
  {
    name: "a session with both task and task_id",
    method: "POST",
    path: "/v1/sim/sessions",
    body: { task, task_id: task.task_id, paradigm: "gt", simulator: "t" },
    status: 400,
    code: "invalid_request",
    field: "body.task",
  },
  { name: "an unknown session", method: "GET", path: `/v1/sim/sessions/${SID}`, status: 404, code: "not_found", field: "params.id" },
  // the active paradigm's options (docs/active.md): each names its field and the expected form
  {
    name: "active: maxSteps 0",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], maxSteps: 0 },
    status: 400,
    code: "invalid_request",
    field: "body.maxSteps",
    message: /body\.maxSteps: .*>=1/,
  },
  {
    name: "active: maxSteps 501",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], maxSteps: 501 },
    status: 400,
    code: "invalid_request",
    field: "body.maxSteps",
    message: /body\.maxSteps: .*<=500/,
  },
  {
    name: "active: threshold 1.5",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], threshold: 1.5 },
    status: 400,
    code: "invalid_request",
    field: "body.threshold",
    message: /body\.threshold: .*<=1/,
  },
  {
    name: "active: threshold -0.1",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], threshold: -0.1 },
    status: 400,
    code: "invalid_request",
    field: "body.threshold",
    message: /body\.threshold: .*>=0/,
  },
  {
    name: "active: minSteps 1.5",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], minSteps: 1.5 },
    status: 400,
    code: "invalid_request",
    field: "body.minSteps",
    message: /body\.minSteps: .*expected int/,
  },
  {
    name: "active: an explorer that does not exist",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], explorer: "greedy" },
    status: 400,
    code: "invalid_request",
    field: "body.explorer",
    message: /body\.explorer: .*"nbv"\|"verify"\|"random"/,
  },
  {
    name: "active: an invalid-action policy that does not exist",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active"], invalidAction: "skip" },
    status: 400,
    code: "invalid_request",
    field: "body.invalidAction",
    message: /body\.invalidAction: .*"reprompt"\|"forward"/,
  },
  {
    name: "active: a paradigm that does not exist",
    method: "POST",
    path: "/v1/runs",
    body: { paradigms: ["active", "passive"] },
    status: 400,
    code: "invalid_request",
    field: "body.paradigms.1",
    message: /"active"/,
  },
  // issue 43: one client cannot take the only run slot with an enormous run; DELETE cancels a run
  {
    name: "a run of perSubcategory 10000 (290,000 tasks: 29 subcategories)",
    method: "POST",
    path: "/v1/runs",
    body: { perSubcategory: 10000 },
    status: 400,
    code: "invalid_request",
    field: "body.perSubcategory",
    message: /body\.perSubcategory: this run would plan 290000 tasks .*at most 1000/,
  },
  {
    name: "a run of perSubcategory 10000 and limit 1e9",
    method: "POST",
    path: "/v1/runs",
    body: { perSubcategory: 10000, limit: 1_000_000_000 },
    status: 400,
    code: "invalid_request",
    field: "body.limit",
    message: /body\.limit: .*at most 1000: set limit/,
  },
  {
    name: "a run of 20 noise levels (38,280 items)",
    method: "POST",
    path: "/v1/runs",
    body: { sources: ["gt", "noisy"], noiseLevels: Array.from({ length: 20 }, (_, i) => i * 0.15) },
    status: 400,
    code: "invalid_request",
    field: "body",
    message: /body: this run would plan 38280 items .*at most 20000/,
  },
  {
    name: "a run naming a subcategory twice",
    method: "POST",
    path: "/v1/runs",
    body: { subcategories: ["spatial_distance", "spatial_distance"] },
    status: 400,
    code: "invalid_request",
    field: "body.subcategories",
    message: /named twice/,
  },
  { name: "DELETE an unknown run", method: "DELETE", path: `/v1/runs/${RID}`, status: 404, code: "not_found", field: "params.id" },
  { name: "DELETE a run id of the wrong kind", method: "DELETE", path: `/v1/runs/${GID}`, status: 400, code: "invalid_id", field: "params.id" },
  { name: "DELETE a run id with a traversal", method: "DELETE", path: "/v1/runs/..%2F..%2Fetc", status: 400, code: "invalid_id", field: "params.id" },
  {
    name: "DELETE on the run collection",
    method: "DELETE",
    path: "/v1/runs",
    status: 405,
    code: "method_not_allowed",
    field: "method",
    headers: { allow: /POST/ },
  },
  {
    name: "a task whose trajectory has an unknown action",
    method: "PUT",
    path: `/v1/tasks/${task.task_id}`,
    body: { ...task, action_trajectory: ["turn_left", "fly"] },
    status: 400,
    code: "invalid_request",
    field: "body.action_trajectory.1",
    message: /"fly" is not one of the actions \(move_forward, .*turn_down, pick_up/,
  },
];

/** What every error answer must be: small, the documented shape, a field, no stack, no server path. */
function expectDocumentedError(r: Reply, c: { status: number; code: string; field: string | RegExp }, data: string, what: string): void {
  expect(r.status, `${what}: ${r.text.slice(0, 300)}`).toBe(c.status);
  expect(Buffer.byteLength(r.text), what).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
  expect(r.headers["content-type"], what).toMatch(/^application\/json/);
  expect(Object.keys(r.body ?? {}), what).toEqual(["error"]);
  expect(ErrorBodySchema.safeParse(r.body).success, what).toBe(true);
  const e = r.body.error;
  expect(e.code, what).toBe(c.code);
  expect(typeof e.message, what).toBe("string");
  expect(e.message.length, what).toBeGreaterThan(0);
  if (typeof c.field === "string") expect(e.field, what).toBe(c.field);
  else expect(e.field, what).toMatch(c.field);
  expect(r.text, what).not.toMatch(STACK_FRAME);
  expect(r.text, what).not.toContain(data);
}

/** Sends `raw` on a fresh connection and returns status, headers and body of the answer. */
function rawRequest(port: number, raw: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    sock.on("data", (c) => chunks.push(c));
    sock.on("error", reject);
    sock.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head, ...rest] = text.split("\r\n\r\n");
      const lines = head!.split("\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const bodyText = rest.join("\r\n\r\n");
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      resolve({ status, headers, body, text: bodyText });
    });
    sock.write(raw);
    setTimeout(() => sock.end(), 2000).unref();
  });
}

describe("esi3d serve: the bad-request corpus", () => {
  let s: Serve;
  beforeAll(async () => {
    s = await startServe(["--cpu-jobs", "1"]);
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it(`answers each of ${CASES.length} malformed requests with the documented error body`, async () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    const failures: string[] = [];
    for (const c of CASES) {
      const r =
        c.declaredBytes === undefined
          ? await http(c.method, `${s.url}${c.path}`, c.body, { contentType: c.contentType })
          : await rawRequest(
              s.port,
              `${c.method} ${c.path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${c.contentType ?? "application/json"}\r\nContent-Length: ${c.declaredBytes}\r\n\r\n`,
            );
      try {
        expectDocumentedError(r, c, s.data, c.name);
        if (c.message) expect(r.body.error.message, c.name).toMatch(c.message);
        for (const [h, re] of Object.entries(c.headers ?? {})) expect(String(r.headers[h]), `${c.name}: header ${h}`).toMatch(re);
      } catch (e) {
        failures.push(`${c.name}: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    expect(failures, failures.join("\n")).toEqual([]);
  });

  it("answers requests that never reach a route (oversized headers, ambiguous framing) with the documented error body", async () => {
    const big = await rawRequest(s.port, `GET /v1/runs HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`);
    expectDocumentedError(big, { status: 431, code: "headers_too_large", field: "headers" }, s.data, "oversized headers");
    const smuggled = await rawRequest(
      s.port,
      `POST /v1/graphs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    );
    expectDocumentedError(smuggled, { status: 400, code: "bad_request", field: "headers" }, s.data, "Content-Length with Transfer-Encoding");
  });

  it("a 4 MiB binary body to a JSON route is refused at once with a small answer", async () => {
    const body = bin(4_000_000);
    const t = performance.now();
    const r = await http("POST", `${s.url}/v1/graphs`, body, { contentType: "application/octet-stream" });
    const ms = performance.now() - t;
    expectDocumentedError(r, { status: 415, code: "unsupported_media_type", field: "headers.content-type" }, s.data, "4 MiB binary");
    // before the fix: 400 after 5-7 s here (zod walking 4 million keys); the media type is checked before the body is parsed
    expect(ms).toBeLessThan(1500);
    const h = await http("GET", `${s.url}/healthz`);
    expect(h.status).toBe(200);
  });

  it("shows no server path in errors about stored data", async () => {
    const bid = await streamBundle(s.url, smallTask("spatial_distance", 1), "single");
    const manifest = join(s.data, "bundles", bid, "bundle.json");
    const m = JSON.parse(readFileSync(manifest, "utf8"));
    writeFileSync(
      manifest,
      JSON.stringify({
        ...m,
        views: [
          {
            ...m.views[0],
            extrinsic: [
              [2, 0, 0, 0],
              [0, 1, 0, 0],
              [0, 0, 1, 0],
            ],
          },
        ],
      }),
    );
    const b = await http("GET", `${s.url}/v1/bundles/${bid}`);
    expectDocumentedError(b, { status: 400, code: "invalid_bundle", field: "views.0.extrinsic" }, s.data, "GET a damaged bundle");
    const g = await http("POST", `${s.url}/v1/graphs`, { bundle: bid });
    expectDocumentedError(g, { status: 400, code: "invalid_bundle", field: "views.0.extrinsic" }, s.data, "graph of a damaged bundle");
  });
});

describe("esi3d serve: the server's model endpoint stays private", () => {
  const SECRET_BASE = "http://127.0.0.1:9/private-endpoint-path/v1";
  let s: Serve;
  beforeAll(async () => {
    s = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: "sk-test-not-a-key", OPENAI_BASE_URL: SECRET_BASE } });
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("does not show OPENAI_BASE_URL in a failed answer", async () => {
    const bid = await streamBundle(s.url, smallTask("spatial_distance", 2), "single");
    const r = await http("POST", `${s.url}/v1/answers`, { bundle: bid, reasoner: "openai:test-model", maxRetries: 0, timeoutMs: 2000 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.status).toBe("error");
    expect(typeof r.body.reason).toBe("string");
    expect(r.text).not.toContain("private-endpoint-path");
    expect(r.text).not.toContain("127.0.0.1:9");
  });
});
