/**
 * Aggregates items.jsonl into summary.json: the paper's table (subcategory x method x paradigm) with n and
 * 95 % Wilson intervals, MRA for integer answers, calibration, graph quality per source, time per stage, and
 * headline findings in words.
 *
 * Every item counts. A cell's headline `score` is over all its items, an item without an answer (a program
 * that declined, an invalid reply, a failed call) credited at chance, 1/k of its options: every arm is then
 * scored on the same items, and declining cannot raise an arm above answering. Beside it, `coverage` (the
 * share answered) and `accuracy` (on the answered items), each with n.
 */
import { SUBCATEGORY_CATEGORY, SUBCATEGORY_TITLES, type Subcategory } from "../../core/task/taxonomy.js";
import * as z from "zod";
import { calibration, CalibrationSchema, GroupSummarySchema, summarize, type Calibration, type Interval } from "./metrics.js";
import { reasonerOfKey, type ItemRecord } from "./records.js";
import { activeRows, activeVsMulti, ActiveRowSchema, ParadigmDifferenceSchema } from "./activeSummary.js";
import { comparePaired, PAIRED_TESTS, PairedSummarySchema, SIGNIFICANCE_ALPHA } from "./pairedTests.js";
import type { Pair } from "./taskBootstrap.js";
import { usageTotals, UsageRowSchema, type PriceTable } from "./usage.js";

export const METHOD_LABELS: Record<string, string> = { "2d": "2D", shortcut: "Shortcut", gt: "GT-3D", noisy: "Noisy-3D", vggt: "VGGT-3D" };
/** The baseline methods (the table's first columns, in this order); every other method is a 3D arm. */
const BASELINE_METHODS = ["2D", "Shortcut"] as const;
const isBaselineMethod = (m: string) => (BASELINE_METHODS as readonly string[]).includes(splitMethod(m).arm);
/** Column titles of the paradigms (and of all of them pooled). */
export const PARADIGM_TITLES: Record<string, string> = { single: "Single", multi: "Multi", gt: "GT", active: "Active", all: "All" };

/** A run of several reasoners has one method per reasoner and arm: the arm's name, then the reasoner in brackets ("GT-3D [openai:gpt-4o]"). */
export function methodOf(r: Pick<ItemRecord, "arm" | "source"> & Partial<Pick<ItemRecord, "key" | "noise_level" | "labels">>): string {
  const reasoner = r.key ? reasonerOfKey(r.key) : null;
  return reasoner === null ? armMethodOf(r) : `${armMethodOf(r)} [${reasoner}]`;
}

/** A method's arm name and reasoner (null for a single-reasoner run's methods and the shared shortcut). */
export function splitMethod(m: string): { arm: string; reasoner: string | null } {
  const x = /^(.*) \[([^\]]+)\]$/.exec(m);
  return x ? { arm: x[1]!, reasoner: x[2]! } : { arm: m, reasoner: null };
}

function armMethodOf(r: Pick<ItemRecord, "arm" | "source"> & Partial<Pick<ItemRecord, "key" | "noise_level" | "labels">>): string {
  if (r.arm === "2d") return "2D";
  if (r.arm === "shortcut") return "Shortcut";
  // appearance-label arms are their own columns beside the oracle-label ones ("GT-3D appearance")
  const labels = r.labels === "appearance" ? " appearance" : "";
  if (r.key?.includes("|3d:noisy@")) return `Noisy-3D@${r.noise_level}${labels}`;
  return `${METHOD_LABELS[r.source ?? ""] ?? `${r.source}-3D`}${labels}`;
}

/** Whether an item has an answer that was scored right or wrong. */
export const isAnswered = (r: Pick<ItemRecord, "status" | "correct">): boolean => r.status === "parsed" && r.correct !== null;

/** An item's score: 1 right, 0 wrong, its chance credit (chanceOf) without an answer. */
export const creditOf = (r: Pick<ItemRecord, "status" | "correct" | "options" | "circular" | "chance">): number =>
  isAnswered(r) ? (r.correct ? 1 : 0) : chanceOf(r);

