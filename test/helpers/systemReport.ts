/**
 * vitest's global setup: one line at the start of `npm test` saying which system packages are missing, so a
 * fresh machine's skipped tests are explained once (each skipped test's name names its packages too).
 */
import { installCommand, missingPackages, REQUIRE_ENV, SYSTEM_PACKAGES } from "./system.js";

export default function setup(): void {
  const missing = missingPackages(SYSTEM_PACKAGES);
  if (!missing.length) return;
  const how = process.env[REQUIRE_ENV]
    ? `${REQUIRE_ENV} is set: the tests that need them fail`
    : "the tests that need them are skipped, each naming its packages";
  process.stderr.write(`esi3d tests: system package(s) missing: ${missing.join(", ")}; ${how}. The whole suite runs after: ${installCommand(missing)}\n`);
}
