/**
 * Reports people want to read: the paper-style table for the terminal, and report.md. report.html is drawn from
 * report.md with its charts by reportHtml.ts.
 */
import { CATEGORY_TITLES, SUBCATEGORY_CATEGORY, SUBCATEGORY_TITLES, type Category, type Subcategory } from "../../core/task/taxonomy.js";
import { formatTable } from "../../core/table.js";
import { sha256Hex } from "../../core/hash.js";
import { hasSymbolic, modelReasoners, type RunConfig } from "./config.js";
import { describeLimits } from "../llm/gate.js";
import { METHOD_LABELS, PARADIGM_TITLES, splitMethod, type Cell, type RunSummary } from "./summary.js";
import { ANYTIME_REPORT_STEPS } from "./activeSummary.js";
import { SMALL_CELL_LEGEND, smallMark } from "./smallSamples.js";
import { fuzzyMatchSection, type FuzzyMatch } from "./fuzzyMatches.js";
import { agreementTable, paperAgreement, PAPER_DIFFERENCE_MIN_POINTS } from "./paperAgreement.js";
import { usageTable } from "./usage.js";

const title = (s: string) => SUBCATEGORY_TITLES[s as Subcategory] ?? s;
const percent = (x: number) => (x * 100).toFixed(1);

/**
 * The three forms of a cell's accuracy (summary.ts): `all`, over every item with an unanswered one credited at
 * chance (the headline); `coverage`, the share answered; `answered`, the accuracy on the answered items.
 */
const ACCURACY_FORMS = ["all", "coverage", "answered"] as const;
export type AccuracyForm = (typeof ACCURACY_FORMS)[number];

/** What each form's table says it shows. */
const FORM_NOTES: Record<AccuracyForm, string> = {
  all: "accuracy % over all items (n), an item without an answer credited at chance, 1/k of its options (a structured answer: each part among its own)",
  coverage: "coverage: % of the items answered (answered / all)",
  answered: "accuracy % on the answered items only (n answered)",
};

/** A cell in one form, marked when small: "66.7 (27)", "50.0 (2*)", "87.5 (35/40)", "- (0)". */
function formCell(c: Cell | undefined, form: AccuracyForm): string {
  if (!c) return "-";
  if (form === "all") return c.n === 0 ? "- (0)" : `${percent(c.score.p)} (${c.n}${smallMark(c.n)})`;
  if (form === "coverage") return c.n === 0 ? "- (0)" : `${percent(c.coverage.p)} (${c.nScored}/${c.n})`;
  return c.nScored === 0 ? "- (0)" : `${percent(c.accuracy.p)} (${c.nScored}${smallMark(c.nScored)})`;
}
const pct = (c: Cell | undefined) => formCell(c, "all");

function pad(rows: string[][], markdown: boolean): string {
  return formatTable(rows[0]!, rows.slice(1), { markdown, align: "numbers" });
}

/** Accuracy (%) by subcategory (grouped by category) x method x paradigm, as in the paper's Table 4, in one of the three forms. */
export function paperTable(s: RunSummary, opts: { markdown?: boolean; form?: AccuracyForm } = {}): string {
  const form = opts.form ?? "all";
  const cellOf = (c: Cell | undefined) => formCell(c, form);
  const cols = s.methods.flatMap((m) => s.paradigms.map((p) => [m, p] as const));
  const header = ["Subcategory", ...cols.map(([m, p]) => `${m} ${PARADIGM_TITLES[p]}`)];
  const rows: string[][] = [header];
  const cats = [...new Set(s.subcategories.map((x) => SUBCATEGORY_CATEGORY[x as Subcategory]))];
  for (const c of cats) {
    rows.push([
      opts.markdown ? `**${CATEGORY_TITLES[c as Category] ?? c}**` : `${CATEGORY_TITLES[c as Category] ?? c}`,
      ...cols.map(([m, p]) => cellOf(s.byCategory[c]?.[m]?.[p])),
    ]);
    for (const sub of s.subcategories.filter((x) => SUBCATEGORY_CATEGORY[x as Subcategory] === c))
      rows.push([`  ${title(sub)}`, ...cols.map(([m, p]) => cellOf(s.table[sub]?.[m]?.[p]))]);
  }
  rows.push([opts.markdown ? "**Overall**" : "Overall", ...cols.map(([m, p]) => cellOf(s.overall[m]?.[p]))]);
  return pad(rows, !!opts.markdown) + `\n(${FORM_NOTES[form]}; ${SMALL_CELL_LEGEND}; 95 % Wilson intervals in summary.json and report.md)`;
}

