/**
 * `esi3d ablate`: the noisy source swept over error levels against the 2D baseline, per subcategory.
 * Shows where explicit 3D falls below images alone (the paper's central finding, as a curve), and how
 * duplicate, hallucination, stale and miss rates grow with the noise. The level whose error statistics match
 * VGGT's published indoor figures (VGGT_TYPICAL_LEVEL, docs/noise-model.md) is marked `vggt-typical`.
 */
import { SUBCATEGORY_TITLES, type Subcategory } from "../../core/task/taxonomy.js";
import { columnWidths, tableRow, tableRule } from "../../core/table.js";
import type { ItemRecord } from "./records.js";
import { cell, pairByTask, PARADIGM_TITLES, statusFigures, type Cell } from "./summary.js";
import { comparePaired, SIGNIFICANCE_ALPHA, type PairedResult } from "./pairedTests.js";
import { SMALL_CELL_ITEMS, SMALL_CELL_LEGEND, smallMark } from "./smallSamples.js";
import { activeRows, type ActiveRow } from "./activeSummary.js";
import { RUN_PARADIGMS } from "./config.js";
import { VGGT_TYPICAL_LEVEL } from "../../reconstruct/noisy/params.js";

interface AblationQuality {
  level: number;
  graphs: number;
  node_f1: number;
  duplicate_rate: number;
  hallucination_rate: number;
  /**
   * Nodes where a moved object was and no longer is, over the nodes of the graphs that record it; null when none
   * does (records written before objects could move carry no stale count).
   */
  stale_rate: number | null;
  /** Mirror ghosts over the nodes of the graphs of scenes with mirrors; absent where none has a mirror. */
  mirror_ghost_rate?: number;
  miss_rate: number;
  relation_precision: number | null;
}

export interface AblationSummary {
  format: "esi3d-ablation/1";
  levels: number[];
  /** The level matching VGGT's published errors (marked in the table and plots when swept). */
  vggtTypicalLevel: number;
  components: string[];
  paradigms: string[];
  subcategories: string[];
  /** accuracy[subcategory or "overall"][level] (paradigms pooled when there are several) */
  accuracy: Record<string, Record<string, Cell>>;
  /** 2D baseline per subcategory or "overall" */
  baseline: Record<string, Cell>;
  /** Overall accuracy per paradigm: the 2D baseline and each level (pooling hides a paradigm's own curve). */
  byParadigm: Record<string, { baseline: Cell; levels: Record<string, Cell> }>;
  /** Paradigm active: the episodes per level (mean steps, stops, premature commitment), methods "2D" and "noise <level>". */
  active: ActiveRow[];
  quality: AblationQuality[];
  /**
   * versus2D[subcategory or "overall"][level]: 3D at that level minus 2D over every item (an unanswered one at its chance credit), paired by task
   * and paradigm (src/eval/pairedTests.ts); null when they share no item.
   */
  versus2D: Record<string, Record<string, PairedResult | null>>;
  /** The lowest level at which 3D accuracy falls below 2D, per subcategory (null: never). */
  crossings: Record<string, number | null>;
  headlines: string[];
}

const title = (s: string) => (s === "overall" ? "Overall" : (SUBCATEGORY_TITLES[s as Subcategory] ?? s));

