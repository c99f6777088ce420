/**
 * The system packages some tests need beside npm's: Debian's Chromium (the viewer pages), Redis (the queue),
 * and Python with numpy, Open3D, Pillow and torch (the peers, the exports' readers, the OmniGibson stand-ins).
 * A test that needs a missing one is skipped, and its name says which package to install, so `npm test` works on
 * a fresh machine. `.ci/run` installs every one and sets ESI3D_REQUIRE_SYSTEM_PACKAGES=1: there a missing
 * package fails the test file instead, so CI skips nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const PYTHON = "/usr/bin/python3";
export const CHROMIUM = "/usr/bin/chromium";
export const REDIS_SERVER = "/usr/bin/redis-server";
/** Set by .ci/run: a missing package is an error there, never a skip. */
export const REQUIRE_ENV = "ESI3D_REQUIRE_SYSTEM_PACKAGES";
/** Comma-separated packages to treat as missing: how a fresh machine's `npm test` behaves, tried on this one. */
const HIDE_ENV = "ESI3D_TEST_HIDE_PACKAGES";

/** Python modules, by the Debian package that provides them. */
const PYTHON_MODULES = { "python3-numpy": "numpy", "python3-open3d": "open3d", "python3-pil": "PIL", "python3-torch": "torch" } as const;

/** Every package a test may need, by its Debian name; `.ci/run` installs them all. */
export const SYSTEM_PACKAGES = ["python3", ...(Object.keys(PYTHON_MODULES) as Array<keyof typeof PYTHON_MODULES>), "chromium", "redis-server"] as const;
export type SystemPackage = (typeof SYSTEM_PACKAGES)[number];

const probed = new Map<SystemPackage, boolean>();

/** Whether Debian's python3 finds these modules (find_spec: without importing them, which takes seconds for torch). */
function pythonHas(modules: string[]): boolean {
  if (!existsSync(PYTHON)) return false;
  const r = spawnSync(PYTHON, ["-c", "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in sys.argv[1:]) else 1)", ...modules], {
    stdio: "ignore",
  });
  return r.status === 0;
}

function probe(pkg: SystemPackage): boolean {
  if ((process.env[HIDE_ENV] ?? "").split(",").includes(pkg)) return false;
  if (pkg === "python3") return existsSync(PYTHON);
  if (pkg === "chromium") return existsSync(CHROMIUM);
  if (pkg === "redis-server") return existsSync(REDIS_SERVER);
  return pythonHas([PYTHON_MODULES[pkg]]);
}

function hasPackage(pkg: SystemPackage): boolean {
  let ok = probed.get(pkg);
  if (ok === undefined) {
    ok = probe(pkg);
    probed.set(pkg, ok);
  }
  return ok;
}

export function missingPackages(pkgs: readonly SystemPackage[]): SystemPackage[] {
  return pkgs.filter((p) => !hasPackage(p));
}

/** The install command for some packages. */
export const installCommand = (pkgs: readonly string[]) => `apt-get install -y --no-install-recommends ${pkgs.join(" ")}`;

export interface Needs {
  /** true when a package is missing (and the run does not require them all) */
  skip: boolean;
  /** the test's title, with the missing packages named when it is skipped */
  title: (name: string) => string;
}

/**
 * What a test needs: `describe.skipIf(n.skip)(n.title("..."), ...)`. With ESI3D_REQUIRE_SYSTEM_PACKAGES set
 * (CI), a missing package throws, naming the install command, instead of skipping.
 */
export function needs(...pkgs: SystemPackage[]): Needs {
  // a python module needs the interpreter too
  const all = pkgs.some((p) => p.startsWith("python3-")) && !pkgs.includes("python3") ? (["python3", ...pkgs] as SystemPackage[]) : pkgs;
  const missing = missingPackages(all);
  if (missing.length && process.env[REQUIRE_ENV])
    throw new Error(`missing system package(s) ${missing.join(", ")} (${REQUIRE_ENV} is set, so nothing may be skipped): ${installCommand(missing)}`);
  return { skip: missing.length > 0, title: (name) => (missing.length ? `${name} [skipped: needs ${missing.join(", ")}; ${installCommand(missing)}]` : name) };
}