/** "82.5 [71, 90] n=40 · cov 87.5 % · answered 85.7 [71, 94] n=35": the three forms of a cell with their n. */
function cellWithInterval(c: Cell | undefined): string {
  if (!c || c.n === 0) return "-";
  const all = `${percent(c.score.p)} [${(c.score.lo * 100).toFixed(0)}, ${(c.score.hi * 100).toFixed(0)}] n=${c.n}${smallMark(c.n)}`;
  if (c.nScored === c.n) return all;
  const answered =
    c.nScored === 0
      ? "none answered"
      : `answered ${percent(c.accuracy.p)} [${(c.accuracy.lo * 100).toFixed(0)}, ${(c.accuracy.hi * 100).toFixed(0)}] n=${c.nScored}${smallMark(c.nScored)}`;
  return `${all} · cov ${percent(c.coverage.p)} % · ${answered}`;
}

function evidenceLine(config: RunConfig): string {
  const oracle = config.graph.masks === "oracle" ? " — ORACLE masks: a diagnostic upper bound, not a realistic pipeline" : "";
  const symbolic = hasSymbolic(config),
    models = modelReasoners(config).length > 0;
  const weighing = symbolic
    ? config.prompt.uncertainty
      ? ", and the symbolic programs weigh node evidence (--uncertainty on: duplicates resolved by views and distance, low-support objects discounted)"
      : ", and the symbolic programs read every node at face value (--uncertainty off)"
    : "";
  const twoD = [
    symbolic ? "per-view instance masks in pixel space (symbolic-2d)" : null,
    models ? `images (${config.images.images}) for the model reasoners` : null,
  ]
    .filter(Boolean)
    .join(", and ");
  return `Evidence: 3D arms use --masks ${config.graph.masks}${oracle}, --instances ${config.graph.instances}${weighing}; the 2D baseline sees ${twoD}, never depth or identity across views. Label-answer subcategories (View Hallucination, Partial Occlusion) are label-trivial whenever masks carry categories.`;
}

/** The name a leaderboard gives the shared question-only arm (it answers the same whatever the reasoner). */
const SHORTCUT_ROW = "shortcut";

/**
 * The leaderboard: one row per reasoner and arm (reasoners in the run's order, the shared shortcut baseline
 * last), paradigms pooled, in the three forms with their n: the accuracy over all items (an unanswered item
 * credited at chance) with its 95 % interval, the coverage, and the accuracy on the answered items; then the
 * items without an answer by kind and, with --samples, the mean agreement of the samples with their majority.
 * The symbolic reasoner's 2D arm is the symbolic-2d program.
 */
