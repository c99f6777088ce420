/**
 * The page's browser code (src/apps/viewer/client/*.mts) is outside the Node build (tsconfig.json compiles
 * src/**\/*.ts only): it is type-checked here, against the DOM library, with its own tsconfig.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../cli/helpers.js";

describe("inspect client", () => {
  it("type-checks (tsc -p src/apps/viewer/client/tsconfig.json)", () => {
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", join(REPO_ROOT, "src", "apps", "viewer", "client", "tsconfig.json")], {
      encoding: "utf8",
      cwd: REPO_ROOT,
    });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
