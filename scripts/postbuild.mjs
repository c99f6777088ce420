// Runs after `tsc`: makes the CLI entry executable so `npx esi3d` and the bin link work.
import { chmodSync, existsSync } from "node:fs";
const bin = new URL("../dist/src/cli/main.js", import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
