import { readFileSync } from "node:fs";

/** The package version, read from package.json (dist/src/apps/cli -> repo root). */
export const PACKAGE_VERSION: string = (() => {
  for (const rel of ["../../../package.json", "../../package.json"]) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { version: string }).version;
    } catch {
      /* try the next location */
    }
  }
  return "0.0.0";
})();