export function summarizeAblation(records: ItemRecord[], components: string[]): AblationSummary {
  const noisy = records.filter((r) => r.arm === "3d" && r.source === "noisy");
  const twoD = records.filter((r) => r.arm === "2d");
  const levels = [...new Set(noisy.map((r) => r.noise_level!))].sort((a, b) => a - b);
  const subcategories = [...new Set(records.map((r) => r.subcategory))];
  const paradigms = RUN_PARADIGMS.filter((p) => records.some((r) => r.paradigm === p));
  const accuracy: AblationSummary["accuracy"] = {};
  const baseline: AblationSummary["baseline"] = {};
  for (const s of [...subcategories, "overall"]) {
    const inS = (r: ItemRecord) => s === "overall" || r.subcategory === s;
    accuracy[s] = {};
    for (const l of levels)
      accuracy[s]![String(l)] = cell(
        noisy.filter((r) => inS(r) && r.noise_level === l),
        `${s}@${l}`,
      );
    baseline[s] = cell(twoD.filter(inS), `${s}/2D`);
  }
  const quality: AblationQuality[] = levels.map((l) => {
    const qs = noisy.filter((r) => r.noise_level === l && r.graph_quality).map((r) => r.graph_quality!);
    const sum = (k: string) => qs.reduce((a, q) => a + (q[k] ?? 0), 0);
    const nodes = sum("nodes"),
      matched = sum("matched"),
      observed = sum("observed_objects");
    const p = nodes ? matched / nodes : 0,
      rc = observed ? qs.reduce((a, q) => a + (q.recall_observed ?? 0) * (q.observed_objects ?? 0), 0) / observed : 0;
    const rel = qs.filter((q) => q.relation_precision !== null);
    const ghosts = statusFigures(qs, "mirror_ghosts");
    return {
      level: l,
      graphs: qs.length,
      node_f1: p + rc > 0 ? (2 * p * rc) / (p + rc) : 0,
      duplicate_rate: nodes ? sum("duplicates") / nodes : 0,
      hallucination_rate: nodes ? sum("hallucinated") / nodes : 0,
      stale_rate: statusFigures(qs, "stale")?.rate ?? null,
      ...(ghosts ? { mirror_ghost_rate: ghosts.rate } : {}),
      miss_rate: sum("objects") ? (sum("objects") - matched) / sum("objects") : 0,
      relation_precision: rel.length ? rel.reduce((a, q) => a + q.relation_precision!, 0) / rel.length : null,
    };
  });
  const byParadigm: AblationSummary["byParadigm"] = {};
  for (const p of paradigms)
    byParadigm[p] = {
      baseline: cell(
        twoD.filter((r) => r.paradigm === p),
        `${p}/2D`,
      ),
      levels: Object.fromEntries(
        levels.map((l) => [
          String(l),
          cell(
            noisy.filter((r) => r.paradigm === p && r.noise_level === l),
            `${p}@${l}`,
          ),
        ]),
      ),
    };
  const active = activeRows([...twoD, ...noisy], (r) => (r.arm === "2d" ? "2D" : `noise ${r.noise_level}`)).sort(
    (a, b) => methodLevel(a.method) - methodLevel(b.method),
  );
  const versus2D: AblationSummary["versus2D"] = {};
  for (const s of [...subcategories, "overall"]) {
    const inS = (r: ItemRecord) => s === "overall" || r.subcategory === s;
    versus2D[s] = Object.fromEntries(
      levels.map((l) => [
        String(l),
        comparePaired(
          pairByTask(
            noisy.filter((r) => inS(r) && r.noise_level === l),
            twoD.filter(inS),
          ),
        ),
      ]),
    );
  }
  const crossings: Record<string, number | null> = {};
  for (const s of [...subcategories, "overall"]) {
    const b = baseline[s]!.score.p;
    crossings[s] = levels.find((l) => accuracy[s]![String(l)]!.n > 0 && accuracy[s]![String(l)]!.score.p < b) ?? null;
  }
  const headlines: string[] = [];
  const o = accuracy.overall!;
  headlines.push(
    `Overall 3D accuracy from noise ${levels[0]} to ${levels[levels.length - 1]}: ${levels.map((l) => `${(o[String(l)]!.score.p * 100).toFixed(1)}%`).join(" -> ")}; 2D baseline ${(baseline.overall!.score.p * 100).toFixed(1)}%.`,
  );
  const below = subcategories.filter((s) => crossings[s] !== null);
  headlines.push(
    `3D falls below 2D on ${below.length} of ${subcategories.length} subcategories somewhere in the sweep` +
      (below.length ? `: ${below.map((s) => `${SUBCATEGORY_TITLES[s as Subcategory] ?? s} at ${crossings[s]}`).join(", ")}.` : "."),
  );
  const sigBelow = subcategories.filter((s) => levels.some((l) => isSignificantlyBelow(versus2D[s]![String(l)])));
  headlines.push(
    `Significantly below 2D (paired by task, p < ${SIGNIFICANCE_ALPHA}) somewhere in the sweep: ${sigBelow.length ? sigBelow.map(title).join(", ") : "none"}${subcategories.length ? `; ${subcategories.filter((s) => baseline[s]!.n < SMALL_CELL_ITEMS).length} of ${subcategories.length} subcategories have fewer than ${SMALL_CELL_ITEMS} 2D items` : ""}.`,
  );
  if (crossings.overall !== null) headlines.push(`Overall, 3D drops below 2D from noise level ${crossings.overall}.`);
  const typical = String(VGGT_TYPICAL_LEVEL);
  if (levels.includes(VGGT_TYPICAL_LEVEL)) {
    const at = (s: string) => `${title(s)} ${(accuracy[s]![typical]!.score.p * 100).toFixed(1)}% vs 2D ${(baseline[s]!.score.p * 100).toFixed(1)}%`;
    const named = ["geometric_configuration", "counting_with_occlusion"].filter((s) => subcategories.includes(s));
    headlines.push(`At the vggt-typical level (${typical}): ${[...named, "overall"].map(at).join("; ")}.`);
  }
  const q0 = quality[0],
    q1 = quality[quality.length - 1];
  if (paradigms.length > 1)
    for (const p of paradigms)
      headlines.push(
        `${PARADIGM_TITLES[p] ?? p} alone: 3D ${levels.map((l) => pct(byParadigm[p]!.levels[String(l)]!)).join(" -> ")}; 2D ${pct(byParadigm[p]!.baseline)}.`,
      );
  const act3d = active.filter((r) => r.method !== "2D");
  if (act3d.length)
    headlines.push(
      `Active episodes, mean steps from noise ${levels[0]} to ${levels[levels.length - 1]}: ${act3d.map((r) => r.mean_steps.toFixed(2)).join(" -> ")}${active[0]?.method === "2D" ? ` (2D ${active[0].mean_steps.toFixed(2)})` : ""}.`,
    );
  // stale nodes need moved objects (active episodes with manipulation): named only where some level has one
  const staleShown = quality.some((q) => (q.stale_rate ?? 0) > 0);
  if (q0 && q1)
    headlines.push(
      `Duplicate rate ${(q0.duplicate_rate * 100).toFixed(1)}% -> ${(q1.duplicate_rate * 100).toFixed(1)}%, hallucination rate ${(q0.hallucination_rate * 100).toFixed(1)}% -> ${(q1.hallucination_rate * 100).toFixed(1)}%, ${staleShown ? `stale rate ${rateText(q0.stale_rate)} -> ${rateText(q1.stale_rate)}, ` : ""}miss rate ${(q0.miss_rate * 100).toFixed(1)}% -> ${(q1.miss_rate * 100).toFixed(1)}% (node F1 ${q0.node_f1.toFixed(3)} -> ${q1.node_f1.toFixed(3)}).`,
    );
  return {
    format: "esi3d-ablation/1",
    levels,
    vggtTypicalLevel: VGGT_TYPICAL_LEVEL,
    components,
    paradigms,
    subcategories,
    accuracy,
    baseline,
    byParadigm,
    active,
    quality,
    versus2D,
    crossings,
    headlines,
  };
}

