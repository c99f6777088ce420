/**
 * Test helpers for the service: spawn the built CLI's `esi3d serve` on a free loopback port (--port 0; the
 * first stdout line names the port), talk to it over real HTTP, and make small bundles to stream.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, REPO_ROOT } from "../cli/helpers.js";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { encodePng } from "../../../../core/bundle/png.js";
import type { Task } from "../../../../core/task/schema.js";
import type { BuiltinSubcategory } from "../../../../core/task/taxonomy.js";
import type { BundleManifest } from "../../../../core/bundle/schema.js";
import { encodeView, VIEW_CONTENT_TYPE } from "../../../../src/apps/service/viewCodec.js";
import { itemKey, type ItemRecord } from "../../../../src/eval/records.js";
import { resolveRunConfig, threeDArms, type RunConfig, type ThreeDArm } from "../../../../src/eval/config.js";
import { EpisodeOptionsSchema } from "../../../../src/apps/service/schemas.js";

export interface Serve {
  url: string;
  port: number;
  data: string;
  proc: ChildProcess;
  stderr: () => string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `esi3d-${prefix}-`));
}

/** Starts `esi3d serve --port 0` (plus `args`) and resolves once it listens. */
export function startServe(args: string[] = [], opts: { data?: string; env?: Record<string, string> } = {}): Promise<Serve> {
  const data = opts.data ?? tempDir("serve-data");
  const proc = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", data, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ESI3D_TOKEN: "", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`esi3d serve did not start in time: ${err}`)), 30_000);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`esi3d serve exited with ${code}: ${err}`));
    });
    proc.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+):(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[2]);
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          data,
          proc,
          stderr: () => err,
          stop: () => {
            proc.kill("SIGTERM");
            return exited;
          },
          kill: async () => {
            proc.kill("SIGKILL");
            await exited;
          },
        });
      }
    });
  });
}

/** Runs `esi3d serve` expecting it to exit by itself (a refusal); returns its code and stderr. */
export function serveExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", tempDir("serve-refuse"), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  proc.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  return new Promise((resolve) =>
    // "close", not "exit": stderr may still hold data when the process exits
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: err });
    }),
  );
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/**
 * One HTTP request with node:http (so paths go out exactly as written, `..` included). `body`: an object is
 * sent as JSON, a Buffer as the binary view layout (or `contentType`).
 */
export function http(
  method: string,
  url: string,
  body?: unknown,
  opts: { token?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const u = new URL(url);
  const path = url.slice(url.indexOf("/", u.protocol.length + 2));
  let data: Buffer | undefined;
  const headers: Record<string, string> = { ...opts.headers };
  if (body !== undefined) {
    if (Buffer.isBuffer(body)) {
      data = body;
      headers["content-type"] = opts.contentType ?? VIEW_CONTENT_TYPE;
    } else {
      data = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
      headers["content-type"] = opts.contentType ?? "application/json";
    }
    headers["content-length"] = String(data.length);
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = undefined;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on("error", reject);
    if (data) req.write(data);
    req.end();
  });
}

/** Sends only the headers of a request declaring `contentLength` bytes, and resolves with the early answer. */
export function headersOnly(
  method: string,
  url: string,
  contentLength: number,
  contentType: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": contentType, "content-length": String(contentLength) };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = httpRequest({ host: u.hostname, port: u.port, method, path: u.pathname, headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

/** A generated task with a smaller camera, so bundles render and build in a fraction of a second. */
export function smallTask(sub: BuiltinSubcategory = "spatial_distance", index = 0, width = 160, height = 120): Task {
  const t = generateTask(sub, "server-test", index);
  return { ...t, camera: { ...t.camera, width, height } };
}

interface ViewUpload {
  n: number;
  body: Buffer;
}

/** A captured bundle as protocol uploads: the session-open body and one binary view per view. */
export function captureUploads(task: Task, paradigm: BundleManifest["paradigm"]) {
  const { manifest, payloads } = captureBundle(task, paradigm);
  const { width: W, height: H } = manifest.image;
  const views: ViewUpload[] = manifest.views.map((v, n) => {
    const p = payloads[n]!;
    return {
      n,
      body: encodeView(
        { intrinsics: v.intrinsics, extrinsic: v.extrinsic, action: v.action },
        encodePng(W, H, 3, 8, p.rgb),
        Buffer.from(p.depth.buffer, p.depth.byteOffset, p.depth.byteLength),
        encodePng(W, H, 1, 16, p.ids),
      ),
    };
  });
  return { manifest, open: { task, paradigm, simulator: manifest.simulator, image: manifest.image, instances: manifest.instances }, views };
}

/** Opens a session, uploads every view, finishes; returns the bundle id. */
export async function streamBundle(url: string, task: Task, paradigm: BundleManifest["paradigm"], token?: string): Promise<string> {
  const { open, views } = captureUploads(task, paradigm);
  const s = await http("POST", `${url}/v1/sim/sessions`, open, { token });
  if (s.status !== 201) throw new Error(`open: ${s.status} ${s.text}`);
  for (const v of views) {
    const r = await http("PUT", `${url}/v1/sim/sessions/${s.body.id}/views/${v.n}`, v.body, { token });
    if (r.status !== 201) throw new Error(`view ${v.n}: ${r.status} ${r.text}`);
  }
  const f = await http("POST", `${url}/v1/sim/sessions/${s.body.id}/finish`, { views: views.length }, { token });
  if (f.status !== 201) throw new Error(`finish: ${f.status} ${f.text}`);
  return f.body.bundle as string;
}

export async function poll<T>(fn: () => Promise<T>, done: (t: T) => boolean, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (done(v)) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`poll: timed out after ${timeoutMs} ms; last value ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** An item record without what depends on the clock (its timings, each active step's time). */
export function timelessRecord(r: ItemRecord): unknown {
  const { timings_ms: _timings, ...rest } = structuredClone(r);
  for (const s of rest.active?.steps ?? []) s.time_ms = 0;
  return rest;
}

/**
 * What `esi3d run --paradigm active` runs for an active session's episode options, and how it names the item:
 * the reference a session's record must equal. Stated here from the run's own pieces (its configuration, its
 * 3D arms, its item keys), apart from the service's mapping, so a slip in that mapping shows.
 */
export function runReference(
  episode: Record<string, unknown>,
  task: Pick<Task, "task_id">,
): { config: RunConfig; arm: ThreeDArm | null; key: string; reasoner: string } {
  const { arm: armName, source, ...rest } = EpisodeOptionsSchema.parse(episode);
  const config = resolveRunConfig(rest, { paradigms: ["active"], sources: [source], baseline: [armName === "2d" ? "2d" : "none"] });
  const arm = armName === "3d" ? threeDArms(config)[0]! : null;
  const reasoner = config.reasoner[0]!;
  return {
    config,
    arm,
    key: arm ? itemKey(task.task_id, "active", "3d", arm.label) : itemKey(task.task_id, "active", "2d", null),
    // the offline 2D arm's reasoner is symbolic-2d; an LLM is named as itself for either arm
    reasoner: reasoner === "symbolic" && !arm ? "symbolic-2d" : reasoner,
  };
}
