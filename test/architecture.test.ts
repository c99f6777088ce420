/**
 * The architecture, enforced: imports follow the layer order, which is also the top-level tree's order
 *   core < bridge < reconstruct < scenegraph < src (llm < prompt < reason < eval < apps < main)
 * (a file may import its own layer or a lower one), the three apps (cli, service, viewer) never import each
 * other, only the composition root (src/main.ts) joins them, and bridge/ holds only data sources (the built-in
 * simulator, the dataset and ESI-Bench importers, the environments), which only eval and the front-ends may use.
 * No module imports itself back through a chain of imports. test/ mirrors the tree, and every module's name is
 * camelCase. See docs/design.md.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { REPO_ROOT } from "./src/apps/cli/helpers.js";

const LAYERS = ["core", "bridge", "reconstruct", "scenegraph", "llm", "prompt", "reason", "eval", "apps", "main"] as const;
type Layer = (typeof LAYERS)[number];
const APPS = ["cli", "service", "viewer"] as const;

interface Place {
  layer: Layer;
  /** the app, for files under src/apps/<app>/ */
  app?: string;
  /** true for a data source (everything under bridge/) */
  source?: boolean;
}

/** Where a source file sits in the architecture, or null when it is in no layer (a misplaced file). */
export function placeOf(file: string): Place | null {
  const p = file.split("/");
  if (p[0] === "core") return { layer: "core" };
  if (p[0] === "bridge") return { layer: "bridge", source: true };
  if (p[0] === "reconstruct") return { layer: "reconstruct" };
  if (p[0] === "scenegraph") return { layer: "scenegraph" };
  if (p[0] !== "src") return null;
  if (file === "src/main.ts") return { layer: "main" };
  if (p[1] === "apps") return (APPS as readonly string[]).includes(p[2] ?? "") ? { layer: "apps", app: p[2] } : null;
  const layer = p[1] as Layer;
  return (["llm", "prompt", "reason", "eval"] as readonly string[]).includes(layer) ? { layer } : null;
}

