/**
 * report.html's charts, as inline SVG (no script, no CDN): the forest plot of 3D minus 2D with the paper's
 * differences beside it, accuracy bars by subcategory, graph quality per source, and anytime accuracy. Every
 * chart colours a method by armColours.ts, so an arm looks the same in all of them, and sizes its legend to its
 * longest label, so no label is cut off.
 */
import { SUBCATEGORY_TITLES, type Subcategory } from "../../core/task/taxonomy.js";
import { ANYTIME_REPORT_STEPS } from "./activeSummary.js";
import { armColour, isAppearanceArm } from "./armColours.js";
import { PAPER_MODEL_ORDER, type ForestRow } from "./forest.js";
import { escapeHtml as esc } from "./markdownHtml.js";
import { PAPER_DIFFERENCE_MIN_POINTS, PAPER_PARADIGM_OF, PARADIGM_LETTERS, paperComparisonTitle } from "./paperAgreement.js";
import { TABLE4_MODEL_TITLES, TABLE4_PARADIGMS } from "./paper/esiTable4.js";
import { METHOD_LABELS, PARADIGM_TITLES, type RunSummary } from "./summary.js";

const title = (s: string) => SUBCATEGORY_TITLES[s as Subcategory] ?? s;
/** Width (px) a label of `font` px sans-serif needs, generously: legends and headers are sized by it. */
const labelWidth = (text: string, font = 11) => Math.ceil(text.length * font * 0.6) + 8;
const signed = (x: number, dp = 1) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x).toFixed(dp)}`;

/** The colours of the paper's marks: its 3D model above Gemini 3.1, below it, and within the threshold of it. */
const PAPER_MARK_COLOURS = { above: "#1b7837", below: "#762a83", within: "#dcdcdc" } as const;

/** A paper difference's mark colour. */
const paperMarkColour = (points: number): string =>
  points >= PAPER_DIFFERENCE_MIN_POINTS
    ? PAPER_MARK_COLOURS.above
    : points <= -PAPER_DIFFERENCE_MIN_POINTS
      ? PAPER_MARK_COLOURS.below
      : PAPER_MARK_COLOURS.within;

/** Forest plot geometry (px). */
const FOREST = { label: 200, plot: 540, gapToMarks: 26, mark: 42, markGap: 3, groupGap: 22, armStep: 5, rowPad: 4, minRow: 20, header: 44, axis: 34 };

/** The ends of the forest plot's axis (points): the largest interval end, rounded up to a tick, 10 at least. */
function forestDomain(rows: readonly ForestRow[]): { max: number; step: number } {
  const ends = rows.flatMap((r) => r.arms.flatMap((a) => [Math.abs(a.lo), Math.abs(a.hi), Math.abs(a.diff)]).filter(Number.isFinite));
  const extreme = Math.min(100, Math.max(10, ...ends.map((x) => x * 100)));
  const step = extreme <= 40 ? 10 : extreme <= 80 ? 20 : 25;
  return { max: Math.min(100, Math.ceil(extreme / step) * step), step };
}

/**
 * The forest plot: one row per subcategory, each 3D arm's difference from 2D (points) as a dot with its 95 %
 * interval, a filled dot where the paired test is significant; beside it, per paper model, the paper's
 * difference for each paradigm as a coloured mark with its value. `caption` names what the rows pool.
 */
export function forestChart(rows: readonly ForestRow[], methods: readonly string[], opts: { id: string; caption: string }): string {
  if (!rows.length) return `<p class="note">No 3D arm has a 2D arm of the same reasoner to compare with.</p>`;
  const { max, step } = forestDomain(rows);
  const F = FOREST;
  const X = (share: number) => F.label + ((Math.max(-max, Math.min(max, share * 100)) + max) / (2 * max)) * F.plot;
  // the paper's columns: one group per paper model, one column per paradigm (in the paper's order) any row has
  const groups = PAPER_MODEL_ORDER.filter((m) => rows.some((r) => r.paper.some((g) => g.model === m)));
  const columns = [...new Set(rows.flatMap((r) => r.paper.flatMap((g) => g.marks.map((m) => m.paradigm))))].sort(
    (a, b) => TABLE4_PARADIGMS.indexOf(PAPER_PARADIGM_OF[a]!) - TABLE4_PARADIGMS.indexOf(PAPER_PARADIGM_OF[b]!),
  );
  const marksPerGroup = columns.length;
  const marksWidth = marksPerGroup * (F.mark + F.markGap) - F.markGap;
  const subtitle = `− ${TABLE4_MODEL_TITLES.gemini31} (paper)`;
  // a group as wide as its marks or its two-line header, whichever is wider; the marks centred under it
  const groupWidth = Math.max(marksWidth, labelWidth(subtitle, 12), ...groups.map((g) => labelWidth(TABLE4_MODEL_TITLES[g], 12)));
  const marksX0 = F.label + F.plot + F.gapToMarks;
  const markX = (group: number, k: number) => marksX0 + group * (groupWidth + F.groupGap) + (groupWidth - marksWidth) / 2 + k * (F.mark + F.markGap);
  const width = marksX0 + groups.length * (groupWidth + F.groupGap) - (groups.length ? F.groupGap : 0) + 4;
  const rowHeight = (r: ForestRow) => Math.max(F.minRow, r.arms.length * F.armStep + 2 * F.rowPad - F.armStep);
  const plotHeight = rows.reduce((t, r) => t + rowHeight(r), 0);
  const height = F.header + plotHeight + F.axis;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" data-testid="${esc(opts.id)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(opts.caption)}" font-family="system-ui,sans-serif" font-size="12">`,
  ];
  // header: which side is better, and the paper's columns
  parts.push(
    `<text x="${X(0) - 6}" y="${F.header - 10}" text-anchor="end" fill="#555">← 3D below 2D</text><text x="${X(0) + 6}" y="${F.header - 10}" fill="#555">3D above 2D →</text>`,
  );
  groups.forEach((g, gi) => {
    const x0 = marksX0 + gi * (groupWidth + F.groupGap);
    parts.push(
      `<text x="${x0 + groupWidth / 2}" y="12" text-anchor="middle" font-weight="600">${esc(TABLE4_MODEL_TITLES[g])}</text><text x="${x0 + groupWidth / 2}" y="25" text-anchor="middle" fill="#555">${esc(subtitle)}</text>`,
    );
    columns.forEach((p, k) =>
      parts.push(`<text x="${markX(gi, k) + F.mark / 2}" y="${F.header - 6}" text-anchor="middle" fill="#555">${esc(PARADIGM_LETTERS[p] ?? p)}</text>`),
    );
  });
  // grid
  const gridBottom = F.header + plotHeight;
  for (let t = -max; t <= max; t += step) {
    const x = X(t / 100);
    parts.push(
      `<line x1="${x}" y1="${F.header}" x2="${x}" y2="${gridBottom}" stroke="${t === 0 ? "#333" : "#e2e2e2"}"${t === 0 ? "" : ' stroke-dasharray="2 3"'}/><text x="${x}" y="${gridBottom + 14}" text-anchor="middle" fill="#555">${t > 0 ? "+" : t < 0 ? "−" : ""}${Math.abs(t)}</text>`,
    );
  }
  parts.push(
    `<text x="${X(0)}" y="${gridBottom + 29}" text-anchor="middle" fill="#333">3D arm − 2D, accuracy points over all items (95 % interval, paired by task)</text>`,
  );
  let y = F.header;
  rows.forEach((r, i) => {
    const h = rowHeight(r);
    const anySig = r.arms.some((a) => a.significant);
    parts.push(`<g data-subcategory="${esc(r.subcategory)}" data-effect="${r.effect}">`);
    if (i % 2 === 0) parts.push(`<rect x="0" y="${y}" width="${width}" height="${h}" fill="#f4f6f8"/>`);
    parts.push(
      `<text x="${F.label - 10}" y="${y + h / 2}" text-anchor="end" dominant-baseline="middle"${anySig ? ' font-weight="700"' : ""}>${esc(title(r.subcategory))}${anySig ? " *" : ""}</text>`,
    );
    r.arms.forEach((a, j) => {
      const ay = y + (h - (r.arms.length - 1) * F.armStep) / 2 + j * F.armStep;
      const c = armColour(a.method, methods);
      const p = a.p === null ? "no shared item: Newcombe's interval" : `p = ${a.p < 0.001 ? "< 0.001" : a.p.toFixed(3)} (${a.test})`;
      const tip = `${a.method} − 2D, ${title(r.subcategory)}: ${signed(a.diff * 100)} points [${signed(a.lo * 100)}, ${signed(a.hi * 100)}], ${p}${a.pairs === null ? "" : `, ${a.pairs} items of ${a.tasks} tasks`}${a.significant ? ", significant" : ""}`;
      parts.push(`<g data-method="${esc(a.method)}" data-significant="${a.significant}" data-colour="${c}"><title>${esc(tip)}</title>`);
      parts.push(
        `<line x1="${X(a.lo).toFixed(1)}" x2="${X(a.hi).toFixed(1)}" y1="${ay}" y2="${ay}" stroke="${c}" stroke-width="${a.significant ? 2.4 : 1.3}"${isAppearanceArm(a.method) ? ' stroke-dasharray="4 2"' : ""}/>`,
      );
      parts.push(
        `<circle cx="${X(a.diff).toFixed(1)}" cy="${ay}" r="${a.significant ? 3.6 : 3}" fill="${a.significant ? c : "#fff"}" stroke="${c}" stroke-width="1.6"/></g>`,
      );
    });
    r.paper.forEach((g) => {
      const gi = groups.indexOf(g.model);
      g.marks.forEach((m) => {
        const mx = markX(gi, columns.indexOf(m.paradigm));
        const fill = paperMarkColour(m.points);
        const tip = `paper, ${PARADIGM_TITLES[m.paradigm] ?? m.paradigm}: ${paperComparisonTitle(g.model)} = ${signed(m.points)} points`;
        parts.push(
          `<g data-paper="${g.model}" data-paradigm="${m.paradigm}" data-points="${m.points}"><title>${esc(tip)}</title><rect x="${mx}" y="${y + h / 2 - 8}" width="${F.mark}" height="16" rx="3" fill="${fill}"/><text x="${mx + F.mark / 2}" y="${y + h / 2}" text-anchor="middle" dominant-baseline="middle" font-size="11" fill="${fill === PAPER_MARK_COLOURS.within ? "#333" : "#fff"}">${signed(m.points)}</text></g>`,
        );
      });
    });
    parts.push("</g>");
    y += h;
  });
  parts.push("</svg>");
  return parts.join("");
}

