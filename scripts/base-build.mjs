// A base commit built once into $TMPDIR/esi3d-ab-<sha> for the A/B scripts (ab-main-job.mjs, ab-noisy.mjs):
// `git archive` of the commit (no worktree, no change to the repository) with this checkout's node_modules
// linked in, compiled with tsc and the commit's own postbuild. Later calls reuse the build.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The build of `rev` ({ dir, sha }); `usage(message)` is called (and must exit) when rev is not a commit. */
export function buildBase(repo, rev, usage) {
  let sha;
  try {
    sha = execFileSync("git", ["-C", repo, "rev-parse", "--verify", `${rev}^{commit}`], { encoding: "utf8" }).trim();
  } catch {
    usage(`--base ${rev}: not a commit of ${repo}`);
  }
  const dir = join(tmpdir(), `esi3d-ab-${sha.slice(0, 12)}`);
  if (existsSync(join(dir, ".built"))) return { dir, sha };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git -C '${repo}' archive '${sha}' | tar -x -C '${dir}'`], { stdio: "inherit" });
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  console.error(`building ${sha.slice(0, 12)} in ${dir} with this checkout's node_modules`);
  execFileSync(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: dir, stdio: "inherit" });
  execFileSync(process.execPath, ["scripts/postbuild.mjs"], { cwd: dir, stdio: "inherit" });
  execFileSync("touch", [join(dir, ".built")]);
  return { dir, sha };
}
