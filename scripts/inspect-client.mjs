// Bundles the inspection page's browser code (src/apps/viewer/client/main.mts, three.js included) into one
// minified IIFE with esbuild. Used by scripts/postbuild.mjs (writes dist/inspect-client/client.js) and, in a
// checkout whose bundle is missing or older than its sources, by src/apps/viewer/bundle.ts at run time.
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLIENT_ENTRY = join(ROOT, "src", "apps", "viewer", "client", "main.mts");
export const CLIENT_OUT = join(ROOT, "dist", "inspect-client", "client.js");

/** esbuild options shared by the build and the run-time fallback. */
export function clientBuildOptions() {
  return {
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    format: "iife",
    platform: "browser",
    // Chromium/Firefox/Safari of 2023 and later: DecompressionStream, color-mix, ES2022
    target: ["es2022"],
    minify: true,
    legalComments: "none",
    loader: { ".css": "text" },
    logLevel: "silent",
  };
}

/** Returns the bundle's text (write: false) or writes CLIENT_OUT. */
export async function buildInspectClient({ write } = { write: false }) {
  const esbuild = await import("esbuild");
  if (write) {
    await esbuild.build({ ...clientBuildOptions(), outfile: CLIENT_OUT, write: true });
    return null;
  }
  const r = await esbuild.build({ ...clientBuildOptions(), write: false, outfile: "client.js" });
  return r.outputFiles[0].text;
}
