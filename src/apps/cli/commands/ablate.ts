import type { Command } from "commander";
import { join } from "node:path";
import { EXIT_INTERRUPTED, InputError } from "../../../../core/errors.js";
import { NOISE_COMPONENT_NAMES, type RunConfig } from "../../../eval/config.js";
import { addRunOptions, configFromCommand } from "./run.js";
import { Progress } from "../progress.js";
import { INTERRUPT_NOTE, resumeHint, withInterrupts } from "../interrupts.js";
import { PACKAGE_VERSION } from "../../../../core/version.js";
import { MAX_NOISE_LEVEL, VGGT_TYPICAL_LEVEL } from "../../../../reconstruct/noisy/params.js";
import { writeFileAtomic, writeJsonAtomic } from "../../../../core/fs.js";

/**
 * The default sweep: ground truth, half way, vggt-typical, and on to level 3, where the measured errors are
 * at least twice VGGT's published ones (docs/noise-model.md, "The scale and vggt-typical").
 */
export const DEFAULT_ABLATION_LEVELS = [0, 0.5, VGGT_TYPICAL_LEVEL, 2, 3];

function parseLevels(v: string): number[] {
  const levels = v.split(",").map((s) => Number(s.trim()));
  if (!levels.length || levels.some((l) => !Number.isFinite(l) || l < 0 || l > MAX_NOISE_LEVEL))
    throw new InputError(`--noise: expected comma-separated levels in [0, ${MAX_NOISE_LEVEL}], got "${v}"`);
  return [...new Set(levels)].sort((a, b) => a - b);
}

export function registerAblate(program: Command): void {
  const cmd = addRunOptions(
    program
      .command("ablate")
      .description("sweep the reconstruction error model and plot accuracy and duplicate/hallucination/stale/miss rates against noise, against the 2D baseline")
      .option(
        "--noise <levels>",
        `noise levels 0..${MAX_NOISE_LEVEL}, comma-separated (${VGGT_TYPICAL_LEVEL} = vggt-typical)`,
        parseLevels,
        DEFAULT_ABLATION_LEVELS,
      )
      .option("--component <name>", `error components to sweep: ${NOISE_COMPONENT_NAMES.join(" | ")} | all (comma-separated)`, "all"),
  );
  cmd.action(async () => {
    const o = cmd.opts() as { noise: number[]; component: string };
    const comps = o.component === "all" ? [...NOISE_COMPONENT_NAMES] : o.component.split(",").map((c) => c.trim());
    for (const c of comps)
      if (!(NOISE_COMPONENT_NAMES as readonly string[]).includes(c))
        throw new InputError(`--component: "${c}" is not one of ${NOISE_COMPONENT_NAMES.join(", ")}, all`);
    const { config, out, resume, inputs } = configFromCommand(cmd, {
      sources: ["noisy"],
      noiseLevels: o.noise,
      noise: { noiseComponents: comps as (typeof NOISE_COMPONENT_NAMES)[number][] } as RunConfig["noise"],
    });
    // the runner and the ablation's tables load here, on use: `ablate --help` and a usage error do not pay for them
    const [{ runEvaluation }, { ablationHtml, ablationMarkdown, ablationTable, summarizeAblation }] = await Promise.all([
      import("../../../eval/runner.js"),
      import("../../../eval/ablation.js"),
    ]);
    const progress = new Progress("ablate", 0);
    const result = await withInterrupts(
      () => progress.line(INTERRUPT_NOTE),
      (signals) => runEvaluation({ config, out, resume, inputs, version: PACKAGE_VERSION, log: (l) => progress.line(l), progress, ...signals }),
    );
    const a = summarizeAblation(result.records, comps);
    writeJsonAtomic(join(out, "ablation.json"), a);
    writeFileAtomic(join(out, "ablation.md"), ablationMarkdown(a));
    writeFileAtomic(join(out, "ablation.html"), ablationHtml(a));
    const partial = result.interrupted ? `INTERRUPTED: the tables below cover only the ${result.records.length} items done so far\n` : "";
    process.stdout.write(
      "\n" +
        partial +
        ablationTable(a) +
        "\n\n" +
        a.headlines.map((h) => `- ${h}`).join("\n") +
        `\n\nwrote ${join(out, "ablation.json")}, ablation.md, ablation.html (${result.wallSeconds.toFixed(0)} s)\n`,
    );
    if (result.interrupted) process.stdout.write(resumeHint("ablate", out));
    if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
  });
}
