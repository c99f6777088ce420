/**
 * `esi3d inspect RUN --serve` off loopback: the same rule as `esi3d serve` — a token of at least
 * 16 characters or no start at all — then every request needs it, as a bearer header or, for a browser, a
 * cookie set by opening `/?token=...` once. Errors never show the run's absolute path, and a malformed URI
 * is a 400, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, esi3d, REPO_ROOT } from "../cli/helpers.js";

const TOKEN = "inspect-token-0123456789abcdef";
const TASK = "counting_with_occlusion-000";

let run: string;
beforeAll(() => {
  run = join(mkdtempSync(join(tmpdir(), "esi3d-inspect-auth-")), "run");
  const r = esi3d(["run", "--per-subcategory", "1", "--subcategories", "counting_with_occlusion", "--paradigm", "single", "--source", "gt", "--out", run]);
  if (r.code !== 0) throw new Error(`esi3d run failed (${r.code}): ${r.stderr}`);
}, 120_000);

/** Runs `inspect RUN --serve` expecting a refusal; a server that starts instead is killed after a while. */
function refused(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, "inspect", run, "--serve", "--port", "0", ...args], {
    encoding: "utf8",
    cwd: REPO_ROOT,
    env: { ...process.env, ESI3D_TOKEN: "", ...env },
    timeout: 15_000,
  });
  return { code: r.status, stderr: r.stderr };
}

describe("esi3d inspect --serve off loopback", () => {
  it("refuses to start without a token, or with a short one (exit 2, the rule of `esi3d serve`)", () => {
    const none = refused(["--host", "0.0.0.0"]);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toMatch(/--host 0\.0\.0\.0: binding to an address other machines can reach requires --token \(or \$ESI3D_TOKEN\)/);
    const short = refused(["--host", "0.0.0.0", "--token", "short"]);
    expect(short.code, short.stderr).toBe(2);
    expect(short.stderr).toMatch(/--token: at least 16 characters/);
    const shortEnv = refused(["--host", "0.0.0.0"], { ESI3D_TOKEN: "abc" });
    expect(shortEnv.code, shortEnv.stderr).toBe(2);
  });

  describe("with a token", () => {
    let child: ChildProcess;
    let base: string;
    beforeAll(async () => {
      child = spawn(process.execPath, [CLI, "inspect", run, "--serve", "--port", "0", "--host", "0.0.0.0", "--token", TOKEN], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ESI3D_TOKEN: "" },
      });
      let out = "";
      const port = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 30_000);
        child.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /at http:\/\/\S+:(\d+)\//.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      base = `http://127.0.0.1:${port}`;
    });
    afterAll(() => {
      child?.kill("SIGKILL");
    });

    it("needs the token on every path: bearer header, or a cookie set by ?token=", async () => {
      for (const path of ["/", `/task/${TASK}`, `/api/${TASK}/variant/single__gt`, `/api/${TASK}/export/single__gt.json`, "/nowhere"]) {
        const none = await fetch(`${base}${path}`, { redirect: "manual" });
        expect(none.status, path).toBe(401);
        expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
        const wrong = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}x` } });
        expect(wrong.status, path).toBe(401);
        expect(await wrong.text()).not.toContain(TOKEN);
      }
      const ok = await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain(`/task/${TASK}`);
      // a browser: open /?token=... once; the answer sets an HttpOnly cookie and redirects to the URL without the token
      const login = await fetch(`${base}/task/${TASK}?token=${TOKEN}`, { redirect: "manual" });
      expect(login.status).toBe(303);
      expect(login.headers.get("location")).toBe(`/task/${TASK}`);
      const cookie = login.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).not.toContain(TOKEN);
      const jar = cookie.split(";")[0]!;
      const page = await fetch(`${base}/task/${TASK}`, { headers: { cookie: jar } });
      expect(page.status).toBe(200);
      const v = await fetch(`${base}/api/${TASK}/variant/single__gt`, { headers: { cookie: jar } });
      expect(v.status).toBe(200);
      expect(((await v.json()) as { graph: { nodes: unknown[] } }).graph.nodes.length).toBeGreaterThan(0);
      const badLogin = await fetch(`${base}/?token=${TOKEN}x`, { redirect: "manual" });
      expect(badLogin.status).toBe(401);
    });

    it("answers bad requests with 4xx whose text shows no server path", async () => {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const missing = await fetch(`${base}/task/nope-000`, { headers: auth });
      expect(missing.status).toBe(400);
      const text = await missing.text();
      expect(text).toMatch(/no such task/);
      expect(text).not.toContain(run);
      expect(text).not.toContain(tmpdir());
      const malformed = await fetch(`${base}/task/%E0%A4%A`, { headers: auth });
      expect(malformed.status).toBe(400);
      const post = await fetch(`${base}/`, { method: "POST", headers: auth });
      expect(post.status).toBe(405);
      const index = await (await fetch(`${base}/`, { headers: auth })).text();
      expect(index).not.toContain(run);
    });
  });
});
