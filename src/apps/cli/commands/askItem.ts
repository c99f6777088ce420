/**
 * `esi3d ask RUN --item KEY`: one item of a run asked again, with the run's configuration (config.json) or
 * with flags that change how it is asked (another reasoner, --format, --uncertainty, --option-labels,
 * --circular, --images, the model-call options, --masks, --instances). Prints the prompt (or the program's trace), the reply, the parsed answer
 * and whether it is right, beside the stored record's, and whether the graph rebuilt now is the stored one.
 */
import type { Command } from "commander";
import { ZodError } from "zod";
import { GRAPH_FLAGS } from "../../../../scenegraph/options.js";
import { VGGT_FLAGS } from "../../../../reconstruct/options.js";
import { InputError } from "../../../../core/errors.js";
import { flagName, parseFlagValue, schemaFlagValues, type FlagSpec } from "../../../../core/flags.js";
import { columnWidths, tableRow } from "../../../../core/table.js";
import { LLM_FLAGS } from "../../../llm/options.js";
import { IMAGE_FLAGS, OPTION_PRESENTATION_FLAGS, PROMPT_FORMAT_FLAGS } from "../../../prompt/formats.js";
import { ACTIVE_FLAGS } from "../../../reason/active/options.js";
import { promptTexts } from "../../../reason/promptFile.js";
import { ReasonerSpecSchema } from "../../../reason/spec.js";
import type { ItemRecord } from "../../../eval/records.js";
import { reaskItem, type ReaskResult } from "../../../eval/reask.js";

const prefixed = (prefix: string, specs: readonly FlagSpec[]) => specs.map((s) => ({ ...s, path: `${prefix}.${s.path}` }));

/** Flags that change how the item is asked, by their run-configuration field. */
const OVERRIDE_FLAGS: readonly FlagSpec[] = [
  ...PROMPT_FORMAT_FLAGS,
  ...OPTION_PRESENTATION_FLAGS,
  ...IMAGE_FLAGS,
  ...GRAPH_FLAGS.filter((f) => f.path === "masks" || f.path === "instances"),
  ...VGGT_FLAGS,
  ...prefixed("llm", LLM_FLAGS),
];

/** Flags that would ask another item, or a question of one's own: the key fixes the task, paradigm and arm. */
const ITEM_FIXED_FLAGS = [
  "--question <text>",
  "--options <list>",
  "--task <file>",
  "--paradigm <p>",
  "--save-episode <dir>",
  "--source <source>",
  "--labels <mode>",
  "--noise-level <x>",
  "--noise-seed <seed>",
  "--label-seed <seed>",
  ...ACTIVE_FLAGS.map((f) => f.flag),
];

const attr = (flag: string) =>
  flagName(flag)
    .replace(/^--/, "")
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface ItemOpts {
  item?: string;
  reasoner: string;
  cache: string | false;
}

export async function askRunItem(cmd: Command, runDir: string, opts: ItemOpts): Promise<void> {
  if (!opts.item)
    throw new InputError(
      `--item: ${runDir} is a run directory; name the item to ask again with --item KEY (keys as in its items.jsonl, e.g. "linear_alignment-000|multi|3d:noisy"; esi3d inspect ${runDir} --serve lists them at /items)`,
      { field: "item" },
    );
  const fixed = ITEM_FIXED_FLAGS.find((f) => cmd.getOptionValueSource(attr(f)) === "cli");
  if (fixed)
    throw new InputError(
      `${flagName(fixed)}: not with --item (the item's key fixes its task, paradigm and arm); ask another item, or ask a bundle or graph with ${flagName(fixed)}`,
    );
  const reasoner = cmd.getOptionValueSource("reasoner") === "cli" ? parseFlagValue(ReasonerSpecSchema, opts.reasoner, "--reasoner") : undefined;
  const given = schemaFlagValues(cmd, OVERRIDE_FLAGS, true);
  const llm = { ...((given.llm as Record<string, unknown> | undefined) ?? {}), cachePath: opts.cache === false ? null : opts.cache };
  let r: ReaskResult;
  try {
    r = await reaskItem(runDir, opts.item, { reasoner, config: { ...given, llm } });
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    const issue = e.issues[0]!;
    const path = issue.path.map(String).join(".");
    const spec = OVERRIDE_FLAGS.find((s) => s.path === path);
    throw new InputError(`${spec ? flagName(spec.flag) : `${runDir}/config.json: config.${path}`}: ${issue.message}`, { field: path });
  }
  const changed = [
    ...(reasoner ? [`--reasoner ${reasoner}`] : []),
    ...OVERRIDE_FLAGS.filter((s) => cmd.getOptionValueSource(attr(s.flag)) === "cli").map(
      (s) => `${flagName(s.flag)} ${String(cmd.getOptionValue(attr(s.flag)))}`,
    ),
  ];
  process.stdout.write(itemText(r, runDir, changed));
  if (r.now.status === "error") process.exitCode = 1;
}