const scored = (r: ItemRecord) => ({
  scored: isAnswered(r),
  correct: r.correct ?? undefined,
  chance: chanceOf(r),
  mra: r.mra ?? undefined,
  ...(r.structured && r.structured.parts_total !== null ? { parts: { correct: r.structured.parts_correct ?? 0, total: r.structured.parts_total } } : {}),
});

const CellSchema = GroupSummarySchema.extend({
  invalid: z.number().int().min(0).describe("replies that could not be read, after the re-prompt"),
  errors: z.number().int().min(0).describe("failed or empty model calls"),
  unanswerable: z.number().int().min(0).describe("offline programs that declined: the graph (or the masks) lacked what the question needs"),
  chance: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("mean chance accuracy of the items' questions (one over the number of options); absent in summaries before the shortcut baseline"),
  agreement: z
    .object({ mean: z.number().min(0).max(1), n: z.number().int().min(1) })
    .strict()
    .optional()
    .describe("--samples k > 1: the mean share of an item's samples that gave its majority answer, over the n sampled items"),
}).strict();
export type Cell = z.infer<typeof CellSchema>;

const nullableRate = () => z.number().min(0).max(1).nullable();

const QualityRowSchema = z
  .object({
    source: z.string(),
    paradigm: z.string(),
    graphs: z.number().int().min(0),
    node_f1: z.number(),
    precision: z.number(),
    recall_observed: z.number(),
    duplicate_rate: z.number(),
    hallucination_rate: z.number(),
    stale_rate: z
      .number()
      .optional()
      .describe(
        "nodes where a moved object was and no longer is, over nodes (absent in summaries written before objects could move, and where no graph's record counts stale nodes)",
      ),
    miss_rate: z.number(),
    relation_precision: nullableRate(),
    relation_recall: nullableRate(),
    nodes_per_graph: z.number(),
    duplicates_per_graph: z.number(),
    hallucinated_per_graph: z.number(),
    stale_per_graph: z.number().optional().describe("absent where stale_rate is"),
    mirror_ghost_rate: z
      .number()
      .optional()
      .describe("mirror ghosts (a reflection taken for geometry) over nodes, over the graphs of scenes with mirrors; absent where none has a mirror"),
    mirror_ghosts_per_graph: z.number().optional().describe("absent where mirror_ghost_rate is"),
  })
  .strict();
type QualityRow = z.infer<typeof QualityRowSchema>;

const DifferenceSchema = z
  .object({
    subcategory: z.string(),
    a: z.string(),
    b: z.string(),
    paradigm: z.string(),
    diff: z.number(),
    lo: z.number(),
    hi: z.number(),
    test: z
      .enum(PAIRED_TESTS)
      .optional()
      .describe(
        "mcnemar-exact (one pair per task), signflip-task (paradigms pooled: exact sign-flip over tasks, task-bootstrap interval), newcombe (no shared item); absent in summaries before paired differences, which were all Newcombe",
      ),
    p: z.number().min(0).max(1).nullable().optional().describe("two-sided p-value of the test; null for newcombe"),
    pairs: PairedSummarySchema.nullable()
      .optional()
      .describe("the items of both methods, each scored 1, 0 or its chance credit (null: none shared, the independent-samples fallback)"),
  })
  .strict()
  .describe(
    "accuracy over all items of method a minus method b, an unanswered item credited at chance: paired by task and paradigm (docs/statistics.md); otherwise Newcombe's 95 % interval",
  );
export type Difference = z.infer<typeof DifferenceSchema>;

const FailuresSchema = z
  .object({
    total: z.number().int().min(0).describe("items whose status is error, empty or invalid"),
    byStatus: z.record(z.string(), z.number().int().min(0)).describe("error / empty / invalid / unanswerable: count"),
    byClass: z
      .record(z.string(), z.number().int().min(0))
      .describe('failure class (ItemRecord.error.class): count; items of older runs without one count as "unknown"'),
  })
  .strict();
type Failures = z.infer<typeof FailuresSchema>;

/** Statuses that mean the pipeline produced nothing usable for an item (unanswerable is a program declining, not a failure). */
const FAILED_STATUSES: ReadonlySet<ItemRecord["status"]> = new Set(["error", "empty", "invalid"]);

