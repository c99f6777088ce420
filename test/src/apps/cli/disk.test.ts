/**
 * Full and read-only disks on the command line: exit 1 with a message naming the path and the
 * cause (never a raw errno text), checked before any long work, and no temporary file left behind.
 * Mounting a tmpfs needs root (CAP_SYS_ADMIN): elsewhere the tests are skipped and say so.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEMP_FILE_PATTERN } from "../../../../core/fs.js";
import { esi3dAsync } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "esi3d-disk-"));
const mounted: string[] = [];
/** A tmpfs of `size` at a new folder, read-only when asked; null when this machine cannot mount. */
function tmpfs(name: string, size: string, readOnly = false): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = join(root, name);
  mkdirSync(dir);
  if (spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}${readOnly ? ",ro" : ""}`, "tmpfs", dir]).status !== 0) return null;
  mounted.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of mounted) spawnSync("umount", [d]);
});

function files(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    out.push(p);
    if (statSync(p).isDirectory()) out.push(...files(p));
  }
  return out;
}

describe("the CLI on a read-only or full disk", () => {
  it("a run on a read-only file system: exit 1 at once, naming the path and the cause", async (ctx) => {
    const ro = tmpfs("ro", "1m", true);
    if (!ro) return ctx.skip();
    const r = await esi3dAsync(["run", "--limit", "1", "--paradigm", "single", "--source", "gt", "--out", join(ro, "r")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${join(ro, "r")}: cannot write: the file system is read-only \\(EROFS\\)`));
    expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    const g = await esi3dAsync(["generate", "--per-subcategory", "1", "--out", join(ro, "t")]);
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/read-only \(EROFS\)/);
  });

  it("generate onto a disk that fills up: exit 1 naming the file, no temporary file left (L6)", async (ctx) => {
    const full = tmpfs("full", "8k");
    if (!full) return ctx.skip();
    const r = await esi3dAsync(["generate", "--per-subcategory", "3", "--subcategories", "linear_alignment,spatial_distance", "--out", join(full, "t")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.json: cannot write: no space left on the device \(ENOSPC\)/);
    expect(files(full).filter((f) => TEMP_FILE_PATTERN.test(f))).toEqual([]);
  });
});