const isSignificantlyBelow = (d: PairedResult | null | undefined): boolean => !!d && d.diff < 0 && d.p < SIGNIFICANCE_ALPHA;

/** An ablation cell: accuracy % over all items [95 %] n, small n marked, and the coverage when some item was not answered. */
const cellText = (c: Cell): string =>
  c.n === 0
    ? "- (n=0)"
    : `${(c.score.p * 100).toFixed(1)} [${(c.score.lo * 100).toFixed(0)}, ${(c.score.hi * 100).toFixed(0)}] n=${c.n}${smallMark(c.n)}${c.nScored < c.n ? ` cov ${((c.nScored / c.n) * 100).toFixed(0)}%` : ""}`;

/** A 3D cell against 2D: "<2D" below it, "<2D!" significantly below it (paired, p < SIGNIFICANCE_ALPHA). */
function belowMark(c: Cell, base: Cell, paired: PairedResult | null | undefined): string {
  if (isSignificantlyBelow(paired)) return " <2D!";
  return c.n > 0 && base.n > 0 && c.score.p < base.score.p ? " <2D" : "";
}

const pct = (c: Cell) => `${(c.score.p * 100).toFixed(1)}%`;
/** A graph-quality rate in per cent; "-" where the graphs did not record it. */
const rateText = (v: number | null) => (v === null ? "-" : `${(v * 100).toFixed(1)}%`);
/** "2D" first, then the levels in order. */
const methodLevel = (m: string) => (m === "2D" ? -1 : Number(m.slice("noise ".length)));