/** An HTML legend of the forest plot: the arms' colours, what a filled dot means, the paper's marks. */
export function forestLegend(methods: readonly string[], hasPaper: boolean): string {
  const arms = methods.map(
    (m) =>
      `<span class="key" data-arm="${esc(m)}" data-colour="${armColour(m, methods)}"><svg width="26" height="10" aria-hidden="true"><line x1="1" x2="25" y1="5" y2="5" stroke="${armColour(m, methods)}" stroke-width="2.4"${isAppearanceArm(m) ? ' stroke-dasharray="4 2"' : ""}/><circle cx="13" cy="5" r="3.6" fill="${armColour(m, methods)}"/></svg>${esc(m)}</span>`,
  );
  const sig = `<span class="key"><svg width="10" height="10" aria-hidden="true"><circle cx="5" cy="5" r="3.6" fill="#333"/></svg>significant (p &lt; 0.05; * on the subcategory) <svg width="10" height="10" aria-hidden="true"><circle cx="5" cy="5" r="3" fill="#fff" stroke="#333" stroke-width="1.4"/></svg>not significant</span>`;
  const paper = hasPaper
    ? `<span class="key"><span class="swatch" style="background:${PAPER_MARK_COLOURS.above}"></span><span class="swatch" style="background:${PAPER_MARK_COLOURS.below}"></span><span class="swatch" style="background:${PAPER_MARK_COLOURS.within}"></span>paper (ESI-Bench Table 4): 3D model above / below Gemini 3.1 by ≥ ${PAPER_DIFFERENCE_MIN_POINTS} points / within; S single, M multi, A active, G GT passive</span>`
    : "";
  return `<div class="legend">${arms.join("")}${sig}${paper}</div>`;
}

