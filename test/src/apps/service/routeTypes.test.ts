/**
 * The route table is typed (issue 12): a resource plugin must implement exactly the route names ROUTES
 * declares for it, and a handler's params are typed from its url. Shown by compiling small plugins with
 * the TypeScript compiler: the correct one compiles; a missing handler, a misspelled name and an unknown
 * parameter are compile errors (not a crash at start-up).
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "../cli/helpers.js";

// inside the repository so that the relative import resolves; the name matches .gitignore's *.tmp-*
const dir = mkdtempSync(join(REPO_ROOT, "test", "src", "apps", "service", "route-types.tmp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAD = `import { resourcePlugin } from "../../../../../src/apps/service/routes/plugin.js";\n`;
const SNIPPETS: Record<string, string> = {
  correct: `export const p = resourcePlugin("tasks", { put: (req, _r, { tasks }) => tasks.put(req.params.id, req.body), get: (req, _r, { tasks }) => tasks.get(req.params.id) });`,
  missing: `export const p = resourcePlugin("tasks", { put: (req, _r, { tasks }) => tasks.put(req.params.id, req.body) });`,
  misspelled: `export const p = resourcePlugin("tasks", { put: (req, _r, { tasks }) => tasks.put(req.params.id, req.body), get: (req, _r, { tasks }) => tasks.get(req.params.id), gett: () => null });`,
  unknownParam: `export const p = resourcePlugin("tasks", { put: (req, _r, { tasks }) => tasks.put(req.params.id, req.body), get: (req, _r, { tasks }) => tasks.get(req.params.name) });`,
  unknownResource: `export const p = resourcePlugin("bundles", {});`,
};

describe("typed route handlers", () => {
  it("compile only when a plugin implements exactly its resource's routes", () => {
    const files = Object.fromEntries(
      Object.entries(SNIPPETS).map(([name, code]) => {
        const f = join(dir, `${name}.ts`);
        writeFileSync(f, HEAD + code + "\n");
        return [name, f];
      }),
    );
    const config = ts.readConfigFile(join(REPO_ROOT, "tsconfig.json"), ts.sys.readFile).config;
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
    const program = ts.createProgram(Object.values(files), { ...options, noEmit: true });
    const errors = (name: string) =>
      program.getSemanticDiagnostics(program.getSourceFile(files[name]!)).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
    expect(errors("correct")).toEqual([]);
    expect(errors("missing").join("\n")).toMatch(/TS2345: .*Property 'get' is missing/);
    expect(errors("misspelled").join("\n")).toMatch(/TS(2353|2561): Object literal may only specify known properties.*'gett'/);
    expect(errors("unknownParam").join("\n")).toMatch(/TS2339: Property 'name' does not exist/);
    expect(errors("unknownResource").join("\n")).toMatch(/TS2345: Argument of type '"bundles"'/);
  }, 120_000);
});