/** Counts of items without an answer, keys sorted so the file does not depend on record order. */
function failuresOf(records: readonly ItemRecord[]): Failures {
  const byStatus: Record<string, number> = {},
    byClass: Record<string, number> = {};
  let total = 0;
  for (const r of records) {
    if (r.status === "parsed") continue;
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    if (!FAILED_STATUSES.has(r.status)) continue;
    total++;
    const c = r.error?.class ?? "unknown";
    byClass[c] = (byClass[c] ?? 0) + 1;
  }
  const sorted = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { total, byStatus: sorted(byStatus), byClass: sorted(byClass) };
}

/**
 * True when not one item that needed the run's reasoner got an answer or a program's verdict: each ended in
 * error, empty or invalid (a bad key, a dead endpoint, a model that never replies in form). The shortcut arm
 * is left out: it reads only the question, offline, so it answers whatever else failed.
 */
export function nothingSucceeded(records: readonly ItemRecord[]): boolean {
  const needed = records.filter((r) => r.arm !== "shortcut");
  return needed.length > 0 && needed.every((r) => FAILED_STATUSES.has(r.status));
}

/** The most common failure class of the records (ties: the first in class order), its count and its first item's message. */
export function mainFailure(records: readonly ItemRecord[]): { class: string; count: number; message: string } | null {
  const byClass = failuresOf(records).byClass;
  const top = Object.entries(byClass).reduce<[string, number] | null>((best, e) => (best === null || e[1] > best[1] ? e : best), null);
  if (!top) return null;
  const first = records.find((r) => FAILED_STATUSES.has(r.status) && (r.error?.class ?? "unknown") === top[0]);
  return { class: top[0], count: top[1], message: first?.error?.message ?? "(the record keeps no message)" };
}

const byParadigm = z.record(z.string(), CellSchema);
const byMethod = z.record(z.string(), byParadigm);

/** summary.json's format: /2 scores every item (declines at chance) and pairs over all items; /1 left declines out. */
export const SUMMARY_FORMAT = "esi3d-summary/2";

const RunSummarySchema = z
  .object({
    format: z.literal(SUMMARY_FORMAT),
    items: z.number().int().min(0),
    unscored: z.number().int().min(0),
    methods: z.array(z.string()),
    paradigms: z.array(z.string()),
    subcategories: z.array(z.string()),
    table: z.record(z.string(), byMethod).describe("table[subcategory][method][paradigm]"),
    byCategory: z.record(z.string(), byMethod).describe("byCategory[category][method][paradigm]"),
    overall: byMethod.describe('overall[method][paradigm], with "all" pooling paradigms'),
    calibration: z.record(z.string(), CalibrationSchema),
    quality: z.array(QualityRowSchema),
    timings_ms: z.record(z.string(), z.object({ mean: z.number(), n: z.number().int() }).strict()),
    differences: z.array(DifferenceSchema),
    failures: FailuresSchema.optional().describe("items without an answer, by status and by failure class (absent in summaries of esi3d before 0.1.1)"),
    headlines: z.array(z.string()),
    active: z.array(ActiveRowSchema).optional().describe("paradigm active: steps, stop reasons, anytime accuracy, premature commitment, actions, per method"),
    activeVsMulti: z.array(ParadigmDifferenceSchema).optional().describe("Active minus Multi per subcategory and method, Newcombe 95 % interval"),
    usage: z
      .array(UsageRowSchema)
      .optional()
      .describe(
        "token and cost totals per model reasoner (src/eval/usage.ts; costs only from a price table the user gives, --prices); empty for offline reasoners; absent in summaries of esi3d before it",
      ),
  })
  .strict();
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** summary.json: the summary, and whether the run completed. */
export const SummaryFileSchema = RunSummarySchema.extend({
  complete: z.boolean().describe("false when the run was interrupted (--resume completes it)"),
  wall_seconds: z.number().min(0),
}).strict();

export function cell(records: ItemRecord[], group: string): Cell {
  const count = (...statuses: ItemRecord["status"][]) => records.filter((r) => statuses.includes(r.status)).length;
  const chance = records.length ? Math.round((records.reduce((t, r) => t + chanceOf(r), 0) / records.length) * 1e6) / 1e6 : 0;
  const sampled = records.filter((r) => r.sampling);
  const agreement = sampled.length
    ? { agreement: { mean: Math.round((sampled.reduce((t, r) => t + r.sampling!.agreement, 0) / sampled.length) * 1e6) / 1e6, n: sampled.length } }
    : {};
  return {
    ...summarize(records.map(scored), group),
    invalid: count("invalid"),
    errors: count("error", "empty"),
    unanswerable: count("unanswerable"),
    chance,
    ...agreement,
  };
}