export function leaderboardTable(s: RunSummary, reasoners: readonly string[], opts: { markdown?: boolean } = {}): string {
  const rows: Array<{ reasoner: string; arm: string; c: Cell }> = [];
  for (const m of s.methods) {
    const c = s.overall[m]?.["all"];
    if (!c) continue;
    const { arm, reasoner } = splitMethod(m);
    rows.push({ reasoner: reasoner ?? (arm === "Shortcut" ? SHORTCUT_ROW : reasoners[0]!), arm, c });
  }
  const order = [...reasoners, SHORTCUT_ROW];
  rows.sort((a, b) => order.indexOf(a.reasoner) - order.indexOf(b.reasoner));
  const sampled = rows.some((r) => r.c.agreement);
  const header = [
    "Reasoner",
    "Arm",
    "accuracy, all items [95 %]",
    "n",
    "coverage",
    "accuracy, answered [95 %]",
    "answered",
    "invalid",
    "unanswerable",
    "errors",
    ...(sampled ? ["agreement"] : []),
  ];
  const interval = (i: Cell["score"]) => `${percent(i.p)} [${(i.lo * 100).toFixed(0)}, ${(i.hi * 100).toFixed(0)}]`;
  const body = rows.map(({ reasoner, arm, c }) => [
    reasoner,
    arm,
    c.n ? interval(c.score) : "-",
    String(c.n),
    c.n ? `${percent(c.coverage.p)} %` : "-",
    c.nScored ? interval(c.accuracy) : "-",
    `${c.nScored}${smallMark(c.nScored)}`,
    String(c.invalid),
    String(c.unanswerable),
    String(c.errors),
    ...(sampled ? [c.agreement ? c.agreement.mean.toFixed(3) : "-"] : []),
  ]);
  return (
    formatTable(header, body, { markdown: !!opts.markdown, align: "numbers" }) +
    `\n(paradigms pooled; accuracy over all items credits an item without an answer (invalid, unanswerable, error) at chance, 1/k of its options (a structured answer: each part among its own), so every arm is scored on the same items; coverage = answered / all; ${SMALL_CELL_LEGEND})`
  );
}

/** How the model reasoners were asked: what changes their replies. */
function generationLine(config: RunConfig): string {
  const l = config.llm;
  const system =
    l.systemPrompt === null
      ? "src/prompt's system text"
      : `a custom system prompt (${l.systemPrompt.length} characters, sha256 ${sha256Hex(l.systemPrompt).slice(0, 12)}; the text is in config.json)`;
  const samples = l.samples > 1 ? `${l.samples} samples per item, majority vote (agreement per item in items.jsonl: sampling)` : "one answer per item";
  return `Generation: temperature ${l.temperature}, output limit ${l.maxOutputTokens ?? "the provider's default"}, ${system}, ${samples}.`;
}

/** The warning a report carries when some 3D items were scaled by ground truth. */
function scaleOracleLine(items: number): string {
  return `${items} 3D item(s) took their metric scale from the simulator's depth (one view, no camera baseline and no floor in view for the camera-height scale): ground truth a real agent would not have; their records carry scale_oracle.`;
}

/**
 * How much of each subcategory needs no perception: the shortcut baseline (question and options only)
 * against chance and against the 2D baseline, paradigms pooled.
 */
function shortcutSection(s: RunSummary): string[] {
  // a run of several reasoners: the first 2D method in the summary's order
  const twoDMethod = s.methods.find((m) => splitMethod(m).arm === "2D") ?? "2D";
  const rows = [["Subcategory", "Shortcut", "chance", twoDMethod, "needs perception"]];
  for (const sub of s.subcategories) {
    const c = s.table[sub]?.["Shortcut"]?.["all"];
    if (!c || c.n === 0) continue;
    const chance = c.chance ?? null;
    const twoD = s.table[sub]?.[twoDMethod]?.["all"];
    rows.push([
      title(sub),
      cellWithInterval(c),
      chance === null ? "-" : (chance * 100).toFixed(1),
      pct(twoD),
      chance !== null && c.score.lo > chance ? "partly (shortcut above chance)" : "yes (shortcut at chance)",
    ]);
  }
  return [
    "## Answerable without perception (shortcut baseline)",
    "",
    "The shortcut baseline reads only the question text and its options (src/reason/shortcut.ts): a fixed prior per subcategory and the option nearest the options' mean for counts. Above chance, a subcategory gives part of its answer away without looking.",
    "",
    pad(rows, true),
    "",
  ];
}

/** The sign agreement of each 3D arm with the paper's Table 4 (paperAgreement.ts); nothing when no arm stands for one of its models. */
function agreementSection(s: RunSummary): string[] {
  const rows = paperAgreement(s);
  if (!rows.length) return [];
  const intro = `Each 3D arm's difference from 2D set against the ESI-Bench paper's for the same subcategory and paradigm (Table 4: GT 3D + Gemini, or VGGT + Gemini for the noisy and VGGT arms, minus Gemini 3.1), over the cells where the paper's difference is at least ${PAPER_DIFFERENCE_MIN_POINTS} points. Signs only: the paper's numbers are Gemini's on BEHAVIOR-1K scenes, not this run's reasoner and scenes.`;
  return ["## Agreement with the paper (ESI-Bench Table 4)", "", intro, "", agreementTable(rows, { markdown: true }), ""];
}

