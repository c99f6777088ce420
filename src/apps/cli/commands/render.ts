import type { Command } from "commander";
import { pathBelow } from "../../../../core/paths.js";
import { readTasks } from "../../../../core/task/io.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { writeBundle, readBundle } from "../../../../core/bundle/io.js";
import type { Paradigm } from "../../../../core/bundle/schema.js";
import { contactSheet } from "../contactSheet.js";
import { checkWritable, writeFileAtomic } from "../../../../core/fs.js";
import { intOption, listOption } from "../../../../core/flags.js";
import { checkOutputs } from "../../../../core/outputPaths.js";

export const RENDERABLE_PARADIGMS = ["single", "multi", "gt"] as const;

export function registerRender(program: Command): void {
  program
    .command("render")
    .description("render frame bundles (RGB, depth, instance ids, cameras) for tasks with the built-in simulator")
    .requiredOption("--tasks <path>", "a task JSON file or a directory of them")
    .option("--paradigm <list>", "view sets: single, multi, gt (comma-separated)", listOption("--paradigm", RENDERABLE_PARADIGMS), ["single"])
    .requiredOption("--out <dir>", "output directory; bundles go to <out>/<task_id>/<paradigm>")
    .action((opts: { tasks: string; paradigm: Paradigm[]; out: string }) => {
      checkOutputs([{ what: "--tasks", path: opts.tasks }], [{ what: "--out", path: opts.out }]);
      const tasks = readTasks(opts.tasks);
      checkWritable(opts.out, "dir");
      let n = 0;
      for (const task of tasks) {
        for (const p of opts.paradigm) {
          const t = Date.now();
          const { manifest, payloads } = captureBundle(task, p);
          const dir = pathBelow(opts.out, task.task_id, p);
          writeBundle(dir, manifest, payloads);
          n++;
          process.stderr.write(`render: ${dir} (${payloads.length} views, ${Date.now() - t} ms)\n`);
        }
      }
      process.stdout.write(`wrote ${n} bundles to ${opts.out}\n`);
    });

  program
    .command("contact-sheet")
    .description("tile a bundle's views (RGB, depth, instance ids) into one PNG")
    .argument("<bundle>", "frame bundle directory")
    .requiredOption("-o, --out <file>", "output PNG")
    .option("--columns <n>", "views per row", intOption("--columns", 1, 100), 5)
    .option("--scale <n>", "downscale factor of each tile", intOption("--scale", 1, 16), 2)
    .action((bundle: string, opts: { out: string; columns: number; scale: number }) => {
      checkOutputs([{ what: "<bundle>", path: bundle }], [{ what: "--out", path: opts.out }]);
      checkWritable(opts.out, "file");
      const b = readBundle(bundle);
      writeFileAtomic(opts.out, contactSheet(b.views, { columns: opts.columns, scale: opts.scale }));
      process.stdout.write(`wrote ${opts.out} (${b.views.length} views)\n`);
    });
}