/** Newcombe's hybrid score interval for the difference of two independent proportions. */
export function newcombeDifference(a: Interval & { k?: number }, b: Interval): { diff: number; lo: number; hi: number } {
  const d = a.p - b.p;
  return { diff: d, lo: d - Math.sqrt((a.p - a.lo) ** 2 + (b.hi - b.p) ** 2), hi: d + Math.sqrt((a.hi - a.p) ** 2 + (b.p - b.lo) ** 2) };
}

/**
 * Chance accuracy of a record's question: what a uniform guess between its k options scores, 1/k (0 without
 * options); under --circular an item is right only if each of its rotations is, so a guess scores (1/k)^rotations;
 * a structured answer's record carries its own (score.ts structuredChance).
 */
const chanceOf = (r: Pick<ItemRecord, "options" | "circular" | "chance">): number => {
  if (r.chance !== undefined) return r.chance;
  if (!r.options.length) return 0;
  return r.circular ? (1 / r.options.length) ** r.circular.rotations : 1 / r.options.length;
};

/**
 * The subcategories the shortcut baseline answers above chance, paradigms pooled: those give part of their
 * answers away without perception. Above chance means the lower end of its 95 % interval is above the mean
 * chance of its questions (Cell.chance).
 */
function shortcutAboveChance(table: RunSummary["table"], subcategories: readonly string[]): Array<{ subcategory: string; accuracy: number; chance: number }> {
  return subcategories.flatMap((s) => {
    const c = table[s]?.["Shortcut"]?.["all"];
    if (!c || c.n === 0 || c.chance === undefined) return [];
    return c.score.lo > c.chance ? [{ subcategory: s, accuracy: c.score.p, chance: c.chance }] : [];
  });
}

function shortcutHeadline(records: readonly ItemRecord[], table: RunSummary["table"], subcategories: readonly string[]): string | null {
  if (!records.some((r) => r.arm === "shortcut")) return null;
  const above = shortcutAboveChance(table, subcategories);
  if (!above.length)
    return "The shortcut baseline (question and options only) stays within chance on every subcategory: no answer is given away without perception.";
  return `The shortcut baseline (question and options only) beats chance on ${above.length} subcategor${above.length === 1 ? "y" : "ies"}: ${above.map((a) => `${SUBCATEGORY_TITLES[a.subcategory as Subcategory] ?? a.subcategory} ${(a.accuracy * 100).toFixed(1)}% (chance ${(a.chance * 100).toFixed(1)}%)`).join(", ")}.`;
}

/**
 * Items of arm a and arm b of the same task and paradigm, each with its score (creditOf: an unanswered item its
 * chance credit): the pairs of a paired test, clustered by task. Each list holds at most one item per task and
 * paradigm (one method's items).
 */
export function pairByTask(a: readonly ItemRecord[], b: readonly ItemRecord[]): Pair[] {
  const byTask = new Map<string, number>();
  for (const r of b) byTask.set(`${r.task_id}\u0000${r.paradigm}`, creditOf(r));
  const out: Pair[] = [];
  for (const r of a) {
    const other = byTask.get(`${r.task_id}\u0000${r.paradigm}`);
    if (other !== undefined) out.push({ cluster: r.task_id, a: creditOf(r), b: other });
  }
  return out;
}