export interface ReportMeta {
  runId: string;
  version: string;
  wallSeconds?: number;
  /** Tasks or paradigms of a directory suite that could not run, with the reason (src/eval/suite.ts). */
  skipped?: Array<{ task_id: string; subcategory: string; paradigm: string | null; reason: string }>;
  /** Tasks rendered as proxy scenes of another simulator's task (bridge/esibench/proxy.ts). */
  proxies?: number;
  /** 3D items whose metric scale came from the simulator's depth (records' scale_oracle). */
  scaleOracleItems?: number;
  /** a queue run: where, and the duplicate deliveries its collector dropped */
  queue?: string;
  /** answers read by a tolerant rule (src/eval/fuzzyMatches.ts), listed for a reader to check */
  fuzzyMatches?: readonly FuzzyMatch[];
}

export function reportMarkdown(s: RunSummary, config: RunConfig, meta: ReportMeta): string {
  const out: string[] = [];
  out.push(`# esi3d run ${meta.runId}`);
  out.push("");
  if (meta.proxies)
    out.push(
      `**Proxy renders:** ${meta.proxies} task(s) are ESI-Bench tasks rendered by the built-in simulator with stand-ins (library models or boxes of the recorded extents) for the BEHAVIOR-1K scene: these results are about the proxy scenes, not ESI-Bench's renders.`,
      "",
    );
  out.push(
    `esi3d ${meta.version}; suite ${config.suite} (seed ${config.seed}); sources ${config.sources.join(", ")}${config.sources.includes("noisy") ? ` (noise level ${config.noise.noiseLevel}, components ${config.noise.noiseComponents.join("+")})` : ""}; paradigms ${config.paradigms.join(", ")}; reasoner${config.reasoner.length > 1 ? "s" : ""} ${config.reasoner.join(", ")}; baseline ${config.baseline.join(",")}.${meta.wallSeconds ? ` Wall time ${meta.wallSeconds.toFixed(0)} s.` : ""}`,
  );
  out.push("");
  out.push(evidenceLine(config));
  out.push("");
  for (const m of modelReasoners(config))
    out.push(
      `Rate limits (shared by every worker of a queue run): ${describeLimits(m, { requests: config.llm.requestsPerWindow, tokens: config.llm.tokensPerWindow, windowMs: config.llm.rateWindowMs })}.`,
      "",
    );
  if (modelReasoners(config).length) out.push(generationLine(config), "");
  if (meta.queue) out.push(`Queue: ${meta.queue}.`, "");
  if (meta.scaleOracleItems) out.push(`**Scale oracle:** ${scaleOracleLine(meta.scaleOracleItems)}`, "");
  out.push("## Leaderboard");
  out.push("");
  out.push(leaderboardTable(s, config.reasoner, { markdown: true }));
  out.push("");
  out.push("## Tokens and cost", "", usageTable(s.usage ?? []), "");
  out.push("## Findings");
  out.push("");
  for (const h of s.headlines) out.push(`- ${h}`);
  out.push("");
  out.push(...agreementSection(s));
  out.push("## Accuracy by subcategory, method and paradigm (all items)");
  out.push("");
  out.push(paperTable(s, { markdown: true, form: "all" }));
  out.push("");
  out.push("## Coverage by subcategory, method and paradigm (share of items answered)");
  out.push("");
  out.push(paperTable(s, { markdown: true, form: "coverage" }));
  out.push("");
  out.push("## Accuracy on answered items by subcategory, method and paradigm");
  out.push("");
  out.push(paperTable(s, { markdown: true, form: "answered" }));
  out.push("");
  if (s.methods.includes("Shortcut")) out.push(...shortcutSection(s));
  out.push("## Pooled over paradigms, with 95 % Wilson intervals");
  out.push("");
  const rows = [["Subcategory", ...s.methods]];
  for (const sub of s.subcategories) rows.push([title(sub), ...s.methods.map((m) => cellWithInterval(s.table[sub]?.[m]?.["all"]))]);
  rows.push(["Overall", ...s.methods.map((m) => cellWithInterval(s.overall[m]?.["all"]))]);
  out.push(pad(rows, true));
  out.push(
    `(accuracy % over all n items [95 % interval], an unanswered item credited at chance; where some were not answered, cov = share answered and the accuracy on the answered items [95 % Wilson interval]; ${SMALL_CELL_LEGEND})`,
  );
  const mraRows = [["Method", ...s.paradigms.map((p) => PARADIGM_TITLES[p]!), "All"]];
  for (const m of s.methods)
    mraRows.push([
      m,
      ...[...s.paradigms, "all"].map((p) =>
        s.overall[m]?.[p]?.mra ? `${s.overall[m]![p]!.mra!.mean.toFixed(3)} (${s.overall[m]![p]!.mra!.n}${smallMark(s.overall[m]![p]!.mra!.n)})` : "-",
      ),
    ]);
  out.push("");
  out.push("## Counting: VSI-Bench mean relative accuracy (integer answers)");
  out.push("");
  out.push(pad(mraRows, true));
  out.push(`(mean MRA (items: unscored ones count 0, VSI-Bench's worst case); ${SMALL_CELL_LEGEND})`);
  out.push("");
  out.push("## Confidence calibration (the paper's metacognition point)");
  out.push("");
  const calRows = [["Method", "ECE", "Brier", "mean conf. right", "mean conf. wrong", "n"]];
  for (const m of s.methods) {
    const c = s.calibration[m]!;
    calRows.push([
      m,
      Number.isFinite(c.ece) ? c.ece.toFixed(3) : "-",
      Number.isFinite(c.brier) ? c.brier.toFixed(3) : "-",
      Number.isFinite(c.meanConfidenceRight.mean) ? c.meanConfidenceRight.mean.toFixed(3) : "-",
      Number.isFinite(c.meanConfidenceWrong.mean) ? c.meanConfidenceWrong.mean.toFixed(3) : "-",
      String(c.n),
    ]);
  }
  out.push(pad(calRows, true));
  out.push("");
  out.push("## Graph quality per source (against the ground truth)");
  out.push("");
  // the mirror ghost column only where some graph's scene has a mirror: other reports keep their table
  const ghostColumn = s.quality.some((q) => q.mirror_ghost_rate !== undefined);
  const withGhosts = (row: string[], ghost: () => string) => (ghostColumn ? [...row.slice(0, 7), ghost(), ...row.slice(7)] : row);
  const qRows = [
    withGhosts(
      ["Source", "Paradigm", "graphs", "node F1", "dup. rate", "halluc. rate", "stale rate", "miss rate", "rel. precision", "rel. recall", "nodes/graph"],
      () => "ghost rate",
    ),
  ];
  for (const q of s.quality)
    qRows.push(
      withGhosts(
        [
          METHOD_LABELS[q.source] ?? q.source,
          q.paradigm,
          String(q.graphs),
          q.node_f1.toFixed(3),
          (q.duplicate_rate * 100).toFixed(1) + "%",
          (q.hallucination_rate * 100).toFixed(1) + "%",
          q.stale_rate === undefined ? "-" : (q.stale_rate * 100).toFixed(1) + "%",
          (q.miss_rate * 100).toFixed(1) + "%",
          q.relation_precision === null ? "-" : q.relation_precision.toFixed(3),
          q.relation_recall === null ? "-" : q.relation_recall.toFixed(3),
          q.nodes_per_graph.toFixed(1),
        ],
        () => (q.mirror_ghost_rate === undefined ? "-" : (q.mirror_ghost_rate * 100).toFixed(1) + "%"),
      ),
    );
  out.push(pad(qRows, true));
  out.push("");
  if (s.failures?.total) {
    out.push("## Items without an answer, by cause");
    out.push("");
    const fRows = [["Cause", "items"]];
    for (const [c, n] of Object.entries(s.failures.byClass)) fRows.push([c, String(n)]);
    out.push(pad(fRows, true));
    out.push("");
    out.push("Each item's `error` field in items.jsonl holds the cause and the (redacted) message.");
    out.push("");
  }
  if (s.active?.length) out.push(...activeSections(s));
  if (meta.skipped?.length) {
    out.push("## Skipped");
    out.push("");
    const kRows = [["Task", "Subcategory", "Paradigm", "Reason"]];
    for (const k of meta.skipped) kRows.push([k.task_id, k.subcategory, k.paradigm ?? "all", k.reason]);
    out.push(pad(kRows, true));
    out.push("");
  }
  out.push(...fuzzyMatchSection(meta.fuzzyMatches ?? []));
  out.push("## Time per stage (mean ms per item)");
  out.push("");
  const tRows = [["Stage", "mean ms", "n"]];
  for (const [k, v] of Object.entries(s.timings_ms)) tRows.push([k, v.mean.toFixed(1), String(v.n)]);
  out.push(pad(tRows, true));
  out.push("");
  return out.join("\n");
}

