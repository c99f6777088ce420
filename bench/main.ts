/**
 * `npm run bench`: runs every benchmark module in this folder (each default-exports an async function
 * taking a BenchContext) and prints their tables. Speed goals are reported as ratios against peers
 * measured in the same run (bench/peers), never asserted in unit tests.
 *
 *   npm run bench                 all benchmarks
 *   npm run bench -- raster vggt  only modules whose file name contains one of the words
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { BenchContext } from "./context.js";

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const modules = readdirSync(here)
  .filter((f) => f.endsWith(".js") && f !== "main.js" && f !== "context.js")
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();

const ctx = new BenchContext();
for (const f of modules) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default?: (c: BenchContext) => Promise<void> };
  if (typeof mod.default !== "function") continue;
  console.log(`\n== ${f.replace(/\.js$/, "")} ==`);
  await mod.default(ctx);
}
ctx.printSummary();
