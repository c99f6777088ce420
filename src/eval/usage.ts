/**
 * Token and cost totals per reasoner, from the records' model calls (records' `calls`, itemLog.ts), and the
 * price table they are priced with. esi3d assumes no price: prices change and differ by provider and
 * contract, so a cost is computed only from a table the user writes (--prices FILE, docs/logs.md "Tokens
 * and cost") and is otherwise unknown, never estimated.
 *
 * A call served from the response cache cost nothing this time: billed tokens are those of the calls that
 * reached the model (`cached: false`); all tokens, cached calls included, are what the run's prompts take.
 */
import * as z from "zod";
import { readJsonFile } from "../../core/fs.js";
import type { ItemRecord } from "./records.js";

const PRICES_FORMAT = "esi3d-prices/1";

const PriceSchema = z
  .object({
    input: z.number().finite().min(0).describe("price of one unit (`per`) of input tokens"),
    output: z.number().finite().min(0).describe("price of one unit (`per`) of output tokens"),
  })
  .strict();

export const PriceTableSchema = z
  .object({
    format: z.literal(PRICES_FORMAT),
    currency: z.string().min(1).max(12).describe("the currency of every price, e.g. USD"),
    per: z.number().int().positive().default(1_000_000).describe("tokens each price is for (default 1,000,000, as providers list them)"),
    prices: z.record(z.string().min(1), PriceSchema).describe("by reasoner, as --reasoner names it (openai:<model>, gemini:<model>)"),
  })
  .strict();
export type PriceTable = z.infer<typeof PriceTableSchema>;

export function readPriceTable(file: string): PriceTable {
  return readJsonFile(
    file,
    PriceTableSchema,
    `price table (${PRICES_FORMAT}: {"format", "currency", "per", "prices": {"openai:<model>": {"input", "output"}}}; docs/logs.md)`,
  );
}

const count = () => z.number().int().min(0);

export const UsageRowSchema = z
  .object({
    reasoner: z.string(),
    items: count().describe("items this reasoner answered"),
    calls: count().describe("model calls that returned"),
    cached_calls: count().describe("of them, served from the response cache (no cost this time)"),
    calls_without_tokens: count().describe("calls whose server reported no token count (their tokens are not in the sums)"),
    input_tokens: count().describe("input tokens of every call, cached ones included"),
    output_tokens: count(),
    billed_input_tokens: count().describe("input tokens of the calls that reached the model"),
    billed_output_tokens: count(),
    cost: z
      .object({ amount: z.number().min(0), currency: z.string() })
      .strict()
      .nullable()
      .describe(
        "billed tokens at the price table's prices; null when there is no table, it has no price for this reasoner, or a billed call reported no tokens",
      ),
    cost_note: z.string().nullable().describe("why the cost is unknown, or how it was computed"),
  })
  .strict();
export type UsageRow = z.infer<typeof UsageRowSchema>;

/** Model reasoners only: offline programs make no calls and have nothing to total. */
export function usageTotals(records: readonly ItemRecord[], prices: PriceTable | null = null): UsageRow[] {
  const by = new Map<string, ItemRecord[]>();
  for (const r of records) if (r.calls) by.set(r.reasoner, [...(by.get(r.reasoner) ?? []), r]);
  return [...by.keys()].sort().map((reasoner) => {
    const items = by.get(reasoner)!;
    const calls = items.flatMap((r) => r.calls ?? []);
    const billed = calls.filter((c) => !c.cached);
    const sum = (cs: typeof calls, k: "input_tokens" | "output_tokens") => cs.reduce((s, c) => s + (c[k] ?? 0), 0);
    const missing = calls.filter((c) => c.input_tokens === null || c.output_tokens === null).length;
    const billedMissing = billed.filter((c) => c.input_tokens === null || c.output_tokens === null).length;
    const row = {
      reasoner,
      items: items.length,
      calls: calls.length,
      cached_calls: calls.length - billed.length,
      calls_without_tokens: missing,
      input_tokens: sum(calls, "input_tokens"),
      output_tokens: sum(calls, "output_tokens"),
      billed_input_tokens: sum(billed, "input_tokens"),
      billed_output_tokens: sum(billed, "output_tokens"),
    };
    const price = prices?.prices[reasoner];
    if (!prices) return { ...row, cost: null, cost_note: "unknown: no price table (--prices FILE)" };
    if (!price) return { ...row, cost: null, cost_note: `unknown: the price table has no price for ${reasoner}` };
    if (billedMissing) return { ...row, cost: null, cost_note: `unknown: ${billedMissing} billed call(s) reported no token count` };
    const amount = (row.billed_input_tokens * price.input + row.billed_output_tokens * price.output) / prices.per;
    return {
      ...row,
      cost: { amount, currency: prices.currency },
      cost_note: `${price.input} ${prices.currency} per ${prices.per.toLocaleString("en-US")} input and ${price.output} per ${prices.per.toLocaleString("en-US")} output tokens, billed calls only`,
    };
  });
}

/** "1.2345 USD", or "unknown (why)". */
const costText = (u: Pick<UsageRow, "cost" | "cost_note">): string => (u.cost ? `${u.cost.amount.toFixed(4)} ${u.cost.currency}` : (u.cost_note ?? "unknown"));

/** The report's table of token and cost totals (markdown or plain text). */
export function usageTable(rows: readonly UsageRow[]): string {
  if (!rows.length) return "No model calls: the run's reasoners are offline programs (no tokens, no cost).";
  const head = ["Reasoner", "items", "calls", "cached", "input tokens", "output tokens", "billed input", "billed output", "cost"];
  const body = rows.map((u) =>
    [u.reasoner, u.items, u.calls, u.cached_calls, u.input_tokens, u.output_tokens, u.billed_input_tokens, u.billed_output_tokens, costText(u)].map(String),
  );
  const lines = [
    `| ${head.join(" | ")} |`,
    `|${head.map((_, i) => (i === 0 || i === head.length - 1 ? "---" : "---:")).join("|")}|`,
    ...body.map((r) => `| ${r.join(" | ")} |`),
  ];
  const missing = rows.reduce((s, u) => s + u.calls_without_tokens, 0);
  return (
    lines.join("\n") +
    `\n(billed = calls that reached the model; cached calls cost nothing this time${missing ? `; ${missing} call(s) reported no token count and are not in the sums` : ""})`
  );
}
