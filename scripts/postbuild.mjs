// Runs after `tsc`: makes the CLI entry executable so `npx esi3d` and the bin link work, and bundles the
// inspection page's browser code (three.js included) with esbuild into dist/inspect-client/client.js.
import { chmodSync, existsSync } from "node:fs";
import { buildInspectClient } from "./inspect-client.mjs";
const bin = new URL("../dist/src/main.js", import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
await buildInspectClient({ write: true });