/** Relative import specifiers of a module: static imports and re-exports, dynamic imports, `new URL(...)` of modules. */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](\.\.?\/[^"']+)["']/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]!);
  return out;
}

/** The repository file a relative specifier names (`.js` of a `.ts` source, `.mjs` of `.mts`). */
function resolveImport(from: string, spec: string, exists: (f: string) => boolean): string {
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  for (const c of [base, base.replace(/\.js$/, ".ts"), base.replace(/\.mjs$/, ".mts"), base.replace(/\.js$/, ".mts")]) if (exists(c)) return c;
  return base;
}

/** Every import of `files` (path -> text) that breaks a rule, as "from -> to: why". */
export function architectureViolations(files: ReadonlyMap<string, string>): string[] {
  const bad: string[] = [];
  const exists = (f: string) => files.has(f);
  for (const [file, text] of files) {
    const here = placeOf(file);
    if (!here) {
      bad.push(
        `${file}: in no layer (every module lives in core, bridge, reconstruct, scenegraph, src/{llm,prompt,reason,eval}, src/apps/{${APPS.join(",")}} or is src/main.ts)`,
      );
      continue;
    }
    for (const spec of importsOf(text)) {
      const target = resolveImport(file, spec, exists);
      const there = placeOf(target);
      if (!there) {
        if (!target.startsWith("node_modules/") && !target.startsWith("dist/") && !target.startsWith("scripts/"))
          bad.push(`${file} -> ${target}: imports a file in no layer`);
        continue;
      }
      const a = LAYERS.indexOf(here.layer),
        b = LAYERS.indexOf(there.layer);
      if (b > a) bad.push(`${file} -> ${target}: ${here.layer} may not import ${there.layer} (layer order ${LAYERS.join(" < ")})`);
      else if (here.layer === "apps" && there.layer === "apps" && here.app !== there.app)
        bad.push(`${file} -> ${target}: the ${here.app} app may not import the ${there.app} app (only src/main.ts joins the apps)`);
      else if (there.source && !here.source && a < LAYERS.indexOf("eval"))
        bad.push(`${file} -> ${target}: only eval and the front-ends may use a data source (bridge/)`);
    }
  }
  return bad;
}

/**
 * The import cycles of `files`: each strongly connected group of modules that import one another, directly or
 * through others, sorted (Tarjan's algorithm). Type-only imports count too: a cycle of types still ties two
 * modules so that neither can move or be read without the other.
 */
export function importCycles(files: ReadonlyMap<string, string>): string[][] {
  const exists = (f: string) => files.has(f);
  const edges = new Map<string, string[]>();
  for (const [file, text] of files)
    edges.set(file, [
      ...new Set(
        importsOf(text)
          .map((s) => resolveImport(file, s, exists))
          .filter(exists),
      ),
    ]);
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1 || edges.get(v)!.includes(v)) cycles.push(group.sort());
  };
  for (const v of [...files.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

function sourceFiles(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(join(REPO_ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (rel === "scenegraph/primitives/wasm") continue; // AssemblyScript, compiled to WebAssembly on its own
    if (statSync(join(REPO_ROOT, rel)).isDirectory()) sourceFiles(rel, out);
    else if (/\.m?ts$/.test(name) && !name.endsWith(".d.ts")) out.set(rel, readFileSync(join(REPO_ROOT, rel), "utf8"));
  }
  return out;
}

/** The product's modules, path -> text: the five top-level folders of layers. */
const productFiles = () => new Map(PRODUCT_ROOTS.flatMap((r) => [...sourceFiles(r)]));
const PRODUCT_ROOTS = ["core", "bridge", "reconstruct", "scenegraph", "src"] as const;

/** Folders of test/ that mirror no product folder: shared test helpers and the docs' own checks. */
const TEST_ONLY_FOLDERS = ["test/helpers", "test/docs", "test/bridge/omnigibson"];

describe("architecture", () => {
  it("every import of the source tree follows the layer order, and no app imports another", () => {
    const files = productFiles();
    expect(files.size).toBeGreaterThan(150);
    const imports = [...files.values()].reduce((n, t) => n + importsOf(t).length, 0);
    expect(imports).toBeGreaterThan(600); // the scan sees the tree's imports, not nothing
    expect(architectureViolations(files)).toEqual([]);
  });

  it("no module imports itself back, through any chain of imports (type-only ones included)", () => {
    expect(importCycles(productFiles())).toEqual([]);
  });

  it("catches a deliberate cycle, two files or longer, and leaves a chain alone", () => {
    const files = new Map([
      ["src/eval/a.ts", 'import { b } from "./b.js";'],
      ["src/eval/b.ts", 'import type { A } from "./a.js";'],
      ["src/eval/c.ts", 'import { d } from "./d.js";'],
      ["src/eval/d.ts", 'import { e } from "../../core/e.js";'],
      ["core/e.ts", 'import { c } from "../src/eval/c.js";'],
      ["src/eval/f.ts", 'import { a } from "./a.js";'],
    ]);
    expect(importCycles(files)).toEqual([
      ["core/e.ts", "src/eval/c.ts", "src/eval/d.ts"],
      ["src/eval/a.ts", "src/eval/b.ts"],
    ]);
  });

  it("fails the real tree with one wrong import added: a backward import that also closes a cycle", () => {
    const files = productFiles();
    const errors = files.get("core/errors.ts")!;
    // the ground floor reaching up to the runner, which imports core/errors.ts back through its chain
    files.set("core/errors.ts", `import { runEvaluation } from "../src/eval/runner.js";\n${errors}`);
    expect(architectureViolations(files)).toEqual([
      "core/errors.ts -> src/eval/runner.ts: core may not import eval (layer order core < bridge < reconstruct < scenegraph < llm < prompt < reason < eval < apps < main)",
    ]);
    expect(importCycles(files).some((c) => c.includes("core/errors.ts") && c.includes("src/eval/runner.ts"))).toBe(true);
  });

  it("test/ mirrors the tree: every test folder names a product folder (or holds shared helpers)", () => {
    const folders = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(join(REPO_ROOT, dir))) {
        const rel = `${dir}/${name}`;
        if (statSync(join(REPO_ROOT, rel)).isDirectory()) walk(rel);
        else if (/\.test\.ts$/.test(name)) folders.add(dir);
      }
    };
    walk("test");
    expect(folders.size).toBeGreaterThan(15);
    const unmirrored = [...folders].filter(
      (d) => d !== "test" && !TEST_ONLY_FOLDERS.some((t) => d === t || d.startsWith(`${t}/`)) && !existsSync(join(REPO_ROOT, d.slice("test/".length))),
    );
    expect(unmirrored).toEqual([]);
  });

  it("one naming style: every module of the product and the tests is camelCase", () => {
    const names = [...productFiles().keys(), ...[...sourceFiles("test").keys()]].map((f) => posix.basename(f));
    expect(names.length).toBeGreaterThan(300);
    expect(names.filter((n) => !/^[a-z][A-Za-z0-9]*(\.test)?\.m?ts$/.test(n))).toEqual([]);
  });

  it("catches a backward import, a cross-app import, a reach into a data source and a misplaced file", () => {
    const files = new Map([
      ["core/x.ts", ""],
      ["src/eval/runner.ts", ""],
      ["scenegraph/build.ts", 'import { run } from "../src/eval/runner.js";'],
      ["src/apps/service/app.ts", 'import { x } from "../../../core/x.js";'],
      ["src/apps/cli/serve.ts", 'import { startServer } from "../service/app.js";'],
      ["bridge/sim/colors.ts", ""],
      ["src/reason/symbolic.ts", 'import { c } from "../../bridge/sim/colors.js";'],
      ["src/eval/pipeline.ts", 'import { c } from "../../bridge/sim/colors.js";\nconst m = await import("../../core/x.js");'],
      ["src/util/misc.ts", ""],
      ["src/main.ts", 'import "./apps/cli/serve.js";\nimport "./apps/service/app.js";'],
    ]);
    const v = architectureViolations(files);
    expect(v).toEqual([
      "scenegraph/build.ts -> src/eval/runner.ts: scenegraph may not import eval (layer order core < bridge < reconstruct < scenegraph < llm < prompt < reason < eval < apps < main)",
      "src/apps/cli/serve.ts -> src/apps/service/app.ts: the cli app may not import the service app (only src/main.ts joins the apps)",
      "src/reason/symbolic.ts -> bridge/sim/colors.ts: only eval and the front-ends may use a data source (bridge/)",
      expect.stringMatching(/^src\/util\/misc\.ts: in no layer/),
    ]);
  });

  it("reads every import form the tree uses", () => {
    expect(
      importsOf('import a from "./a.js";\nimport type { B } from "../b.js";\nexport { c } from "./c.js";\nawait import("./d.js");\nimport "./e.js";'),
    ).toEqual(["./a.js", "../b.js", "./c.js", "./d.js", "./e.js"]);
  });
});
