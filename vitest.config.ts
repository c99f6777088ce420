import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // CPU-heavy geometry tests; this machine has 2 cores.
    maxWorkers: 2,
  },
});
