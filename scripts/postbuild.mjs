// Runs after `tsc`: bundles the CLI into dist/cli/ (scripts/bundle-cli.mjs) and makes its entry executable
// so `npx esi3d` and the bin link work, and bundles the inspection page's browser code (three.js included)
// with esbuild into dist/inspect-client/client.js.
import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bundleCli, CLI_BUNDLE_DIR } from "./bundle-cli.mjs";
import { buildInspectClient } from "./inspect-client.mjs";
// chunk names carry content hashes: clear the old ones
rmSync(CLI_BUNDLE_DIR, { recursive: true, force: true });
await bundleCli();
chmodSync(join(CLI_BUNDLE_DIR, "main.js"), 0o755);
await buildInspectClient({ write: true });
