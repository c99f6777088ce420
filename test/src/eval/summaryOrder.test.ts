/**
 * summary.json must not depend on the order items.jsonl holds its records in: a resumed run appends in
 * another order than an uninterrupted one (calibration fields differed by 1.1e-16, and the
 * tables' keys came out in another order).
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { ItemRecordSchema, itemKey, type ItemRecord } from "../../../src/eval/records.js";
import { summarizeRun } from "../../../src/eval/summary.js";

const SUBS = ["linear_alignment", "spatial_distance", "physical_contact", "counting_with_occlusion"] as const;

function record(i: number, rng: Rng): ItemRecord {
  const sub = SUBS[i % SUBS.length]!;
  const arm = i % 3 === 0 ? "2d" : "3d";
  const source = arm === "2d" ? null : i % 2 ? "gt" : "noisy";
  const status = i % 11 === 5 ? "error" : i % 13 === 7 ? "invalid" : "parsed";
  const parsed = status === "parsed";
  const r: ItemRecord = {
    key: itemKey(`${sub}-${String(i).padStart(3, "0")}`, i % 2 ? "single" : "gt", arm, source),
    task_id: `${sub}-${String(i).padStart(3, "0")}`,
    subcategory: sub,
    category: "spatial_relation",
    paradigm: i % 2 ? "single" : "gt",
    arm,
    source,
    noise_level: source === "noisy" ? 0.5 : null,
    reasoner: "openai:m",
    masks: arm === "3d" ? "semantic" : null,
    instances: arm === "3d" ? "fusion" : null,
    labels: "oracle",
    format: arm === "3d" ? "json" : null,
    uncertainty: arm === "3d" ? false : null,
    question: "q",
    answer_format: "yes_no",
    options: ["yes", "no"],
    truth: "yes",
    status,
    answer: parsed ? "yes" : null,
    // confidences whose float sums depend on the order they are added in
    confidence: parsed ? Number((0.1 + 0.8 * rng.next()).toFixed(7)) : null,
    correct: parsed ? rng.next() < 0.6 : null,
    mra: null,
    prompt_hash: null,
    raw: [],
    method: parsed ? "json" : "none",
    reprompted: false,
    views: 1,
    graph_quality:
      arm === "3d"
        ? {
            nodes: 5,
            matched: 4,
            objects: 5,
            observed_objects: 5,
            duplicates: 1,
            hallucinated: 0,
            recall_observed: 0.8,
            relation_precision: rng.next(),
            relation_recall: rng.next(),
          }
        : null,
    timings_ms: { reason: 100 + i },
    ...(status === "error"
      ? { error: { class: "LlmError:http:500", message: "boom" } }
      : status === "invalid"
        ? { error: { class: "invalid_reply", message: "unreadable" } }
        : {}),
  };
  return ItemRecordSchema.parse(r);
}

describe("summarizeRun", () => {
  it("gives byte-identical JSON for any order of the same records", () => {
    const rng = new Rng("summary-order");
    const rs = Array.from({ length: 120 }, (_, i) => record(i, rng));
    const reference = JSON.stringify(summarizeRun(rs));
    const shuffle = new Rng("shuffle");
    for (let trial = 0; trial < 5; trial++) {
      const copy = [...rs];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(shuffle.next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      expect(JSON.stringify(summarizeRun(copy))).toBe(reference);
    }
    expect(JSON.stringify(summarizeRun([...rs].reverse()))).toBe(reference);
  });

  it("counts the items without an answer by status and by cause", () => {
    const rng = new Rng("failures");
    const rs = Array.from({ length: 40 }, (_, i) => record(i, rng));
    const errors = rs.filter((r) => r.status === "error").length,
      invalid = rs.filter((r) => r.status === "invalid").length;
    expect(summarizeRun(rs).failures).toEqual({
      total: errors + invalid,
      byStatus: { error: errors, invalid },
      byClass: { "LlmError:http:500": errors, invalid_reply: invalid },
    });
    expect(summarizeRun(rs).headlines.join("\n")).toMatch(new RegExp(`Failures by cause: LlmError:http:500 ${errors}, invalid_reply ${invalid}`));
  });
});