/** Which paradigms the pooled numbers are from, in words: "paradigm Active" or "paradigms Single, Active pooled". */
function paradigmsNote(paradigms: string[]): string {
  const names = paradigms.map((p) => PARADIGM_TITLES[p] ?? p);
  return names.length === 1 ? `paradigm ${names[0]}` : `paradigms ${names.join(", ")} pooled`;
}

/** Column title of a level: `noise 1 (vggt-typical)` for the level matching VGGT. */
const levelTitle = (a: AblationSummary, l: number) => `noise ${l}${l === a.vggtTypicalLevel ? " (vggt-typical)" : ""}`;

export function ablationTable(a: AblationSummary, markdown = false): string {
  const head = ["Subcategory", "2D", ...a.levels.map((l) => levelTitle(a, l))];
  const rows = [...a.subcategories, "overall"].map((s) => [
    title(s),
    cellText(a.baseline[s]!),
    ...a.levels.map((l) => {
      const c = a.accuracy[s]![String(l)]!;
      return cellText(c) + belowMark(c, a.baseline[s]!, a.versus2D[s]?.[String(l)]);
    }),
  ]);
  const qhead = ["Graph quality", "", ...a.levels.map((l) => levelTitle(a, l))];
  const qrows = [
    ["node F1", "", ...a.quality.map((q) => q.node_f1.toFixed(3))],
    ["duplicate rate", "", ...a.quality.map((q) => rateText(q.duplicate_rate))],
    ["hallucination rate", "", ...a.quality.map((q) => rateText(q.hallucination_rate))],
    ["stale rate", "", ...a.quality.map((q) => rateText(q.stale_rate))],
    // scenes with mirrors only: an ablation without any keeps its table
    ...(a.quality.some((q) => q.mirror_ghost_rate !== undefined)
      ? [["mirror ghost rate", "", ...a.quality.map((q) => rateText(q.mirror_ghost_rate ?? null))]]
      : []),
    ["miss rate", "", ...a.quality.map((q) => rateText(q.miss_rate))],
  ];
  // several paradigms: each one's overall row beside the pooled one
  const prows =
    a.paradigms.length > 1
      ? a.paradigms.map((p) => {
          const bp = a.byParadigm[p]!;
          return [
            `Overall, ${PARADIGM_TITLES[p] ?? p}`,
            cellText(bp.baseline),
            ...a.levels.map((l) => {
              const c = bp.levels[String(l)]!;
              return cellText(c) + belowMark(c, bp.baseline, null);
            }),
          ];
        })
      : [];
  const ahead = ["Active episodes", "2D", ...a.levels.map((l) => levelTitle(a, l))];
  const byMethod = (m: string) => a.active.find((r) => r.method === m);
  const share = (v: number | null | undefined) => (v === null || v === undefined ? "-" : `${(v * 100).toFixed(1)}%`);
  const activeRow = (name: string, f: (r: ActiveRow) => string) => [
    name,
    ...["2D", ...a.levels.map((l) => `noise ${l}`)].map((m) => {
      const r = byMethod(m);
      return r ? f(r) : "-";
    }),
  ];
  const arows = a.active.length
    ? [
        activeRow("mean steps", (r) => r.mean_steps.toFixed(2)),
        activeRow("stopped confident", (r) => share((r.stop_reasons.confident ?? 0) / r.items)),
        activeRow("premature commitment", (r) => share(r.premature_commitment)),
      ]
    : [];
  const all = [head, ...rows, ...prows, qhead, ...qrows, ...(arows.length ? [ahead, ...arows] : [])];
  const o = { markdown, align: "numbers" } as const;
  const w = columnWidths(all);
  const fmt = (r: string[]) => tableRow(r, w, o);
  const sep = tableRule(w, o);
  const activePart = arows.length ? ["", fmt(ahead), sep, ...arows.map(fmt)] : [];
  return (
    [fmt(head), sep, ...rows.map(fmt), ...prows.map(fmt), "", fmt(qhead), sep, ...qrows.map(fmt), ...activePart].join("\n") +
    `\n(accuracy % over all n items, an item without an answer credited at chance [95 % interval]; cov = share answered where below 100 %; ${paradigmsNote(a.paradigms)}; <2D = below the 2D baseline, <2D! = significantly below it (paired by task, p < ${SIGNIFICANCE_ALPHA}); ${SMALL_CELL_LEGEND})`
  );
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Small multiples: accuracy vs noise per subcategory, the 2D baseline dashed, crossings marked. */
function ablationSvg(a: AblationSummary): string {
  const subs = [...a.subcategories, "overall"];
  const cols = 4,
    cw = 230,
    ch = 150,
    pad = 36;
  const rows = Math.ceil(subs.length / cols);
  const W = cols * cw,
    H = rows * ch;
  const maxL = Math.max(...a.levels, 1e-9),
    minL = Math.min(...a.levels);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="accuracy versus noise level" font-family="sans-serif" font-size="10">`,
  ];
  subs.forEach((s, i) => {
    const ox = (i % cols) * cw,
      oy = Math.floor(i / cols) * ch;
    const x = (l: number) => ox + pad + ((l - minL) / (maxL - minL || 1)) * (cw - pad - 12);
    const y = (p: number) => oy + ch - 28 - p * (ch - 50);
    parts.push(`<text x="${ox + pad}" y="${oy + 14}" font-weight="bold">${esc(title(s))}</text>`);
    parts.push(
      `<line x1="${ox + pad}" y1="${y(0)}" x2="${ox + cw - 12}" y2="${y(0)}" stroke="#999"/><line x1="${ox + pad}" y1="${y(0)}" x2="${ox + pad}" y2="${y(1)}" stroke="#999"/>`,
    );
    for (const t of [0, 0.5, 1]) parts.push(`<text x="${ox + pad - 4}" y="${y(t) + 3}" text-anchor="end" fill="#555">${t * 100}%</text>`);
    for (const l of a.levels) parts.push(`<text x="${x(l)}" y="${y(0) + 12}" text-anchor="middle" fill="#555">${l}</text>`);
    if (a.levels.includes(a.vggtTypicalLevel)) parts.push(vggtMarker(x(a.vggtTypicalLevel), y(1), y(0)));
    const base = a.baseline[s]!,
      b = base.score.p;
    // the 2D baseline's 95 % interval as a band behind its dashed line
    parts.push(
      `<rect x="${ox + pad}" y="${y(base.score.hi).toFixed(1)}" width="${cw - pad - 12}" height="${(y(base.score.lo) - y(base.score.hi)).toFixed(1)}" fill="#8c8c8c" opacity="0.15"><title>${esc(`2D baseline 95% interval [${(base.score.lo * 100).toFixed(0)}, ${(base.score.hi * 100).toFixed(0)}]%, n=${base.n}`)}</title></rect>`,
    );
    parts.push(
      `<line x1="${ox + pad}" y1="${y(b)}" x2="${ox + cw - 12}" y2="${y(b)}" stroke="#8c8c8c" stroke-dasharray="4 3"><title>2D baseline ${(b * 100).toFixed(1)}% (n=${base.n})</title></line>`,
    );
    const pts = a.levels.map((l) => [x(l), y(a.accuracy[s]![String(l)]!.score.p)] as const);
    parts.push(`<polyline fill="none" stroke="#e0812f" stroke-width="2" points="${pts.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ")}"/>`);
    a.levels.forEach((l, k) => {
      const c = a.accuracy[s]![String(l)]!,
        p = c.score.p,
        px = pts[k]![0].toFixed(1);
      const sig = isSignificantlyBelow(a.versus2D[s]?.[String(l)]),
        small = c.n < SMALL_CELL_ITEMS;
      // the 95 % Wilson interval as a capped whisker
      parts.push(
        `<path d="M${px} ${y(c.score.lo).toFixed(1)}V${y(c.score.hi).toFixed(1)}M${(pts[k]![0] - 3).toFixed(1)} ${y(c.score.lo).toFixed(1)}h6M${(pts[k]![0] - 3).toFixed(1)} ${y(c.score.hi).toFixed(1)}h6" stroke="#e0812f" stroke-width="1" fill="none"/>`,
      );
      // red: below 2D (larger when significantly); hollow: fewer than SMALL_CELL_ITEMS items
      const colour = p < b ? "#c23b3b" : "#e0812f";
      parts.push(
        `<circle cx="${px}" cy="${pts[k]![1].toFixed(1)}" r="${sig ? 5 : p < b ? 4 : 2.5}" fill="${small ? "#fff" : colour}" stroke="${colour}" stroke-width="1.5"><title>${esc(`noise ${l}: ${(p * 100).toFixed(1)}% [${(c.score.lo * 100).toFixed(0)}, ${(c.score.hi * 100).toFixed(0)}] n=${c.n}${small ? " (small)" : ""}${sig ? " (significantly below 2D)" : p < b ? " (below 2D, not significant)" : ""}`)}</title></circle>`,
      );
    });
  });
  parts.push("</svg>");
  return parts.join("");
}

