import type { Command } from "commander";
import { writeFileAtomic } from "../../../../core/fs.js";
import { checkOutputs } from "../../../../core/outputPaths.js";
import { choiceOption } from "../../../../core/flags.js";
import { PUBLISHED_SCHEMA_NAMES, PUBLISHED_SCHEMAS, publishedJsonSchema, type PublishedSchemaName } from "../../../eval/publishedSchemas.js";

export function registerSchema(program: Command): void {
  const list = PUBLISHED_SCHEMA_NAMES.map((n) => `  ${n.padEnd(10)} ${PUBLISHED_SCHEMAS[n].what}`).join("\n");
  program
    .command("schema")
    .description("print the JSON Schema of a format esi3d reads or writes (docs/<name>.schema.json is this output)")
    .argument("<which>", PUBLISHED_SCHEMA_NAMES.join(" | "), choiceOption("<which>", PUBLISHED_SCHEMA_NAMES))
    .option("-o, --out <file>", "write to a file instead of stdout")
    .addHelpText("after", `\nFormats:\n${list}\n`)
    .action((which: PublishedSchemaName, opts: { out?: string }) => {
      const text = JSON.stringify(publishedJsonSchema(which), null, 2) + "\n";
      if (opts.out !== undefined) checkOutputs([], [{ what: "--out", path: opts.out }]);
      if (opts.out) writeFileAtomic(opts.out, text);
      else process.stdout.write(text);
    });
}
