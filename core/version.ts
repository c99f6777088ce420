import { readFileSync } from "node:fs";

/**
 * The package version, read from our package.json: one folder up from the source (core/), two from the build
 * (dist/core, dist/cli). Only a package.json named esi3d counts, so a stray one above the checkout is never read.
 */
export const PACKAGE_VERSION: string = (() => {
  for (const rel of ["../package.json", "../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version: string };
      if (pkg.name === "esi3d") return pkg.version;
    } catch {
      /* try the next location */
    }
  }
  return "0.0.0";
})();
