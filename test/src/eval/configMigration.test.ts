/**
 * The run configuration's flat form (config.json before each stage's options were nested) still reads: a real
 * config.json as esi3d wrote it then (fixtures/flat-config-run, `run --limit 2` at a86d432) migrates to the
 * nested configuration of the same run, through every reader (run files, --config layers, service bodies).
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../apps/cli/helpers.js";
import { DEFAULT_RUN_CONFIG, migrateRunConfig, resolveRunConfig, RunConfigSchema, StoredRunConfigSchema, type RunConfig } from "../../../src/eval/config.js";
import { readRunFile } from "../../../src/eval/files.js";
import { RunRequestSchema } from "../../../src/apps/service/schemas.js";
import { canonicalJson } from "../../../core/hash.js";
import { InputError } from "../../../core/errors.js";

const FIXTURE = join(REPO_ROOT, "fixtures", "flat-config-run");
const flat = (): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURE, "config.json"), "utf8")).config;
/**
 * The same run as this version resolves it: the defaults with --limit 2, over the fixture's own subcategories (the
 * built-in suite then had 19; issue 45 added two, which the default now takes) and its own noise components (all
 * there were then; issue 47 added `mirror`, which the default now takes).
 */
const sameRun = () =>
  resolveRunConfig({
    limit: 2,
    subcategories: flat().subcategories as string[],
    noise: { noiseComponents: flat().noiseComponents as RunConfig["noise"]["noiseComponents"] },
  });

describe("flat run configurations migrate to the nested form", () => {
  it("the fixture is in the flat form (stage keys at the top)", () => {
    const f = flat();
    expect(f.noiseLevel).toBe(1.25);
    expect(f.masks).toBe("instance");
    expect(f.maxSteps).toBe(30);
    expect(f.images).toBe("multi");
    expect(RunConfigSchema.safeParse(f).success).toBe(false);
  });

  it("an old config.json reads as the nested configuration of the same run", () => {
    const c = readRunFile(FIXTURE).config;
    expect(c.noise.noiseLevel).toBe(1.25);
    // issue 48's `time` takes its default: diff, the same graph as before for a world that does not change
    expect(c.graph).toEqual({ masks: "instance", instances: "fusion", labelSeed: "0", time: "diff" });
    expect(c.prompt).toEqual({ format: "relations", uncertainty: false, optionLabels: "none", circular: false });
    expect(c.active.maxSteps).toBe(30);
    expect(c.generator.image).toBe("518x392");
    expect(c.images).toEqual({ images: "multi", maxImages: 8 });
    expect(canonicalJson(c)).toBe(canonicalJson(sameRun()));
  });

  it("as a --config layer or a service body, the flat form gives what the nested form gives", () => {
    const nested = sameRun();
    expect(canonicalJson(resolveRunConfig(flat()))).toBe(canonicalJson(nested));
    expect(canonicalJson(resolveRunConfig({ noiseLevel: 0.5, format: "json", maxSteps: 4 }))).toBe(
      canonicalJson(resolveRunConfig({ noise: { noiseLevel: 0.5 }, prompt: { format: "json" }, active: { maxSteps: 4 } })),
    );
    const body = RunRequestSchema.safeParse(migrateRunConfig({ noiseLevel: 0.5, masks: "semantic", images: "single" }));
    expect(body.success, JSON.stringify(body.error?.issues)).toBe(true);
    expect(body.data).toMatchObject({ noise: { noiseLevel: 0.5 }, graph: { masks: "semantic" }, images: { images: "single" } });
    expect(RunRequestSchema.safeParse({ noise: { noiseLevel: 0.5 }, graph: { masks: "semantic" } }).success).toBe(true);
  });

  it("leaves the nested form as it is, and refuses a key given both ways with different values", () => {
    const nested = JSON.parse(JSON.stringify(DEFAULT_RUN_CONFIG));
    expect(migrateRunConfig(nested)).toEqual(nested);
    expect(StoredRunConfigSchema.parse(nested)).toEqual(DEFAULT_RUN_CONFIG);
    // the same value both ways is one value
    expect(resolveRunConfig({ noiseLevel: 2, noise: { noiseLevel: 2 } }).noise.noiseLevel).toBe(2);
    expect(() => migrateRunConfig({ noiseLevel: 1, noise: { noiseLevel: 2 } })).toThrow(InputError);
    expect(() => migrateRunConfig({ noiseLevel: 1, noise: { noiseLevel: 2 } })).toThrow(/noise\.noiseLevel/);
    // a bad value in the flat form is named by its nested path
    expect(RunConfigSchema.safeParse(migrateRunConfig({ noiseLevel: 3.5 })).error?.issues[0]?.path).toEqual(["noise", "noiseLevel"]);
    // the moves, recorded, say what the sender wrote (a service names a bad flat option as it was sent)
    const moves = new Map<string, string>();
    migrateRunConfig({ noiseLevel: 3.5, format: "json", graph: { masks: "none" }, seed: "1" }, moves);
    expect([...moves]).toEqual([
      ["noise.noiseLevel", "noiseLevel"],
      ["prompt.format", "format"],
    ]);
  });
});

/** The keys the flat form had at the top of a run's configuration, now inside a stage's object. */
const FLAT_KEYS = Object.entries(RunConfigSchema.shape)
  .filter(([k]) => ["graph", "prompt", "noise", "active", "generator", "images"].includes(k))
  .flatMap(([, s]) => Object.keys((s as unknown as { def: { innerType: { shape: object } } }).def.innerType.shape));

describe("docs name the nested form where they document a run's configuration", () => {
  it("finds the stage keys it checks", () => {
    expect(FLAT_KEYS).toEqual(expect.arrayContaining(["noiseLevel", "masks", "format", "maxSteps", "image", "maxImages"]));
  });

  it("no doc line about config.json, --config or run bodies names a stage key without its object", () => {
    const found: string[] = [];
    // performance.md records the command lines its measurements ran, as they ran (a flat --config file still reads)
    for (const f of readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md") && f !== "performance.md")) {
      readFileSync(join(REPO_ROOT, "docs", f), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (!/config|RunConfig|POST \/v1\/runs/.test(line)) return;
          for (const k of FLAT_KEYS) if (new RegExp(`(?<![.\\w])[\`"]${k}[\`"]|: ${k}: `).test(line)) found.push(`docs/${f}:${i + 1}: ${k}`);
        });
    }
    expect(found).toEqual([]);
  });
});