const pct1 = (x: number | null) => (x === null || !Number.isFinite(x) ? "-" : `${(x * 100).toFixed(1)}%`);

/** The active paradigm's sections: episodes, anytime accuracy, actions, Active vs Multi. */
function activeSections(s: RunSummary): string[] {
  const rows = s.active!;
  const out: string[] = ["## Active exploration", ""];
  const reasons = [...new Set(rows.flatMap((r) => Object.keys(r.stop_reasons)))].sort();
  const eRows = [
    ["Method", "items", "mean steps", ...reasons.map((k) => `stop: ${k}`), "forced choice", "premature commitment", "final before all seen", "blocked moves"],
  ];
  for (const r of rows)
    eRows.push([
      r.method,
      String(r.items),
      r.mean_steps.toFixed(2),
      ...reasons.map((k) => String(r.stop_reasons[k] ?? 0)),
      String(r.forced_choices),
      `${pct1(r.premature_commitment)} of ${r.confident_answers}`,
      pct1(r.final_before_seen),
      pct1(r.blocked_share),
    ]);
  out.push(
    pad(eRows, true),
    "",
    "Premature commitment: confident (>= --threshold) conclusive answers given before every object the question needs had been seen, over all such answers.",
    "",
  );
  out.push("## Anytime accuracy (had the episode stopped after step k)", "");
  const ks = ANYTIME_REPORT_STEPS.filter((k) => rows.some((r) => r.anytime.length >= k));
  const aRows = [["Method", ...ks.map((k) => `k=${k}`)]];
  for (const r of rows)
    aRows.push([
      r.method,
      ...ks.map((k) => {
        const a = r.anytime[k - 1];
        return a ? `${(a.accuracy * 100).toFixed(1)}${a.mean_confidence === null ? "" : ` (c ${a.mean_confidence.toFixed(2)})`}` : "-";
      }),
    ]);
  out.push(
    pad(aRows, true),
    "",
    "Accuracy over all items (an answer not given credited at chance, 1/k of its options); in brackets the mean confidence of the answers given at that step.",
    "",
  );
  out.push("## Actions taken (executed, per method)", "");
  const acts = [...new Set(rows.flatMap((r) => Object.keys(r.actions)))].sort();
  const hRows = [["Method", ...acts]];
  for (const r of rows) hRows.push([r.method, ...acts.map((a) => String(r.actions[a] ?? 0))]);
  out.push(pad(hRows, true), "");
  if (s.activeVsMulti?.length) {
    out.push("## Active minus Multi (accuracy points, 95 % Newcombe interval)", "");
    const dRows = [["Subcategory", "Method", "Active - Multi", "interval", "n active / multi"]];
    for (const d of s.activeVsMulti)
      dRows.push([title(d.subcategory), d.method, (d.diff * 100).toFixed(1), `[${(d.lo * 100).toFixed(1)}, ${(d.hi * 100).toFixed(1)}]`, `${d.na} / ${d.nb}`]);
    out.push(pad(dRows, true), "");
  }
  return out;
}
