import type { Command } from "commander";
import { writeFileSync } from "node:fs";
import { taskJsonSchema } from "../../../../bridge/task/schema.js";
import { bundleJsonSchema } from "../../../../bridge/bundle/schema.js";
import { choiceOption } from "../../../core/flags.js";

export function registerSchema(program: Command): void {
  program
    .command("schema")
    .description("print the JSON Schema of a task record or a bundle manifest")
    .argument("<which>", "task | bundle", choiceOption("<which>", ["task", "bundle"] as const))
    .option("-o, --out <file>", "write to a file instead of stdout")
    .action((which: "task" | "bundle", opts: { out?: string }) => {
      const text = JSON.stringify(which === "task" ? taskJsonSchema() : bundleJsonSchema(), null, 2) + "\n";
      if (opts.out) writeFileSync(opts.out, text);
      else process.stdout.write(text);
    });
}