/** A dotted vertical line at the vggt-typical level, labelled. */
function vggtMarker(x: number, yTop: number, yBottom: number): string {
  return `<line x1="${x.toFixed(1)}" y1="${yTop}" x2="${x.toFixed(1)}" y2="${yBottom}" stroke="#3b6fb6" stroke-dasharray="2 2"><title>vggt-typical: the level matching VGGT's published indoor errors</title></line><text x="${(x + 2).toFixed(1)}" y="${yTop + 8}" fill="#3b6fb6" font-size="8">vggt-typical</text>`;
}

/** The rates the graph-errors chart draws, one line each. */
type RateKey = "duplicate_rate" | "hallucination_rate" | "stale_rate" | "miss_rate";

function qualitySvg(a: AblationSummary): string {
  const W = 520,
    H = 240,
    pad = 44;
  const maxL = Math.max(...a.levels, 1e-9),
    minL = Math.min(...a.levels);
  const x = (l: number) => pad + ((l - minL) / (maxL - minL || 1)) * (W - pad - 140);
  const series: Array<[RateKey, string, string]> = [
    ["duplicate_rate", "duplicates", "#e0812f"],
    ["hallucination_rate", "hallucinated", "#c23b3b"],
    // brown, as the viewer draws stale nodes
    ["stale_rate", "stale", "#8d6e63"],
    ["miss_rate", "missed", "#6a51a3"],
  ];
  const top = Math.max(0.05, ...a.quality.flatMap((q) => series.map(([k]) => q[k] ?? 0)));
  const y = (v: number) => H - 30 - (v / top) * (H - 50);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="graph errors versus noise level" font-family="sans-serif" font-size="10">`,
  ];
  parts.push(
    `<line x1="${pad}" y1="${y(0)}" x2="${W - 140}" y2="${y(0)}" stroke="#999"/><line x1="${pad}" y1="${y(0)}" x2="${pad}" y2="${y(top)}" stroke="#999"/>`,
  );
  for (const t of [0, top / 2, top]) parts.push(`<text x="${pad - 4}" y="${y(t) + 3}" text-anchor="end">${(t * 100).toFixed(0)}%</text>`);
  for (const l of a.levels) parts.push(`<text x="${x(l)}" y="${y(0) + 12}" text-anchor="middle">${l}</text>`);
  if (a.levels.includes(a.vggtTypicalLevel)) parts.push(vggtMarker(x(a.vggtTypicalLevel), y(top), y(0)));
  series.forEach(([k, label, color], j) => {
    // a level whose graphs did not record the rate (stale, in records written before objects could move) has no point
    const recorded = a.quality.filter((q) => q[k] !== null);
    if (recorded.length)
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" data-series="${k}" points="${recorded.map((q) => `${x(q.level).toFixed(1)},${y(q[k]!).toFixed(1)}`).join(" ")}"><title>${esc(`${label}: ${a.quality.map((q) => `noise ${q.level} ${rateText(q[k])}`).join(", ")}`)}</title></polyline>`,
      );
    parts.push(
      `<rect x="${W - 125}" y="${20 + j * 18}" width="12" height="12" fill="${color}"/><text x="${W - 108}" y="${30 + j * 18}">${label}${recorded.length ? "" : " (not recorded)"}</text>`,
    );
  });
  parts.push(`<text x="${(W - 140) / 2}" y="${H - 2}" text-anchor="middle">noise level</text></svg>`);
  return parts.join("");
}