const shown = (v: unknown): string =>
  v === null || v === undefined ? "–" : typeof v === "boolean" ? (v ? "yes" : "no") : typeof v === "object" ? JSON.stringify(v) : String(v);
const tokens = (r: ItemRecord) => (r.usage ? `${r.usage.input_tokens ?? "?"} in, ${r.usage.output_tokens ?? "?"} out` : null);

/** The fields set side by side (a row both records lack is left out). */
const COMPARED: Array<[string, (r: ItemRecord) => unknown]> = [
  ["reasoner", (r) => r.reasoner],
  ["status", (r) => r.status],
  ["answer", (r) => r.answer],
  ["confidence", (r) => r.confidence],
  ["correct", (r) => r.correct],
  ["method", (r) => r.method],
  ["match", (r) => r.match],
  ["re-prompted", (r) => r.reprompted],
  ["format", (r) => r.format],
  ["uncertainty", (r) => r.uncertainty],
  ["tokens", tokens],
  ["prompt sha256", (r) => (r.prompt_hash ? r.prompt_hash.slice(0, 16) : null)],
];

function itemText(r: ReaskResult, runDir: string, changed: string[]): string {
  const { stored, now, task } = r;
  const out: string[] = [];
  out.push(`item: ${stored.key} of ${runDir} (made by esi3d ${r.run.package_version})`);
  out.push(`asked again with: the run's configuration (config.json)${changed.length ? `, changed by ${changed.join(" ")}` : ""}`);
  out.push(`question: ${task.question}`);
  if (task.options.length) out.push(`options: ${task.options.join(" | ")}`);
  out.push(`truth: ${task.answer}`);
  if (r.graph) {
    const g = r.graph;
    const same = g.stored ? JSON.stringify({ ...g.stored, timings_ms: {} }) === JSON.stringify({ ...g.now, timings_ms: {} }) : null;
    const m = g.diagnosis.metrics;
    out.push(
      `graph: ${g.now.nodes.length} nodes (${m.matched} matched, ${m.duplicates} duplicate, ${m.hallucinated} hallucinated, ${m.merged} merged${m.stale ? `, ${m.stale} stale` : ""}; node F1 ${m.f1_observed.toFixed(2)}), rebuilt from the task: ${same === null ? "the run stored no graph for this arm" : same ? "the same as the run's stored graph" : `differs from the run's stored graph (${g.stored!.nodes.length} nodes there)`}`,
    );
  }
  out.push("");
  if (r.prompt) {
    const t = promptTexts(r.prompt.file);
    out.push("--- prompt ---", "=== system ===", t.system, "=== user ===", t.user);
    if (t.images.length) out.push(`(${t.images.length} image(s): ${t.images.map((im) => `view ${im.view ?? "?"}`).join(", ")})`);
    out.push("--- end of prompt ---", "", "reply:");
  } else out.push(`(${now.reasoner} builds no prompt: it is an offline program)`, "", "program trace:");
  out.push(...now.raw.map((x) => `  ${x}`), "");
  const rows = COMPARED.map(([name, f]) => [name, f(stored), f(now)] as const).filter(([, a, b]) => !(a === undefined && b === undefined));
  const table = [["", "stored record", "asked now"], ...rows.map(([n, a, b]) => [n, shown(a), shown(b)])];
  const w = columnWidths(table);
  out.push(tableRow(table[0]!, w), ...table.slice(1).map((row) => tableRow(row, w)));
  if (now.error) out.push("", `error now: ${now.error.class}: ${now.error.message}`);
  return out.join("\n") + "\n";
}
