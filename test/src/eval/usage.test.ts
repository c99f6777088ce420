/** Token and cost totals per reasoner: billed calls only, costs only from a price table, unknown otherwise. */
import { describe, expect, it } from "vitest";
import { PriceTableSchema, usageTable, usageTotals, type PriceTable } from "../../../src/eval/usage.js";
import type { ItemRecord } from "../../../src/eval/records.js";

type Call = NonNullable<ItemRecord["calls"]>[number];
const call = (input: number | null, output: number | null, cached = false): Call => ({
  served_model: "m-1",
  attempts: cached ? 0 : 1,
  cached,
  finish_reason: "stop",
  input_tokens: input,
  output_tokens: output,
});
const rec = (reasoner: string, calls: Call[] | null) => ({ reasoner, calls }) as unknown as ItemRecord;
const PRICES: PriceTable = PriceTableSchema.parse({ format: "esi3d-prices/1", currency: "EUR", prices: { "openai:a": { input: 2, output: 8 } } });

describe("usageTotals", () => {
  const records = [rec("openai:a", [call(100, 10), call(50, 5, true)]), rec("openai:a", [call(200, 20)]), rec("gemini:b", [call(7, 3)]), rec("symbolic", null)];

  it("sums every call's tokens, and apart the billed ones (cache hits cost nothing); offline reasoners have no row", () => {
    const u = usageTotals(records, PRICES);
    expect(u.map((x) => x.reasoner)).toEqual(["gemini:b", "openai:a"]);
    const a = u.find((x) => x.reasoner === "openai:a")!;
    expect(a).toMatchObject({
      items: 2,
      calls: 3,
      cached_calls: 1,
      input_tokens: 350,
      output_tokens: 35,
      billed_input_tokens: 300,
      billed_output_tokens: 30,
      calls_without_tokens: 0,
    });
    // per 1,000,000 tokens by default: 300 × 2 + 30 × 8 = 840 per million
    expect(a.cost).toEqual({ amount: 840 / 1e6, currency: "EUR" });
  });

  it("a cost is unknown, and says why, without a table, without a price for the reasoner, or with a billed call that reported no tokens", () => {
    expect(usageTotals(records).every((x) => x.cost === null && /no price table/.test(x.cost_note!))).toBe(true);
    expect(usageTotals(records, PRICES).find((x) => x.reasoner === "gemini:b")).toMatchObject({
      cost: null,
      cost_note: "unknown: the price table has no price for gemini:b",
    });
    const missing = usageTotals([rec("openai:a", [call(null, 4)])], PRICES)[0]!;
    expect(missing).toMatchObject({ cost: null, calls_without_tokens: 1 });
    expect(missing.cost_note).toMatch(/1 billed call\(s\) reported no token count/);
  });

  it("the report's table names every total, and an offline run says it made no model calls", () => {
    const t = usageTable(usageTotals(records, PRICES));
    expect(t).toMatch(/^\| Reasoner \| items \| calls \| cached \| input tokens \| output tokens \| billed input \| billed output \| cost \|/);
    expect(t).toContain("| openai:a | 2 | 3 | 1 | 350 | 35 | 300 | 30 | 0.0008 EUR |");
    expect(usageTable([])).toMatch(/No model calls/);
  });

  it("a price table is refused when malformed, naming the field", () => {
    expect(PriceTableSchema.safeParse({ format: "esi3d-prices/1", currency: "USD", prices: { "openai:a": { input: -1, output: 1 } } }).success).toBe(false);
    expect(PriceTableSchema.safeParse({ format: "prices", currency: "USD", prices: {} }).success).toBe(false);
  });
});