/** Grouped horizontal bars with 95 % interval whiskers: accuracy over all items by subcategory for each method. */
export function accuracyChart(s: RunSummary, paradigm: string): string {
  const bar = 9,
    step = 11,
    rowH = step * s.methods.length + 10,
    left = 190,
    width = 520,
    top = 30;
  const legendW = 40 + Math.max(...s.methods.map((t) => labelWidth(t)));
  const H = Math.max(top + s.subcategories.length * rowH + 30, top + s.methods.length * 18 + 10);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 20 + legendW}" height="${H}" role="img" aria-label="accuracy by subcategory, ${esc(PARADIGM_TITLES[paradigm] ?? paradigm)}" font-family="system-ui,sans-serif" font-size="11">`,
  ];
  for (let t = 0; t <= 100; t += 25) {
    const x = left + (t / 100) * width;
    parts.push(
      `<line x1="${x}" y1="${top - 5}" x2="${x}" y2="${H - 25}" stroke="#ddd"/><text x="${x}" y="${H - 10}" text-anchor="middle" fill="#555">${t}%</text>`,
    );
  }
  s.subcategories.forEach((sub, i) => {
    const y0 = top + i * rowH;
    parts.push(`<text x="${left - 8}" y="${y0 + rowH / 2}" text-anchor="end" dominant-baseline="middle">${esc(title(sub))}</text>`);
    s.methods.forEach((m, j) => {
      const c = s.table[sub]?.[m]?.[paradigm];
      if (!c || c.n === 0) return;
      const y = y0 + 4 + j * step;
      parts.push(
        `<rect x="${left}" y="${y}" width="${(c.score.p * width).toFixed(1)}" height="${bar}" fill="${armColour(m, s.methods)}"><title>${esc(`${m}: ${(c.score.p * 100).toFixed(1)}% of all ${c.n} items (coverage ${(c.coverage.p * 100).toFixed(1)}%)`)}</title></rect>`,
      );
      parts.push(
        `<line x1="${(left + c.score.lo * width).toFixed(1)}" x2="${(left + c.score.hi * width).toFixed(1)}" y1="${y + bar / 2}" y2="${y + bar / 2}" stroke="#222" stroke-width="1"/>`,
      );
    });
  });
  s.methods.forEach((m, j) =>
    parts.push(
      `<rect x="${left + width + 20}" y="${top + j * 18}" width="12" height="12" fill="${armColour(m, s.methods)}"/><text x="${left + width + 38}" y="${top + j * 18 + 10}">${esc(m)}</text>`,
    ),
  );
  parts.push("</svg>");
  return parts.join("");
}

