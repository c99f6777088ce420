/**
 * What the service refuses: starting off loopback without a token, requests without a valid token,
 * oversize and malformed uploads (nothing written), and ids that try to leave the data directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import zlib from "node:zlib";
import { encodePng } from "../../../../core/bundle/png.js";
import { JSON_BODY_LIMIT_BYTES, VIEW_BODY_LIMIT_BYTES } from "../../../../src/apps/service/limits.js";
import { encodeView, VIEW_CONTENT_TYPE } from "../../../../src/apps/service/viewCodec.js";
import { captureUploads, headersOnly, http, serveExit, smallTask, startServe, type Serve } from "./helpers.js";

const TOKEN = "test-token-0123456789abcdef";

/** A 16-bit greyscale PNG that declares W x H but carries the data of a W x (H * factor) image. */
function inflatingPng(W: number, H: number, factor: number): Buffer {
  const png = encodePng(W, H * factor, 1, 16, new Uint16Array(W * H * factor));
  png.writeUInt32BE(H, 20); // IHDR height
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)) >>> 0, 29); // IHDR CRC over type + data
  return png;
}

describe("esi3d serve: authentication", () => {
  it("refuses to bind off loopback without a token (exit 2, clear message)", async () => {
    const r = await serveExit(["--host", "0.0.0.0"], { ESI3D_TOKEN: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0: binding to an address other machines can reach requires --token/);
    const short = await serveExit(["--host", "0.0.0.0", "--token", "short"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--token: at least 16 characters/);
  });

  it("off loopback with a token: every endpoint but /healthz needs the bearer token", async () => {
    const s = await startServe(["--host", "0.0.0.0", "--token", TOKEN]);
    try {
      expect((await http("GET", `${s.url}/healthz`)).status).toBe(200);
      for (const [method, path] of [
        ["GET", "/v1/runs"],
        ["GET", "/metrics"],
        ["GET", "/openapi.json"],
        ["POST", "/v1/graphs"],
        ["PUT", "/v1/sim/sessions/s-000000000000000000000000/views/0"],
        ["GET", "/nowhere"],
      ] as const) {
        const none = await http(method, `${s.url}${path}`);
        expect(none.status, `${method} ${path}`).toBe(401);
        expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(none.body.error.code).toBe("unauthorized");
        const bad = await http(method, `${s.url}${path}`, undefined, { token: `${TOKEN}x` });
        expect(bad.status, `${method} ${path}`).toBe(401);
        expect(bad.body.error.message).toMatch(/not valid/);
      }
      expect((await http("GET", `${s.url}/v1/runs`, undefined, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
      const ok = await http("GET", `${s.url}/v1/runs`, undefined, { token: TOKEN });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ runs: [] });
      expect((await http("GET", `${s.url}/metrics`, undefined, { token: TOKEN })).status).toBe(200);
      // the token is never echoed back
      expect(JSON.stringify((await http("GET", `${s.url}/v1/runs`, undefined, { token: `${TOKEN}x` })).body)).not.toContain(TOKEN);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe("esi3d serve: bad input", () => {
  let s: Serve;
  beforeAll(async () => {
    s = await startServe(["--cpu-jobs", "1"]);
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  const bundles = () => readdirSync(join(s.data, "bundles"));

  it("rejects oversize and malformed uploads with 4xx naming the view and field, writing nothing", async () => {
    const task = smallTask("linear_alignment", 0);
    const { open, views, manifest } = captureUploads(task, "gt");
    const sid = (await http("POST", `${s.url}/v1/sim/sessions`, open)).body.id as string;
    const put = (n: number | string, body: unknown, contentType?: string) => http("PUT", `${s.url}/v1/sim/sessions/${sid}/views/${n}`, body, { contentType });
    const sessionViews = () => readdirSync(join(s.data, "sessions", sid, "views"));

    // too large: refused from the Content-Length header alone, before any byte of the body
    const big = await headersOnly("PUT", `${s.url}/v1/sim/sessions/${sid}/views/0`, VIEW_BODY_LIMIT_BYTES + 1, VIEW_CONTENT_TYPE);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe("too_large");
    const bigJson = await headersOnly("POST", `${s.url}/v1/sim/sessions`, JSON_BODY_LIMIT_BYTES + 1, "application/json");
    expect(bigJson.status).toBe(413);

    const { width: W, height: H } = manifest.image;
    const v = manifest.views[0]!;
    const rgb = encodePng(W, H, 3, 8, new Uint8Array(W * H * 3));
    const depth = Buffer.alloc(W * H * 4);
    const ids = encodePng(W, H, 1, 16, new Uint16Array(W * H));
    const cam = { intrinsics: v.intrinsics, extrinsic: v.extrinsic, action: null };
    const expect400 = async (body: Buffer, field: RegExp, message: RegExp) => {
      const r = await put(0, body);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.field).toMatch(field);
      expect(r.body.error.message).toMatch(message);
      expect(r.text).not.toMatch(/at .*\.js:\d+/); // no stack trace
    };
    await expect400(Buffer.from("not a view"), /^views\.0\.layout$/, /preamble/);
    const good = encodeView(cam, rgb, depth, ids);
    const wrongMagic = Buffer.from(good);
    wrongMagic.write("ESI3DVW9", 0, "ascii");
    await expect400(wrongMagic, /^views\.0\.layout$/, /magic/);
    await expect400(good.subarray(0, good.length - 1), /^views\.0\.layout$/, /declares .* bytes, the body has/);
    await expect400(
      encodeView(
        {
          ...cam,
          extrinsic: [
            [2, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
          ],
        },
        rgb,
        depth,
        ids,
      ),
      /^views\.0\.extrinsic$/,
      /orthonormal/,
    );
    await expect400(encodeView({ ...cam, intrinsics: { ...cam.intrinsics, fx: -1 } }, rgb, depth, ids), /^views\.0\.intrinsics\.fx$/, /./);
    await expect400(encodeView({ ...cam, intrinsics: { ...cam.intrinsics, cx: 10 * W } }, rgb, depth, ids), /^views\.0\.intrinsics$/, /principal point/);
    await expect400(encodeView({ intrinsics: cam.intrinsics, action: null } as never, rgb, depth, ids), /^views\.0\.extrinsic$/, /./);
    await expect400(
      encodeView(cam, encodePng(W + 1, H, 3, 8, new Uint8Array((W + 1) * H * 3)), depth, ids),
      /^views\.0\.rgb$/,
      new RegExp(`expected ${W}x${H}`),
    );
    await expect400(encodeView(cam, Buffer.from("GIF89a........................"), depth, ids), /^views\.0\.rgb$/, /not a PNG/);
    await expect400(encodeView(cam, rgb, depth.subarray(4), ids), /^views\.0\.depth$/, /bytes, expected/);
    await expect400(encodeView(cam, rgb, depth, rgb), /^views\.0\.instances$/, /greyscale/);
    const badHeader = Buffer.from(good);
    badHeader.write("{", 24, "utf8");
    badHeader.write("!", 25, "utf8");
    await expect400(badHeader, /^views\.0\.header$/, /not valid JSON/);
    expect((await put(0, { json: "instead" })).status).toBe(415);
    expect((await put("64", good)).body.error.field).toBe("params.n");
    expect((await put("-1", good)).body.error.field).toBe("params.n");
    expect(sessionViews()).toEqual([]);

    // pixels are checked at finish: an id missing from the instances table fails it, naming the view
    const foreign = new Uint16Array(W * H);
    foreign[5] = 999;
    expect((await put(0, views[0]!.body)).status).toBe(201);
    expect((await put(1, encodeView(cam, rgb, depth, encodePng(W, H, 1, 16, foreign)))).status).toBe(201);
    const f = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`);
    expect(f.status).toBe(400);
    expect(f.body.error.field).toBe("views.1.instances");
    expect(f.body.error.message).toMatch(/pixel \(5, 0\) has id 999/);
    // a corrupt PNG body behind a valid header fails at finish too
    const corrupt = Buffer.from(views[1]!.body);
    corrupt[corrupt.length - 30]! ^= 0xff;
    expect((await put(1, corrupt)).status).toBe(200); // replaces the earlier view 1
    const f2 = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`);
    expect(f2.status).toBe(400);
    expect(f2.body.error.field).toBe("views.1.instances");
    // a PNG whose data inflates far beyond its declared size (a decompression bomb) is refused before decoding
    expect((await put(1, encodeView(cam, rgb, depth, inflatingPng(W, H, 64)))).status).toBe(200);
    const f3 = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`);
    expect(f3.status).toBe(400);
    expect(f3.body.error.field).toBe("views.1.instances");
    expect(f3.body.error.message).toMatch(/inflates to more than/);
    // a gap in the view numbers
    expect((await put(1, views[1]!.body)).status).toBe(200);
    expect((await put(3, views[3]!.body)).status).toBe(201);
    const gap = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`);
    expect(gap.status).toBe(400);
    expect(gap.body.error.field).toBe("views.2");
    const count = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`, { views: 7 });
    expect(count.body.error.field).toBe("views.2");
    expect(bundles()).toEqual([]);
    // fixed, it finishes
    expect((await put(2, views[2]!.body)).status).toBe(201);
    const wrongCount = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`, { views: 7 });
    expect(wrongCount.body.error.field).toBe("body.views");
    for (const x of views.slice(4)) expect((await put(x.n, x.body)).status).toBe(201);
    const ok = await http("POST", `${s.url}/v1/sim/sessions/${sid}/finish`, { views: views.length });
    expect(ok.status, ok.text).toBe(201);
    expect(bundles()).toEqual([ok.body.bundle]);
    expect(existsSync(join(s.data, "sessions", sid, "views"))).toBe(false);
  });

  it("rejects malformed JSON bodies with 400 naming the field", async () => {
    const task = smallTask("linear_alignment", 0);
    const r1 = await http("POST", `${s.url}/v1/sim/sessions`, "{not json");
    expect(r1.status).toBe(400);
    expect(r1.body.error.code).toBe("invalid_json");
    const r2 = await http("POST", `${s.url}/v1/sim/sessions`, { task: { ...task, objects: [{ ...task.objects[0], id: 3 }] }, paradigm: "gt", simulator: "t" });
    expect(r2.status).toBe(400);
    expect(r2.body.error.field).toBe("body.task.objects.0.id");
    const r3 = await http("POST", `${s.url}/v1/sim/sessions`, { task, paradigm: "sideways", simulator: "t" });
    expect(r3.body.error.field).toBe("body.paradigm");
    const r4 = await http("POST", `${s.url}/v1/sim/sessions`, { task, task_id: task.task_id, paradigm: "gt", simulator: "t" });
    expect(r4.body.error.field).toBe("body.task");
    const r5 = await http("POST", `${s.url}/v1/sim/sessions`, { task, paradigm: "gt", simulator: "t", image: { width: 4096, height: 4096 } });
    expect(r5.body.error.field).toBe("body.image");
    const r6 = await http("POST", `${s.url}/v1/sim/sessions`, {
      task,
      paradigm: "gt",
      simulator: "t",
      instances: [
        { id: 20, category: "a", structure: false },
        { id: 20, category: "b", structure: false },
      ],
    });
    expect(r6.body.error.field).toBe("body.instances.1.id");
    const r7 = await http("POST", `${s.url}/v1/graphs`, { bundle: "b-000000000000000000000000", masks: "pixels" });
    expect(r7.body.error.field).toBe("body.masks");
    const r8 = await http("POST", `${s.url}/v1/graphs`, { bundle: "b-000000000000000000000000" });
    expect(r8.status).toBe(404);
    // a stored task can be named by id
    expect((await http("PUT", `${s.url}/v1/tasks/${task.task_id}`, task)).status).toBe(201);
    expect((await http("PUT", `${s.url}/v1/tasks/${task.task_id}`, task)).status).toBe(200);
    expect((await http("PUT", `${s.url}/v1/tasks/other-id`, task)).body.error.field).toBe("body.task_id");
    const byId = await http("POST", `${s.url}/v1/sim/sessions`, { task_id: task.task_id, paradigm: "single", simulator: "t" });
    expect(byId.status, byId.text).toBe(201);
    expect((await http("POST", `${s.url}/v1/sim/sessions`, { task_id: "missing-task", paradigm: "single", simulator: "t" })).status).toBe(404);
    expect((await http("DELETE", `${s.url}/v1/sim/sessions/${byId.body.id}`)).status).toBe(204);
    expect((await http("GET", `${s.url}/v1/sim/sessions/${byId.body.id}`)).status).toBe(404);
  });

  it("rejects ids that try to leave the data directory ('..', '/', encoded)", async () => {
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", "/v1/graphs/..%2F..%2F..%2Fetc%2Fpasswd"],
      ["GET", "/v1/graphs/%2e%2e"],
      ["GET", "/v1/graphs/g-..%2F......................"],
      ["GET", "/v1/bundles/..%5C..%5Cwindows"],
      ["GET", "/v1/bundles/b-00000000000000000000000%00"],
      ["GET", "/v1/tasks/.."],
      ["GET", "/v1/tasks/%2e%2e"],
      ["GET", "/v1/tasks/..%2Fserver.lock"],
      ["GET", "/v1/tasks/.hidden"],
      ["PUT", "/v1/tasks/..%2F..%2Fescape", {}],
      ["GET", "/v1/runs/r-..%2F..%2F......................"],
      ["GET", "/v1/runs/..%2Fruns/items"],
      ["GET", "/v1/sim/sessions/..%2F..%2Fbundles"],
      ["POST", "/v1/graphs", { bundle: "../../../etc" }],
      ["POST", "/v1/graphs", { bundle: "b-0000/../../../../etc/x" }],
      ["POST", "/v1/answers", { graph: "../graphs/x", reasoner: "symbolic" }],
      ["POST", "/v1/sim/sessions", { task_id: "../../etc/passwd", paradigm: "gt", simulator: "t" }],
      ["POST", "/v1/sim/sessions", { task_id: "..", paradigm: "gt", simulator: "t" }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await http(method, `${s.url}${path}`, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.error.code, `${method} ${path}`).toBe("invalid_id");
    }
    // literal '..' segments never reach a handler
    for (const path of ["/v1/graphs/../../etc/passwd", "/v1/bundles/../server.lock", "/v1/tasks/../../x"]) {
      const r = await http("GET", `${s.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    expect(existsSync(join(s.data, "..", "escape.json"))).toBe(false);
  });
});
