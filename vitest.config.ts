import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // names the system packages a fresh machine lacks (their tests skip: test/helpers/system.ts)
    globalSetup: ["test/helpers/systemReport.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // CPU-heavy geometry tests; this machine has 2 cores.
    maxWorkers: 2,
    // the response cache is per user by default (src/llm/cache.ts defaultCachePath): tests never touch the real one
    env: { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "esi3d-test-xdg-cache-")) },
  },
});