/** The rates the quality chart draws, one bar each. */
type QualityRate = "duplicate_rate" | "hallucination_rate" | "stale_rate" | "miss_rate";
/** Vertical step between a row's bars (px); each bar is 11 px high. */
const QUALITY_BAR_STEP = 14;

/** Duplicate, hallucination, stale and miss rates per source and paradigm. */
export function qualityChart(s: RunSummary): string {
  // colours no arm uses: these bars are kinds of error, not arms
  const metrics: Array<[QualityRate, string, string]> = [
    ["duplicate_rate", "duplicates", "#6a3d9a"],
    ["hallucination_rate", "hallucinated", "#e7298a"],
    // brown, as the viewer draws stale nodes (where a moved object was)
    ["stale_rate", "stale", "#8d6e63"],
    ["miss_rate", "missed", "#66a61e"],
  ];
  const rowH = metrics.length * QUALITY_BAR_STEP + 8,
    left = 150,
    width = 360,
    top = 20;
  const legend = metrics.map(([, label]) => `${label} (of nodes / objects)`);
  // a bar's value label may reach past the bar's full width
  const H = top + Math.max(s.quality.length * rowH, metrics.length * 18) + 30;
  const W = left + width + 60 + 20 + 18 + Math.max(...legend.map((t) => labelWidth(t)));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="graph quality" font-family="system-ui,sans-serif" font-size="11">`,
  ];
  s.quality.forEach((q, i) => {
    const y0 = top + i * rowH;
    parts.push(`<text x="${left - 8}" y="${y0 + 20}" text-anchor="end">${esc(`${METHOD_LABELS[q.source] ?? q.source} / ${q.paradigm}`)}</text>`);
    metrics.forEach(([k, label, color], j) => {
      const v = q[k],
        y = y0 + j * QUALITY_BAR_STEP;
      // a summary written before objects could move has no stale rate: no bar, and "-" for its value
      if (v === undefined) {
        parts.push(`<text x="${left + 4}" y="${y + 9}" fill="#333" data-rate="${k}"><title>${esc(`${label}: not recorded`)}</title>-</text>`);
        return;
      }
      parts.push(
        `<rect x="${left}" y="${y}" width="${(v * width).toFixed(1)}" height="11" fill="${color}" data-rate="${k}"><title>${esc(`${label}: ${(v * 100).toFixed(1)}%`)}</title></rect><text x="${left + v * width + 4}" y="${y + 9}" fill="#333">${(v * 100).toFixed(1)}%</text>`,
      );
    });
  });
  const lx = left + width + 60;
  metrics.forEach(([, , color], j) =>
    parts.push(
      `<rect x="${lx}" y="${top + j * 18}" width="12" height="12" fill="${color}"/><text x="${lx + 18}" y="${top + j * 18 + 10}">${esc(legend[j]!)}</text>`,
    ),
  );
  parts.push("</svg>");
  return parts.join("");
}

/** Anytime accuracy curves: accuracy had the episode stopped after step k, one line per method, with interval bands. */
export function anytimeChart(s: RunSummary): string {
  const rows = s.active ?? [];
  const maxK = Math.max(1, ...rows.map((r) => r.anytime.length));
  const left = 50,
    top = 20,
    width = 480,
    height = 220;
  const legendW = 40 + Math.max(0, ...rows.map((r) => labelWidth(r.method)));
  const X = (k: number) => left + ((k - 1) / Math.max(1, maxK - 1)) * width,
    Y = (p: number) => top + (1 - p) * height;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 20 + legendW}" height="${Math.max(top + height + 40, top + rows.length * 18 + 10)}" role="img" aria-label="anytime accuracy" font-family="system-ui,sans-serif" font-size="11">`,
  ];
  for (let t = 0; t <= 100; t += 25)
    parts.push(
      `<line x1="${left}" x2="${left + width}" y1="${Y(t / 100)}" y2="${Y(t / 100)}" stroke="#ddd"/><text x="${left - 6}" y="${Y(t / 100) + 4}" text-anchor="end" fill="#555">${t}%</text>`,
    );
  for (const k of [1, ...ANYTIME_REPORT_STEPS.filter((x) => x > 1 && x <= maxK)])
    parts.push(`<text x="${X(k)}" y="${top + height + 15}" text-anchor="middle" fill="#555">${k}</text>`);
  parts.push(`<text x="${left + width / 2}" y="${top + height + 32}" text-anchor="middle">step k</text>`);
  rows.forEach((r, j) => {
    const c = armColour(r.method, s.methods);
    const band = [
      ...r.anytime.map((a) => `${X(a.step).toFixed(1)},${Y(a.hi).toFixed(1)}`),
      ...[...r.anytime].reverse().map((a) => `${X(a.step).toFixed(1)},${Y(a.lo).toFixed(1)}`),
    ].join(" ");
    parts.push(`<polygon points="${band}" fill="${c}" opacity="0.12"/>`);
    parts.push(
      `<polyline fill="none" stroke="${c}" stroke-width="2" points="${r.anytime.map((a) => `${X(a.step).toFixed(1)},${Y(a.accuracy).toFixed(1)}`).join(" ")}"><title>${esc(r.method)}</title></polyline>`,
    );
    parts.push(
      `<rect x="${left + width + 20}" y="${top + j * 18}" width="12" height="12" fill="${c}"/><text x="${left + width + 38}" y="${top + j * 18 + 10}">${esc(r.method)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}