export function ablationMarkdown(a: AblationSummary): string {
  return [
    `# Noise ablation (components: ${a.components.join(", ")}; ${paradigmsNote(a.paradigms)})`,
    "",
    `vggt-typical = level ${a.vggtTypicalLevel}: the level whose error statistics match VGGT's published indoor figures (docs/noise-model.md).`,
    "",
    ...a.headlines.map((h) => `- ${h}`),
    "",
    ablationTable(a, true),
    "",
  ].join("\n");
}

export function ablationHtml(a: AblationSummary): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>esi3d noise ablation</title>
<style>body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}pre{font-size:12px;background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>
<h1>Noise ablation</h1><p>Components: ${esc(a.components.join(", "))}; ${esc(paradigmsNote(a.paradigms))}. Orange: 3D (noisy source) accuracy over all items (an unanswered item credited at chance) with 95 % whiskers; dashed grey: the 2D baseline, its band the 95 % interval; red dots: 3D below 2D (large: significantly, paired by task, p &lt; ${SIGNIFICANCE_ALPHA}); hollow dots: fewer than ${SMALL_CELL_ITEMS} items; dotted blue: the vggt-typical level (${a.vggtTypicalLevel}), whose error statistics match VGGT's published indoor figures.</p>
<ul>${a.headlines.map((h) => `<li>${esc(h)}</li>`).join("")}</ul>
${ablationSvg(a)}
<h2>Graph errors</h2>${qualitySvg(a)}
<h2>Table</h2><pre>${esc(ablationTable(a))}</pre>
</body></html>
`;
}