/** Records by subcategory and method, so each difference row reads only its own cell. */
function bySubcategoryAndMethod(records: readonly ItemRecord[]): Map<string, ItemRecord[]> {
  const out = new Map<string, ItemRecord[]>();
  for (const r of records) {
    const k = `${r.subcategory}\u0000${methodOf(r)}`;
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** The items of one subcategory and paradigm ("all" pools them) of method m and its 2D baseline (twoD: the same reasoner's), paired by task. */
function pairsAgainst2D(cells: Map<string, ItemRecord[]>, sub: string, m: string, twoD: string, paradigm: string): Pair[] {
  const cellOf = (method: string) => (cells.get(`${sub}\u0000${method}`) ?? []).filter((r) => paradigm === "all" || r.paradigm === paradigm);
  return pairByTask(cellOf(m), cellOf(twoD));
}

/** A difference the paired test calls significant; an unpaired (Newcombe) one when its interval excludes 0. */
export const significant = (d: Pick<Difference, "p" | "lo" | "hi">): boolean =>
  d.p === null || d.p === undefined ? d.lo > 0 || d.hi < 0 : d.p < SIGNIFICANCE_ALPHA;

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

/**
 * Stale nodes (or mirror ghosts) over nodes, and per graph, over the graphs whose quality figures count them;
 * undefined when none does (a record written before objects could move has no stale count: unknown, not 0; a
 * scene without mirrors has no mirror ghost count).
 */
export function statusFigures(
  qs: ReadonlyArray<Record<string, number | null>>,
  key: "stale" | "mirror_ghosts",
): { rate: number; perGraph: number } | undefined {
  const counted = qs.filter((q) => typeof q[key] === "number");
  if (!counted.length) return undefined;
  const nodes = counted.reduce((s, q) => s + (q.nodes ?? 0), 0),
    n = counted.reduce((s, q) => s + q[key]!, 0);
  return { rate: nodes ? n / nodes : 0, perGraph: n / counted.length };
}

/**
 * The summary of a run's records. The records are put in key order first, so every sum (accuracies,
 * calibration, quality means) is taken in one fixed order and summary.json is byte-identical however the
 * records were appended (a resumed run appends in another order: differences of 1.1e-16).
 */
export function summarizeRun(input: readonly ItemRecord[], prices: PriceTable | null = null): RunSummary {
  const records = [...input].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rank = (m: string) =>
    isBaselineMethod(m) ? BASELINE_METHODS.indexOf(splitMethod(m).arm as (typeof BASELINE_METHODS)[number]) : BASELINE_METHODS.length;
  // several reasoners: each reasoner's methods together (the shared shortcut first)
  const reasonerOf = (m: string) => splitMethod(m).reasoner ?? "";
  const methods = [...new Set(records.map(methodOf))].sort((a, b) => reasonerOf(a).localeCompare(reasonerOf(b)) || rank(a) - rank(b) || a.localeCompare(b));
  const paradigms = ["single", "multi", "gt", "active"].filter((p) => records.some((r) => r.paradigm === p));
  const subcategories = [...new Set(records.map((r) => r.subcategory))].sort(
    (a, b) => Object.keys(SUBCATEGORY_CATEGORY).indexOf(a) - Object.keys(SUBCATEGORY_CATEGORY).indexOf(b),
  );
  const group = (keyOf: (r: ItemRecord) => string) => {
    const out: Record<string, Record<string, Record<string, Cell>>> = {};
    const buckets = new Map<string, ItemRecord[]>();
    for (const r of records) {
      for (const p of [r.paradigm, "all"]) {
        const k = `${keyOf(r)}\u0000${methodOf(r)}\u0000${p}`;
        buckets.set(k, [...(buckets.get(k) ?? []), r]);
      }
    }
    for (const [k, rs] of buckets) {
      const [g, m, p] = k.split("\u0000") as [string, string, string];
      ((out[g] ??= {})[m] ??= {})[p] = cell(rs, `${g}/${m}/${p}`);
    }
    return out;
  };
  const table = group((r) => r.subcategory);
  const byCategory = group((r) => r.category);
  const overall = group(() => "overall")["overall"] ?? {};
  const cal: Record<string, Calibration> = {};
  for (const m of methods)
    cal[m] = calibration(
      records.filter((r) => methodOf(r) === m && r.status === "parsed").map((r) => ({ confidence: r.confidence ?? undefined, correct: r.correct === true })),
    );
  const quality: QualityRow[] = [];
  for (const source of [...new Set(records.filter((r) => r.arm === "3d").map((r) => r.source!))].sort()) {
    for (const p of paradigms) {
      const qs = records.filter((r) => r.arm === "3d" && r.source === source && r.paradigm === p && r.graph_quality).map((r) => r.graph_quality!);
      if (!qs.length) continue;
      const sum = (k: string) => qs.reduce((s, q) => s + (q[k] ?? 0), 0);
      const nodes = sum("nodes"),
        matched = sum("matched"),
        observed = sum("observed_objects");
      const precision = nodes ? matched / nodes : 0,
        recall = observed ? qs.reduce((s, q) => s + (q.recall_observed ?? 0) * (q.observed_objects ?? 0), 0) / observed : 0;
      const relP = qs.filter((q) => q.relation_precision !== null),
        relR = qs.filter((q) => q.relation_recall !== null);
      const stale = statusFigures(qs, "stale"),
        ghosts = statusFigures(qs, "mirror_ghosts");
      quality.push({
        source,
        paradigm: p,
        graphs: qs.length,
        node_f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
        precision,
        recall_observed: recall,
        duplicate_rate: nodes ? sum("duplicates") / nodes : 0,
        hallucination_rate: nodes ? sum("hallucinated") / nodes : 0,
        stale_rate: stale?.rate,
        miss_rate: sum("objects") ? (sum("objects") - matched) / sum("objects") : 0,
        relation_precision: relP.length ? mean(relP.map((q) => q.relation_precision!)) : null,
        relation_recall: relR.length ? mean(relR.map((q) => q.relation_recall!)) : null,
        nodes_per_graph: nodes / qs.length,
        duplicates_per_graph: sum("duplicates") / qs.length,
        hallucinated_per_graph: sum("hallucinated") / qs.length,
        stale_per_graph: stale?.perGraph,
        ...(ghosts ? { mirror_ghost_rate: ghosts.rate, mirror_ghosts_per_graph: ghosts.perGraph } : {}),
      });
    }
  }
  const timings: Record<string, { mean: number; n: number }> = {};
  const stageValues = new Map<string, number[]>();
  for (const r of records)
    for (const [k, v] of Object.entries(r.timings_ms)) stageValues.set(`${methodOf(r)}:${k}`, [...(stageValues.get(`${methodOf(r)}:${k}`) ?? []), v]);
  for (const [k, vs] of [...stageValues.entries()].sort()) timings[k] = { mean: Math.round(mean(vs) * 10) / 10, n: vs.length };
  // differences of each 3D method against 2D, per subcategory, paradigms pooled and per paradigm
  const differences: Difference[] = [];
  const cells = bySubcategoryAndMethod(records);
  for (const s of subcategories)
    for (const m of methods.filter((x) => !isBaselineMethod(x)))
      for (const p of [...paradigms, "all"]) {
        // against the 2D arm of the same reasoner
        const r = splitMethod(m).reasoner,
          twoD = r === null ? "2D" : `2D [${r}]`;
        const a = table[s]?.[m]?.[p],
          b = table[s]?.[twoD]?.[p];
        if (!a || !b || a.n === 0 || b.n === 0) continue;
        const paired = comparePaired(pairsAgainst2D(cells, s, m, twoD, p));
        differences.push(
          paired
            ? {
                subcategory: s,
                a: m,
                b: twoD,
                paradigm: p,
                diff: paired.diff,
                lo: paired.lo,
                hi: paired.hi,
                test: paired.test,
                p: paired.p,
                pairs: paired.pairs,
              }
            : { subcategory: s, a: m, b: twoD, paradigm: p, ...newcombeDifference(a.score, b.score), test: "newcombe", p: null, pairs: null },
        );
      }
  const headlines: string[] = [];
  const pctS = (x: number) => `${(x * 100).toFixed(1)}%`;
  if (overall) {
    // a method with no answer scores chance on every item: say how its items ended beside it
    const describe = (m: string, c: Cell) =>
      c.nScored === c.n
        ? `${m} ${pctS(c.score.p)}`
        : c.nScored > 0
          ? `${m} ${pctS(c.score.p)} (coverage ${pctS(c.coverage.p)}, ${pctS(c.accuracy.p)} of those answered)`
          : `${m} ${pctS(c.score.p)}, no item answered (${c.n} item(s): ${c.errors} failed, ${c.invalid} invalid, ${c.unanswerable} unanswerable)`;
    const parts = methods.map((m) => (overall[m]?.["all"] ? describe(m, overall[m]!["all"]!) : null)).filter(Boolean);
    if (parts.length)
      headlines.push(
        `Overall accuracy over all items (paradigms pooled; an item without an answer credited at chance, 1/k of its options, a structured answer each part among its own): ${parts.join(", ")}.`,
      );
  }
  const shortcutLine = shortcutHeadline(records, table, subcategories);
  if (shortcutLine) headlines.push(shortcutLine);
  for (const m of methods.filter((x) => !isBaselineMethod(x))) {
    const ds = differences.filter((d) => d.a === m && d.paradigm === "all");
    if (!ds.length) continue;
    const ahead = ds.filter((d) => d.diff > 0),
      behind = ds.filter((d) => d.diff < 0);
    const sigAhead = ahead.filter(significant).length,
      sigBehind = behind.filter(significant).length;
    headlines.push(
      `${m} beats 2D on ${ahead.length} of ${ds.length} subcategories (${sigAhead} significantly) and falls below it on ${behind.length} (${sigBehind} significantly); over all items, paired by task, p < ${SIGNIFICANCE_ALPHA}.`,
    );
    const worst = [...ds].sort((x, y) => x.diff - y.diff)[0];
    const best = [...ds].sort((x, y) => y.diff - x.diff)[0];
    if (best && best.diff > 0)
      headlines.push(
        `Largest ${m} gain over 2D: ${SUBCATEGORY_TITLES[best.subcategory as Subcategory] ?? best.subcategory} (${best.diff >= 0 ? "+" : ""}${(best.diff * 100).toFixed(1)} points).`,
      );
    if (worst && worst.diff < 0)
      headlines.push(
        `Largest ${m} loss against 2D: ${SUBCATEGORY_TITLES[worst.subcategory as Subcategory] ?? worst.subcategory} (${(worst.diff * 100).toFixed(1)} points).`,
      );
  }
  for (const q of quality.filter((x) => x.paradigm === "gt" || paradigms.length === 1))
    headlines.push(
      `${METHOD_LABELS[q.source] ?? q.source} graphs (${q.paradigm} views): node F1 ${q.node_f1.toFixed(3)}, ${q.duplicates_per_graph.toFixed(2)} duplicate${q.stale_per_graph ? `, ${q.hallucinated_per_graph.toFixed(2)} hallucinated and ${q.stale_per_graph.toFixed(2)} stale` : ` and ${q.hallucinated_per_graph.toFixed(2)} hallucinated`} nodes per graph.`,
    );
  const unscored = records.filter((r) => r.status !== "parsed").length;
  if (unscored) {
    const declinedByMethod = methods
      .map((m) => [m, records.filter((r) => methodOf(r) === m && r.status === "unanswerable").length] as const)
      .filter(([, n]) => n > 0);
    const declinedText = declinedByMethod.length ? `; unanswerable (the program declined): ${declinedByMethod.map(([m, n]) => `${m} ${n}`).join(", ")}` : "";
    headlines.push(
      `${unscored} item(s) had no usable answer (invalid, empty, error or unanswerable${declinedText}); each is credited at chance in the accuracy over all items, and left out of the accuracy on answered items.`,
    );
  }
  const failures = failuresOf(records);
  if (failures.total)
    headlines.push(
      `Failures by cause: ${Object.entries(failures.byClass)
        .map(([c, n]) => `${c} ${n}`)
        .join(", ")}.`,
    );
  const active = paradigms.includes("active") ? { active: activeRows(records, methodOf), activeVsMulti: activeVsMulti(table, newcombeDifference) } : {};
  for (const row of active.active ?? [])
    headlines.push(
      `${row.method} Active: ${row.mean_steps.toFixed(1)} steps on average; stops ${Object.entries(row.stop_reasons)
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ", ",
        )}; premature commitment ${row.premature_commitment === null ? "-" : `${(row.premature_commitment * 100).toFixed(1)}%`} of ${row.confident_answers} confident answers.`,
    );
  return {
    format: SUMMARY_FORMAT,
    items: records.length,
    unscored,
    methods,
    paradigms,
    subcategories,
    table,
    byCategory,
    overall,
    calibration: cal,
    quality,
    timings_ms: timings,
    differences,
    failures,
    headlines,
    ...active,
    usage: usageTotals(records, prices),
  };
}
