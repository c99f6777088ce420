// Bundles the built CLI (dist/src/main.js and the two worker entries) into dist/cli/ with esbuild, split
// into chunks so each command still loads only its own code. Why: a command's ~180 ES modules (ours, zod's
// and commander's) cost Node a file lookup, read and link each; one chunk per command starts ~60 ms sooner
// (issue 19: `esi3d graph` is measured as a whole process). Packages with native code, or that find files
// next to their own (bullmq's Lua scripts, piscina's worker, bull-board's UI), stay external and load from
// node_modules as before; only the pure-JS packages on every command's path are bundled.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_BUNDLE_DIR = join(ROOT, "dist", "cli");
/** The packages bundled into the CLI: every command loads them, and they read no files of their own. */
export const BUNDLED_PACKAGES = ["zod", "commander"];

export async function bundleCli() {
  const esbuild = await import("esbuild");
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const external = Object.keys(pkg.dependencies).filter((d) => !BUNDLED_PACKAGES.includes(d));
  await esbuild.build({
    entryPoints: {
      main: join(ROOT, "dist", "src", "main.js"),
      // the thread pools' entries: src/eval/workerFile.ts and src/apps/service/context.ts find them by name
      worker: join(ROOT, "dist", "src", "eval", "worker.js"),
      serviceWorker: join(ROOT, "dist", "src", "apps", "service", "serviceWorker.js"),
    },
    outdir: CLI_BUNDLE_DIR,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external,
    // commander is CommonJS: its require() of Node's built-ins needs a require in an ES module
    banner: { js: 'import { createRequire as __esi3dCreateRequire } from "node:module"; const require = __esi3dCreateRequire(import.meta.url);' },
    logLevel: "warning",
  });
}
